package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hardening, round three (issue 19): the narrow cases a hostile user still
// found. One test per item, each a table of cases where there are several.

// tinyRun makes a finished results directory of a tiny config (3 agents ×
// 1 seed × 2 episodes) and returns its path and the config's.
func tinyRun(t *testing.T, extra ...string) (out, cfg string) {
	t.Helper()
	cfg = tinyConfig(t, "")
	out = filepath.Join(t.TempDir(), "res")
	mustRun(t, append([]string{"run", "--config", cfg, "--out", out, "-q", "--workers", "1", "--plot-format", "svg"}, extra...)...)
	return out, cfg
}

// Item 1: a journal.jsonl, .smrl-lock or plots/ planted as a symbolic link
// inside smrl's own directory was written (or deleted) through. Now every
// command refuses it with exit 2 naming the link, and the user's files the
// link points to are untouched. (A fresh run over the finished directory
// needs --overwrite since issue 18, a merge since issue 35: without it the
// command is refused before it opens anything.)
func TestLinksInOwnDirectoryAreNotFollowed(t *testing.T) {
	for _, tc := range []struct {
		name string
		link string // the entry of the results directory made a link
		dir  bool   // the link's target is a folder (plots/)
		args []string
	}{
		{"journal, fresh run", "journal.jsonl", false, []string{"run", "-q", "--no-plots", "--overwrite"}},
		{"journal, resume", "journal.jsonl", false, []string{"run", "-q", "--no-plots", "--resume"}},
		{"lock, fresh run", ".smrl-lock", false, []string{"run", "-q", "--no-plots", "--overwrite"}},
		{"plots, run", "plots", true, []string{"run", "-q", "--plot-format", "svg", "--overwrite"}},
		{"plots, run --no-plots", "plots", true, []string{"run", "-q", "--no-plots", "--overwrite"}},
		{"plots, plot in place", "plots", true, []string{"plot", "--format", "svg"}},
		{"plots, merge", "plots", true, []string{"merge", "-q", "--plot-format", "svg", "--overwrite"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, cfg := tinyRun(t)
			user := t.TempDir()
			target := filepath.Join(user, "precious.txt")
			os.WriteFile(target, []byte("precious\n"), 0o644)
			if tc.dir {
				target = user
				os.WriteFile(filepath.Join(user, "cum_reward.svg"), []byte("mine\n"), 0o644)
			}
			var args []string
			switch tc.args[0] {
			case "plot":
				args = append(tc.args, "--in", out)
			case "merge":
				shard := filepath.Join(t.TempDir(), "shard")
				mustRun(t, "run", "--config", cfg, "--out", shard, "-q", "--no-plots", "--workers", "1")
				args = append(tc.args, shard, "--out", out)
			default:
				args = append(tc.args, "--config", cfg, "--out", out, "--workers", "1")
			}
			link := filepath.Join(out, tc.link)
			os.RemoveAll(link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, user)
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, link, "is a symbolic link", "remove the link")
			sameSnapshot(t, strings.Join(args, " "), before, snapshot(t, user))
		})
	}
}

// Item 2: plot of a results directory without config.yaml drew truncated or
// partial CSV files and exited 0; without config.yaml nothing can be
// checked, so it is exit 2 now.
func TestPlotNeedsConfig(t *testing.T) {
	out, _ := tinyRun(t)
	os.Remove(filepath.Join(out, "config.yaml"))
	b := read(t, filepath.Join(out, "episodes.csv"))
	lines := strings.SplitAfter(b, "\n")
	os.WriteFile(filepath.Join(out, "episodes.csv"), []byte(strings.Join(lines[:len(lines)/2], "")), 0o644)
	before := snapshot(t, out)
	for _, args := range [][]string{
		{"plot", "--in", out, "--format", "svg"},
		{"plot", "--in", out, "--out", filepath.Join(t.TempDir(), "figs")},
	} {
		code, stdout, stderr := run(t, args...)
		wantUsage(t, code, stdout, stderr, filepath.Join(out, "config.yaml")+" not found")
		sameSnapshot(t, strings.Join(args, " "), before, snapshot(t, out))
	}
}

