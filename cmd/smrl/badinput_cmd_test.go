package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 19, item 12: the low-severity cases, one row each: a clear exit 2 naming the
// culprit (or the warning and behaviour stated), nothing touched.
func TestLowSeverityCases(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string // KEY=VALUE
		setup func(t *testing.T, dir string) []string
		code  ExitCode
		has   []string
		check func(t *testing.T, dir, stderr string)
	}{
		{name: "name 0x10", setup: func(t *testing.T, dir string) []string {
			return []string{"run", "--config", writeFile(t, dir, "c.yaml", "name: 0x10\nseeds: 1\nepisodes: 1\n"), "-q", "--no-plots"}
		}, code: ExitUsage, has: []string{`name: want text (quote it if you mean it: "0x10")`}},
		{name: "name 1e308", setup: func(t *testing.T, dir string) []string {
			return []string{"run", "--config", writeFile(t, dir, "c.yaml", "name: 1e308\nseeds: 1\nepisodes: 1\n"), "-q", "--no-plots"}
		}, code: ExitUsage, has: []string{`name: want text (quote it if you mean it: "1e308")`}, check: shortLine(300)},
		{name: "SMRL_LAMBDA underflows", env: []string{"SMRL_LAMBDA=1e-400"}, setup: tinyArgs, code: ExitUsage,
			has: []string{`SMRL_LAMBDA="1e-400": lambda is out of range: too small for a float64 (it would be 0)`}},
		{name: "lambda underflows in a file", setup: func(t *testing.T, dir string) []string {
			return []string{"run", "--config", writeFile(t, dir, "c.yaml", "lambda: 1e-400\n"), "-q", "--no-plots"}
		}, code: ExitUsage, has: []string{"lambda: 1e-400 is out of range: too small for a float64 (it would be 0)"}},
		{name: "SMRL_LAMBDA hexadecimal", env: []string{"SMRL_LAMBDA=0x1p-2"}, setup: tinyArgs, code: ExitUsage,
			has: []string{"must be a number in decimal notation"}},
		{name: "lower-case variable", env: []string{"SMRL_seeds=2"}, setup: tinyArgs, code: ExitOK,
			has: []string{"SMRL_seeds is not a config key and is ignored; did you mean SMRL_SEEDS?"},
			check: func(t *testing.T, dir, _ string) {
				if !strings.Contains(read(t, filepath.Join(dir, "out", "config.yaml")), "seeds: 1\n") {
					t.Error("SMRL_seeds was applied")
				}
			}},
		{name: "hint for a non-config variable", env: []string{"SMRL_CACHE_DIRR=/tmp"}, setup: tinyArgs, code: ExitOK,
			has: []string{"did you mean SMRL_CACHE_DIR?"}},
		{name: "hint for an upper-case key", setup: func(t *testing.T, dir string) []string {
			return []string{"sweep", "--config", tinyConfig(t, ""), "--set", "PLANNER.TAU=1,2", "--out", filepath.Join(dir, "out")}
		}, code: ExitUsage, has: []string{`unknown config key "PLANNER.TAU"; did you mean planner.tau?`}},
		{name: "hexadecimal and underscored data", setup: func(t *testing.T, dir string) []string {
			return []string{"estimate", "--data", writeFile(t, dir, "d.csv", "s,a,s_next\n0.5,1,0x1p-2\n1_0,1,0.5\n")}
		}, code: ExitUsage, has: []string{`"0x1p-2" is not a number in decimal notation`}},
		{name: "--config ''", setup: func(t *testing.T, dir string) []string {
			return []string{"run", "--config", "", "--out", filepath.Join(dir, "out")}
		}, code: ExitUsage, has: []string{"--config: empty value; leave the flag out for its default"}},
		// A list flag given an empty value meant its default (all
		// estimators, no --where filter) with exit 0.
		{name: "--method ''", setup: func(t *testing.T, dir string) []string {
			return []string{"estimate", "--n", "20", "--method", ""}
		}, code: ExitUsage, has: []string{"--method: empty value; leave the flag out for its default"}},
		{name: "--where ''", setup: func(t *testing.T, dir string) []string {
			return []string{"estimate", "--data", writeFile(t, dir, "d.csv", "s,a,s_next\n0.5,1,0.25\n"), "--where", ""}
		}, code: ExitUsage, has: []string{"--where: empty value"}},
		{name: "--agents ''", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--agents", "")
		}, code: ExitUsage, has: []string{"--agents: empty value"}, check: noEntry("out")},
		{name: "a layered --config ''", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--config", "")
		}, code: ExitUsage, has: []string{"--config: empty value"}, check: noEntry("out")},
		// Item 7 for every file of issue 18's layered --config.
		{name: "a layered --config /dev/zero", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--config", "/dev/zero")
		}, code: ExitUsage, has: []string{"reading config /dev/zero: not a regular file (a device)"}, check: noEntry("out")},
		{name: "sweep, a layered --config directory", setup: func(t *testing.T, dir string) []string {
			return []string{"sweep", "--config", tinyConfig(t, ""), "--config", dir, "--set", "planner.tau=1,2", "--out", filepath.Join(dir, "out")}
		}, code: ExitUsage, has: []string{"is a directory, want a YAML file"}, check: noEntry("out")},
		{name: "--out ''", setup: func(t *testing.T, dir string) []string {
			return []string{"run", "--config", tinyConfig(t, ""), "--out", ""}
		}, code: ExitUsage, has: []string{"--out: empty value"}},
		{name: "--shard-count without an index", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--shard-count", "3")
		}, code: ExitUsage, has: []string{"--shard-count 3 needs JOB_COMPLETION_INDEX", "--shard INDEX/3"}},
		{name: "stepped Slurm array", env: []string{"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_STEP=2"},
			setup: tinyArgs, code: ExitOK, check: func(t *testing.T, dir, _ string) {
				if m := read(t, filepath.Join(dir, "out", "metadata.json")); !strings.Contains(m, `"shard": "2/3"`) {
					t.Errorf("task 5 of --array=1-5:2 is not shard 2/3:\n%s", m)
				}
			}},
		{name: "--set a list key without brackets", setup: func(t *testing.T, dir string) []string {
			return []string{"sweep", "--config", tinyConfig(t, ""), "--set", "env.actions=1,-1", "--out", filepath.Join(dir, "out")}
		}, code: ExitUsage, has: []string{"env.actions is a list key: write each of its values in brackets: env.actions=[1,-1] is one point"},
			check: noEntry("out")},
		// The same grammar for the one value of --set on every other
		// command (issue 18's --set): a bare list is refused there too.
		{name: "run --set a list key without brackets", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--set", "env.actions=1,-1")
		}, code: ExitUsage, has: []string{"--set env.actions=1,-1: env.actions is a list key: write its value in brackets: env.actions=[1,-1]"},
			check: noEntry("out")},
		{name: "config --set agents without brackets", setup: func(t *testing.T, dir string) []string {
			return []string{"config", "--config", tinyConfig(t, ""), "--set", "agents=sm,lds"}
		}, code: ExitUsage, has: []string{"agents is a list key: write its value in brackets: agents=[sm,lds]"}},
		{name: "estimate --set a list key without brackets", setup: func(t *testing.T, dir string) []string {
			return []string{"estimate", "--set", "estimate.sweep_n=100,200"}
		}, code: ExitUsage, has: []string{"estimate.sweep_n=[100,200]"}},
		{name: "run --set a list in brackets", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--set", "env.actions=[-1,1]")
		}, code: ExitOK, check: func(t *testing.T, dir, _ string) {
			if !strings.Contains(read(t, filepath.Join(dir, "out", "config.yaml")), "actions:\n    - -1\n    - 1\n") {
				t.Errorf("--set env.actions=[-1,1] did not set the list:\n%s", read(t, filepath.Join(dir, "out", "config.yaml")))
			}
		}},
		{name: "run --set two lists", setup: func(t *testing.T, dir string) []string {
			return append(tinyArgs(t, dir), "--set", "env.actions=[1,-1],[-1,1]")
		}, code: ExitUsage, has: []string{"gives 2 values; this command takes one value per key"}, check: noEntry("out")},
		{name: "YAML alias in sweep", setup: func(t *testing.T, dir string) []string {
			c := tinyConfig(t, "env:\n  actions: &acts [1, -1]\nsweep:\n  env.actions: [*acts, [2, -2]]\n")
			return []string{"sweep", "--config", c, "--out", filepath.Join(dir, "out"), "-q", "--no-plots"}
		}, code: ExitOK, check: func(t *testing.T, dir, _ string) {
			if _, err := os.Stat(filepath.Join(dir, "out", "env.actions=%5B1%2C-1%5D")); err != nil {
				t.Error("the aliased point was not run")
			}
		}},
		{name: "trial duplicated in a journal", setup: func(t *testing.T, dir string) []string {
			args := tinyArgs(t, dir)
			mustRun(t, args...)
			j := filepath.Join(dir, "out", "journal.jsonl")
			b := read(t, j)
			os.WriteFile(j, []byte(b+strings.SplitAfter(b, "\n")[0]), 0o644)
			return append(args, "--resume")
		}, code: ExitUsage, has: []string{"journal.jsonl line 4: trial agent sm seed 0 is already recorded at line 1"}},
		{name: "null reward in a journal", setup: func(t *testing.T, dir string) []string {
			args := tinyArgs(t, dir)
			mustRun(t, args...)
			j := filepath.Join(dir, "out", "journal.jsonl")
			b := read(t, j)
			i := strings.Index(b, `"reward":`)
			k := i + strings.Index(b[i:], ",")
			os.WriteFile(j, []byte(b[:i]+`"reward":null`+b[k:]), 0o644)
			return append(args, "--resume")
		}, code: ExitUsage, has: []string{"journal.jsonl line 1: agent sm seed 0 episode 1 has no reward (null or missing)"}},
		{name: "unreadable journal", setup: func(t *testing.T, dir string) []string {
			if os.Getuid() == 0 {
				t.Skip("root reads unreadable files")
			}
			args := tinyArgs(t, dir)
			mustRun(t, args...)
			os.Chmod(filepath.Join(dir, "out", "journal.jsonl"), 0)
			return append(args, "--resume")
		}, code: ExitUsage, has: []string{"journal.jsonl: permission denied"}},
		{name: "stale temporary figures", setup: func(t *testing.T, dir string) []string {
			mustRun(t, tinyArgs(t, dir)...)
			os.Mkdir(filepath.Join(dir, "out", "plots"), 0o755)
			if err := os.WriteFile(filepath.Join(dir, "out", "plots", ".cum_reward.svg.tmp-123456"), []byte("half"), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"plot", "--in", filepath.Join(dir, "out"), "--format", "svg"}
		}, code: ExitOK, check: noEntry("out/plots/.cum_reward.svg.tmp-123456")},
		{name: "refused plot --out EMPTY_DIR", setup: func(t *testing.T, dir string) []string {
			os.Mkdir(filepath.Join(dir, "empty"), 0o755)
			return []string{"plot", "--in", t.TempDir(), "--out", filepath.Join(dir, "empty")}
		}, code: ExitUsage, has: []string{"config.yaml not found"}, check: func(t *testing.T, dir, _ string) {
			if ents, _ := os.ReadDir(filepath.Join(dir, "empty")); len(ents) != 0 {
				t.Errorf("the refused plot left %v", ents)
			}
		}},
		{name: "refused plot --out new/child", setup: func(t *testing.T, dir string) []string {
			return []string{"plot", "--in", t.TempDir(), "--out", filepath.Join(dir, "new", "child")}
		}, code: ExitUsage, has: []string{"config.yaml not found"}, check: noEntry("new")},
		{name: "empty episodes.csv", setup: func(t *testing.T, dir string) []string {
			mustRun(t, tinyArgs(t, dir)...)
			os.WriteFile(filepath.Join(dir, "out", "episodes.csv"), nil, 0o644)
			return []string{"plot", "--in", filepath.Join(dir, "out")}
		}, code: ExitUsage, has: []string{"episodes.csv is empty"}},
		{name: "100 000 duplicate agents", env: []string{"SMRL_AGENTS=" + strings.Repeat("sm,", 100_000) + "sm"}, setup: tinyArgs,
			code: ExitUsage, has: []string{`agent "sm" listed twice`}, check: shortLine(500)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, kv := range tc.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			dir := t.TempDir()
			args := tc.setup(t, dir)
			code, stdout, stderr := run(t, args...)
			if tc.code == ExitUsage {
				wantUsage(t, code, stdout, stderr, tc.has...)
			} else {
				if code != tc.code {
					t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
				}
				for _, h := range tc.has {
					if !strings.Contains(stderr, h) {
						t.Errorf("stderr does not mention %q:\n%s", h, stderr)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, dir, stderr)
			}
		})
	}
}

// tinyArgs runs the tiny config into dir/out without figures.
func tinyArgs(t *testing.T, dir string) []string {
	return []string{"run", "--config", tinyConfig(t, ""), "--out", filepath.Join(dir, "out"), "-q", "--no-plots", "--workers", "1"}
}

// noEntry checks that dir/rel does not exist.
func noEntry(rel string) func(t *testing.T, dir, _ string) {
	return func(t *testing.T, dir, _ string) {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			t.Errorf("%s exists", rel)
		}
	}
}

// shortLine checks that stderr is at most n bytes.
func shortLine(n int) func(t *testing.T, _, stderr string) {
	return func(t *testing.T, _, stderr string) {
		if len(stderr) > n {
			t.Errorf("stderr is %d bytes, want at most %d: %.200s...", len(stderr), n, stderr)
		}
	}
}
