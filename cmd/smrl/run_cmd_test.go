package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareQuickWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	code, stdout, stderr := run(t, "compare", "--config", "../../configs/quick.yaml", "--out", out, "--workers", "2")
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