// Item 3: plot --in SWEEP did not check the point directories against
// sweep.yaml. A run into a point directory is refused, and plot refuses
// swapped points and a point's summary copied over another's, before it
// draws anything.
func TestSweepPointsAreCheckedByPlot(t *testing.T) {
	cfg := tinyConfig(t, "sweep:\n  planner.tau: [2, 4]\n")
	for _, tc := range []struct {
		name   string
		spoil  func(sw string) // nil: smrl run --out a point
		errHas []string
	}{
		{"run into a point", nil, []string{"is inside the sweep directory", "only smrl sweep writes"}},
		{"swapped points", func(sw string) {
			a, b := filepath.Join(sw, "planner.tau=2"), filepath.Join(sw, "planner.tau=4")
			os.Rename(a, a+".x")
			os.Rename(b, a)
			os.Rename(a+".x", b)
		}, []string{"sweep point planner.tau=2", "has name = tiny+2", "gives the point name = tiny+1", "overwritten"}},
		{"summary copied", func(sw string) {
			b, _ := os.ReadFile(filepath.Join(sw, "planner.tau=2", "summary.csv"))
			os.WriteFile(filepath.Join(sw, "planner.tau=4", "summary.csv"), b, 0o644)
		}, []string{filepath.Join("sw", "planner.tau=4", "summary.csv"), "is not the file smrl writes from journal.jsonl"}},
		{"sweep.csv edited", func(sw string) {
			editCSV(t, filepath.Join(sw, "sweep.csv"), func(i int, c []string) []string {
				if i == 1 {
					c[len(c)-1] = "0.5"
				}
				return c
			})
		}, []string{filepath.Join("sw", "sweep.csv"), "does not agree with the summary.csv files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := filepath.Join(t.TempDir(), "sw")
			mustRun(t, "sweep", "--config", cfg, "--out", sw, "-q", "--no-plots", "--workers", "2")
			var args []string
			if tc.spoil == nil {
				args = []string{"run", "--config", tinyConfig(t, ""), "--out", filepath.Join(sw, "planner.tau=2"), "-q", "--no-plots"}
			} else {
				tc.spoil(sw)
				args = []string{"plot", "--in", sw, "--format", "svg"}
			}
			before := snapshot(t, sw)
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, tc.errHas...)
			sameSnapshot(t, tc.name, before, snapshot(t, sw))
		})
	}
	// An untouched sweep still plots.
	sw := filepath.Join(t.TempDir(), "sw")
	mustRun(t, "sweep", "--config", cfg, "--out", sw, "-q", "--no-plots", "--workers", "2")
	mustRun(t, "plot", "--in", sw, "--format", "svg")
}

// Item 5: plot --in A --out B, where B is the results directory of another
// run or sweep, replaced B's report.md and scattered figures in it. It is
// refused now, naming B, and B is untouched; a figure directory smrl drew
// earlier is still redrawn.
func TestPlotOutIntoResultsDirectoryIsRefused(t *testing.T) {
	a, _ := tinyRun(t)
	b, _ := tinyRun(t)
	sw := filepath.Join(t.TempDir(), "sw")
	mustRun(t, "sweep", "--config", tinyConfig(t, "sweep:\n  planner.tau: [2, 4]\n"), "--out", sw, "-q", "--no-plots", "--workers", "2")
	for _, tc := range []struct{ in, out, file string }{
		{a, b, "config.yaml"},
		{a, sw, "sweep.yaml"},
		{sw, b, "config.yaml"},
		{sw, sw + "-copy-of-b", "config.yaml"},
	} {
		if strings.HasSuffix(tc.out, "-copy-of-b") {
			// A sweep's --out whose point directory is a run's.
			os.MkdirAll(tc.out, 0o755)
			os.Rename(b, filepath.Join(tc.out, "planner.tau=2"))
			b = filepath.Join(tc.out, "planner.tau=2")
		}
		before := snapshot(t, tc.out)
		code, stdout, stderr := run(t, "plot", "--in", tc.in, "--out", tc.out, "--format", "svg")
		wantUsage(t, code, stdout, stderr, "is the results directory of a run or sweep", "(it holds "+tc.file+")")
		sameSnapshot(t, "plot --out "+tc.out, before, snapshot(t, tc.out))
	}
	figs := filepath.Join(t.TempDir(), "figs")
	mustRun(t, "plot", "--in", a, "--out", figs, "--format", "svg")
	mustRun(t, "plot", "--in", a, "--out", figs, "--format", "svg")
}

