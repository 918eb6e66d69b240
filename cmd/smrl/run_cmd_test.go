package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

func TestCompareQuickWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	code, stdout, stderr := run(t, "compare", "--config", "../../configs/quick.yaml", "--episodes", "3", "--out", out, "--workers", "2") // 3 of its 8 episodes: every file and figure, less planning
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"episodes.csv", "summary.csv", "config.yaml", "metadata.json", "report.md", "plots/cum_reward.png", "plots/densities.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	for _, a := range []string{"sm ", "lds ", "oracle "} {
		if !strings.Contains(stdout, a) {
			t.Errorf("table lacks %q:\n%s", a, stdout)
		}
	}
	if strings.Contains(stdout, "paper reward") {
		t.Error("quick config is not the paper's: no paper column expected")
	}
	// plot regenerates the figures from the CSV files alone.
	figs := filepath.Join(t.TempDir(), "figs")
	code, stdout, stderr = run(t, "plot", "--in", out, "--out", figs, "--format", "svg")
	if code != ExitOK || !strings.Contains(stdout, "cum_regret.svg") {
		t.Fatalf("plot: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestRunQuietNoPlots(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	code, stdout, stderr := run(t, "run", "--config", "../../configs/quick.yaml", "--out", out, "--quiet", "--no-plots", "--episodes", "2", "--seeds", "1")
	if code != ExitOK || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "plots")); err == nil {
		t.Error("--no-plots drew figures")
	}
	b, _ := os.ReadFile(filepath.Join(out, "episodes.csv"))
	if n := strings.Count(string(b), "\n"); n != 1+3*2 {
		t.Errorf("episodes.csv has %d lines, want header + 3 agents × 2 episodes", n)
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	os.WriteFile(typo, []byte("seeds: 1\nepisods: 3\n"), 0o644)
	shape := filepath.Join(dir, "shape.yaml")
	os.WriteFile(shape, []byte("env:\n  w0: [[1, 2, 3]]\n"), 0o644)
	twoDocs := filepath.Join(dir, "two.yaml")
	os.WriteFile(twoDocs, []byte("episodes: 1\nseeds: 1\n---\nfoo: 4\nseeds: 9\n"), 0o644)
	kind := filepath.Join(dir, "kind.yaml")
	os.WriteFile(kind, []byte("seeds: 1\nagents: sm\n"), 0o644)
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, nil, 0o644)
	cases := []struct {
		args []string
		code ExitCode
		want string
	}{
		{[]string{"run", "--config", typo}, ExitUsage, `line 2: unknown key "episods"`},
		{[]string{"run", "--config", shape}, ExitUsage, "env.w0"},
		{[]string{"run", "--config", kind}, ExitUsage, `kind.yaml line 2: agents: want a list of agent names, e.g. [sm, lds], got "sm"`},
		{[]string{"run", "--config", twoDocs}, ExitUsage, "two.yaml line 3: a second YAML document starts here"},
		{[]string{"run", "--episodes", "0"}, ExitUsage, "episodes: must be >= 1"},
		{[]string{"run", "--seeds", "-1"}, ExitUsage, "seeds: must be >= 1"},
		{[]string{"compare", "--agents", "sm,foo"}, ExitUsage, `unknown agent "foo"`},
		{[]string{"run", "--config", filepath.Join(dir, "missing.yaml")}, ExitUsage, "missing.yaml"},
		{[]string{"run", "--episodes", "x"}, ExitUsage, "--episodes"},
		{[]string{"compare", "--plot-format", "gif"}, ExitUsage, "--plot-format"},
		{[]string{"run", "--config", "../../configs/quick.yaml", "--out", filepath.Join(file, "out")}, ExitUsage, "a-file/out: a parent of it is a file"},
		{[]string{"plot", "--in", filepath.Join(dir, "nope")}, ExitUsage, "nope"},
		{[]string{"plot"}, ExitUsage, "--in"},
	}
	for _, tc := range cases {
		code, stdout, stderr := run(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if stdout != "" {
			t.Errorf("%v: printed to stdout: %q", tc.args, stdout)
		}
	}
	// Nothing was written for the rejected configs: results/ under the test's cwd is absent.
	if _, err := os.Stat("results"); err == nil {
		t.Error("a rejected run created results/")
	}
}

// captureRun returns a constructor of smrl run (or compare, with
// NewCmdCompare) whose runF stores the parsed options in *got.
func captureRun(newCmd func(*IOStreams, func(*RunOptions) error) *cobra.Command, got **RunOptions) func(*IOStreams) *cobra.Command {
	return func(ios *IOStreams) *cobra.Command {
		return newCmd(ios, func(o *RunOptions) error { *got = o; return nil })
	}
}