// Item 8: --resume without --shard on a shard's directory ran the whole
// experiment into it (and the later merge failed). metadata.json, written
// when the trials start, records the shard; a mismatch is refused.
func TestResumeChecksShard(t *testing.T) {
	cfg := tinyConfig(t, "")
	swCfg := tinyConfig(t, "sweep:\n  planner.tau: [2, 4]\n")
	for _, tc := range []struct {
		name   string
		first  []string // the run made with
		resume []string // the resume's shard flags
		errHas string   // "": accepted
	}{
		{"shard resumed whole", []string{"run", "--shard", "0/2"}, nil, "holds shard 0/2, but this run is the whole run"},
		{"shard resumed as another", []string{"run", "--shard", "0/2"}, []string{"--shard", "1/2"}, "holds shard 0/2, but this run is shard 1/2; resume it with --shard 0/2"},
		{"whole run resumed as shard", []string{"run"}, []string{"--shard", "0/2"}, "holds the whole run (no --shard), but this run is shard 0/2; resume it without --shard"},
		{"sweep shard resumed whole", []string{"sweep", "--shard", "1/2"}, nil, "holds shard 1/2, but this run is the whole run"},
		{"shard resumed as itself", []string{"run", "--shard", "0/2"}, []string{"--shard", "0/2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.first[0] == "sweep" {
				c = swCfg
			}
			out := filepath.Join(t.TempDir(), "d")
			mustRun(t, append(tc.first, "--config", c, "--out", out, "-q", "--no-plots", "--workers", "1")...)
			before := snapshot(t, out)
			args := append([]string{tc.first[0], "--config", c, "--out", out, "-q", "--no-plots", "--workers", "1", "--resume"}, tc.resume...)
			if tc.errHas == "" {
				mustRun(t, args...)
				return
			}
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, "metadata.json records that", tc.errHas)
			sameSnapshot(t, tc.name, before, snapshot(t, out))
		})
	}
}