// The flags of run and compare parse into RunOptions with their documented
// defaults, and a bad flag is a usage error before runF: no experiment runs.
func TestRunFlags(t *testing.T) {
	for _, name := range []string{"run", "compare"} {
		newCmd := NewCmdRun
		if name == "compare" {
			newCmd = NewCmdCompare
		}
		var o *RunOptions
		if code, _, stderr := runSeam(t, captureRun(newCmd, &o), name); code != ExitOK || o == nil {
			t.Fatalf("%s: exit %d, runF called %v: %s", name, code, o != nil, stderr)
		}
		defaults := RunOptions{Format: "png", LogFormat: "text", Grace: DefaultGrace}
		if o.Format != defaults.Format || o.LogFormat != defaults.LogFormat || o.Grace != defaults.Grace ||
			o.Out != "" || o.SaveTransitions != "" || o.Agents != nil || o.Quiet || o.NoPlots || o.Resume || o.DryRun {
			t.Errorf("%s: defaults %+v", name, *o)
		}
		o = nil
		args := []string{name, "-c", "a.yaml", "--config", "b.yaml", "--set", "lambda=0.1", "-o", "dir", "-q", "--no-plots",
			"--save-transitions", "--save-models", "--shard", "1/2", "--grace", "0", "--agents", "sm,lds", "--plot-format", "svg",
			"--log-format", "json", "--overwrite", "--dry-run"}
		if code, _, stderr := runSeam(t, captureRun(newCmd, &o), args...); code != ExitOK || o == nil {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		want := fmt.Sprint([]string{"a.yaml", "b.yaml"}, []string{"lambda=0.1"}, "dir", true, true, "csv", true, "1/2", time.Duration(0), []string{"sm", "lds"}, "svg", "json", true, true)
		got := fmt.Sprint(o.Config.Paths, o.Config.Set, o.Out, o.Quiet, o.NoPlots, o.SaveTransitions, o.SaveModels, o.Shard, o.Grace, o.Agents, o.Format, o.LogFormat, o.Overwrite, o.DryRun)
		if got != want {
			t.Errorf("%s: parsed %s, want %s", name, got, want)
		}
		if o.Cmd == nil || o.Cmd.Name() != name {
			t.Errorf("%s: RunOptions.Cmd is %v", name, o.Cmd)
		}
		for _, bad := range [][]string{{"--grace", "soon"}, {"--seeds", "x"}, {"stray"}, {"--bogus"}} {
			o = nil
			code, stdout, stderr := runSeam(t, captureRun(newCmd, &o), append([]string{name}, bad...)...)
			wantUsage(t, code, stdout, stderr, "smrl "+name+" --help")
			if o != nil {
				t.Errorf("%s %v: runF called after a usage error", name, bad)
			}
		}
	}
}

// Issue 12, crashes 9: SMRL_AGENTS applies to compare; a config's own agents are
// run; --agents overrides both with a note on stderr. The agents are those
// of the config compare resolves, read in its runF: nothing runs.
func TestCompareAgentsPrecedence(t *testing.T) {
	agents := func(args ...string) (string, string) {
		t.Helper()
		var got []string
		code, _, stderr := runSeam(t, func(ios *IOStreams) *cobra.Command {
			return NewCmdCompare(ios, func(o *RunOptions) error {
				c, err := o.loadConfig()
				if err == nil {
					got = c.Agents
				}
				return err
			})
		}, append([]string{"compare", "-q", "--no-plots"}, args...)...)
		if code != ExitOK {
			t.Fatalf("compare %v: exit %d: %s", args, code, stderr)
		}
		return strings.Join(got, ","), stderr
	}
	t.Setenv("SMRL_AGENTS", "sm,oracle")
	if got, _ := agents("--config", quickConfig); got != "sm,oracle" {
		t.Errorf("SMRL_AGENTS=sm,oracle: compare runs %s", got)
	}
	os.Unsetenv("SMRL_AGENTS")
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("seeds: 2\nepisodes: 3\nagents: [lds, oracle]\n"), 0o644)
	if got, _ := agents("--config", cfg); got != "lds,oracle" {
		t.Errorf("config with agents [lds, oracle]: compare runs %s", got)
	}
	if got, stderr := agents("--config", cfg, "--agents", "sm,oracle"); got != "sm,oracle" || !strings.Contains(stderr, "note: --agents sm,oracle overrides agents") {
		t.Errorf("--agents over the config's: runs %s, stderr %q", got, stderr)
	}
	if got, _ := agents("--config", quickConfig); got != "sm,lds,oracle" {
		t.Errorf("default: compare runs %s", got)
	}
}