// editCSV rewrites the CSV file at path line by line (0 is the header).
func editCSV(t *testing.T, path string, edit func(i int, cells []string) []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(read(t, path), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(edit(i, strings.Split(l, ",")), ",")
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// Item 9: plot accepted cells smrl never writes, each a valid number or
// name on its own: an unknown agent, a dropped W column, swapped header
// names, an empty regret cell where the oracle ran; and plot --sweep a CSV
// cut mid-number. The CSV files must now be those the journal makes.
func TestPlotRefusesFilesSmrlNeverWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		edit func(i int, c []string) []string
	}{
		{"unknown agent", "episodes.csv", func(i int, c []string) []string {
			if i == 1 {
				c[0] = "sm2"
			}
			return c
		}},
		{"dropped W column", "episodes.csv", func(_ int, c []string) []string { return c[:len(c)-1] }},
		{"swapped header names", "episodes.csv", func(i int, c []string) []string {
			if i == 0 {
				c[3], c[5] = c[5], c[3] // reward, cum_reward
			}
			return c
		}},
		{"empty regret where the oracle ran", "episodes.csv", func(i int, c []string) []string {
			if i == 1 && c[0] != "oracle" {
				c[6] = ""
			}
			return c
		}},
		{"summary agent renamed", "summary.csv", func(i int, c []string) []string {
			if i > 0 && c[0] == "lds" {
				c[0] = "mle"
			}
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := tinyRun(t, "--no-plots")
			path := filepath.Join(out, tc.file)
			editCSV(t, path, tc.edit)
			before := snapshot(t, out)
			code, stdout, stderr := run(t, "plot", "--in", out, "--format", "svg")
			wantUsage(t, code, stdout, stderr, path)
			sameSnapshot(t, tc.name, before, snapshot(t, out))
		})
	}
	t.Run("sweep CSV cut mid-number", func(t *testing.T) {
		dir := t.TempDir()
		csv := filepath.Join(dir, "sweep.csv")
		os.WriteFile(csv, []byte("method,n,repeat,frobenius_error\nsm,10,0,0.5\nsm,20,0,0.3"), 0o644)
		code, stdout, stderr := run(t, "plot", "--sweep", csv)
		wantUsage(t, code, stdout, stderr, csv, "does not end with a newline")
		if _, err := os.Stat(filepath.Join(dir, "sweep.png")); err == nil {
			t.Error("a figure was drawn from the cut file")
		}
	})
}

// Item 11: SIGTERM with long trials in flight took minutes (the trials
// finished first). --grace bounds the wait, and a second signal ends it at
// once; both exit 130 with the trials in flight left to --resume.
func TestGraceAndSecondSignalAbandonTrials(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   string
		signals int
	}{
		{"grace runs out", "100ms", 1},
		{"second signal", "0", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "res")
			args := []string{"run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--workers", "1", "--seeds", "1", "--episodes", "3000", "--grace", tc.grace}
			type result struct {
				code   ExitCode
				stderr string
			}
			done := make(chan result)
			go func() {
				var o, e bytes.Buffer
				code := Main(args, &o, &e)
				done <- result{code, e.String()}
			}()
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
				if _, err := os.Stat(filepath.Join(out, "metadata.json")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the run did not start")
				}
			}
			start := time.Now()
			for range tc.signals {
				time.Sleep(20 * time.Millisecond)
				syscall.Kill(os.Getpid(), syscall.SIGINT)
			}
			r := <-done
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("exit %v after the signal", took)
			}
			if r.code != ExitInterrupted || !strings.Contains(r.stderr, "the trials in flight were abandoned; a resume recomputes them") {
				t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			if b := read(t, filepath.Join(out, "journal.jsonl")); b != "" {
				t.Errorf("an abandoned trial was journaled: %.80s", b)
			}
		})
	}
}

// --grace is one flag of run, compare and sweep with issue 18's
// vocabulary: in each command's help, with value completion (a duration,
// not a file name), and a negative value is a usage error.
func TestGraceFlagVocabulary(t *testing.T) {
	for _, cmd := range []string{"run", "compare", "sweep"} {
		_, stdout, _ := run(t, cmd, "--help")
		if !strings.Contains(stdout, "--grace duration") || !strings.Contains(stdout, "(default 20s)") {
			t.Errorf("smrl %s --help does not show --grace with its default:\n%s", cmd, stdout)
		}
		code, stdout, stderr := run(t, "__complete", cmd, "--grace", "")
		if code != ExitOK || !strings.Contains(stdout, "20s\n") || !strings.Contains(stdout, ":4\n") {
			t.Errorf("smrl __complete %s --grace: exit %d, stderr %q, want 20s without file completion:\n%s", cmd, code, stderr, stdout)
		}
		code, stdout, stderr = run(t, cmd, "--grace", "-1s", "--dry-run", "--set", "planner.tau=2", "--set", "seeds=1")
		wantUsage(t, code, stdout, stderr, "--grace: want a duration >= 0")
	}
	for _, cmd := range []string{"plot", "merge", "estimate", "config"} {
		if code, _, _ := run(t, cmd, "--grace", "1s"); code != ExitUsage {
			t.Errorf("smrl %s takes --grace (exit %d): it runs no trials", cmd, code)
		}
	}
}

// Item 12: the low-severity cases, one row each: a clear exit 2 naming the
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

// TestHelperSmrl is the child process of the kill tests: smrl with the
// arguments in SMRL_TEST_ARGS (separated by newlines).
func TestHelperSmrl(t *testing.T) {
	args := os.Getenv("SMRL_TEST_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(int(Main(strings.Split(args, "\n"), os.Stdout, os.Stderr)))
}

// Item 4, the kill property extended to merge: a merge killed (SIGKILL) at
// any moment over a directory holding an earlier merge never leaves that
// merge's figures or report beside its own new CSV files, and merging
// again gives the directory an uninterrupted merge writes, byte for byte.
func TestKilledMergeLeavesNoStaleFigures(t *testing.T) {
	root := t.TempDir()
	merged := func(seed string) string { // an uninterrupted merge of the shards of seed
		shards := []string{filepath.Join(root, seed, "s0"), filepath.Join(root, seed, "s1")}
		for i, s := range shards {
			mustRun(t, "run", "--config", quickConfig, "--seed", seed, "--shard", fmt.Sprintf("%d/2", i), "--out", s, "-q", "--no-plots")
		}
		out := filepath.Join(root, seed, "merged")
		mustRun(t, append([]string{"merge", "--out", out, "-q", "--plot-format", "svg"}, shards...)...)
		return out
	}
	oldRef, newRef := merged("1"), merged("2")
	oldFiles, newFiles := snapshot(t, oldRef), snapshot(t, newRef)
	rel := func(m map[string]string, base string) map[string]string {
		out := map[string]string{}
		for p, b := range m {
			r, _ := filepath.Rel(base, p)
			if !strings.HasPrefix(filepath.Base(r), ".smrl") && r != "metadata.json" {
				out[r] = b
			}
		}
		return out
	}
	oldRel, newRel := rel(oldFiles, oldRef), rel(newFiles, newRef)
	args := []string{"merge", "--out", "OUT", "--overwrite", "-q", "--plot-format", "svg", filepath.Join(root, "2", "s0"), filepath.Join(root, "2", "s1")}
	for _, delay := range []time.Duration{40, 120, 200, 300, 450} {
		out := filepath.Join(root, fmt.Sprintf("kill-%d", delay), "merged") // report.md names it
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.CopyFS(out, os.DirFS(oldRef)); err != nil {
			t.Fatal(err)
		}
		args[2] = out
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSmrl$")
		cmd.Env = append(os.Environ(), "SMRL_TEST_ARGS="+strings.Join(args, "\n"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		now := rel(snapshot(t, out), out)
		newCSV := now["episodes.csv"] == newRel["episodes.csv"] || now["summary.csv"] == newRel["summary.csv"]
		for f, b := range now {
			derived := f == "report.md" || strings.HasPrefix(f, "plots"+string(filepath.Separator))
			if newCSV && derived && b == oldRel[f] && b != newRel[f] {
				t.Errorf("killed after %v ms: %s of the earlier merge is beside the new CSV files", int(delay), f)
			}
		}
		mustRun(t, args...)
		if got := rel(snapshot(t, out), out); fmt.Sprint(got) != fmt.Sprint(newRel) {
			for f := range newRel {
				if got[f] != newRel[f] {
					t.Errorf("killed after %v ms: merging again gives another %s than the uninterrupted merge", int(delay), f)
				}
			}
			for f := range got {
				if _, ok := newRel[f]; !ok {
					t.Errorf("killed after %v ms: merging again leaves %s, which the uninterrupted merge does not write", int(delay), f)
				}
			}
		}
	}
}
