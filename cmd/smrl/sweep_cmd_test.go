package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// tinyConfig is a quick config for sweeps: 3 agents × 1 seed × 2
// episodes (tinyBody's file).
func tinyConfig(t *testing.T, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(tinyBody(extra)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSweepCommand(t *testing.T) {
	cfg := tinyConfig(t, "sweep:\n  planner.tau: [2, 4]\n")
	out := filepath.Join(t.TempDir(), "sw")
	code, stdout, stderr := run(t, "sweep", "--config", cfg, "--set", "lambda=log:1e-4:1e-2:2", "--out", out, "--plot-format", "svg", "--workers", "2")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"planner.tau  lambda  agent", "wrote " + out + " (4 points, 12 trials", "wrote 7 sweep figures"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Count(stdout, "figures and") != 1 {
		t.Errorf("stdout has a figures line per point:\n%s", stdout)
	}
	if html := read(t, filepath.Join(out, "report.html")); !strings.Contains(html, "<h2>Aggregate metrics per point</h2>") || !strings.Contains(html, "data:image/svg+xml;base64,") {
		t.Errorf("the sweep's report.html lacks the aggregates per point or the inlined figures")
	}
	if !strings.HasPrefix(read(t, filepath.Join(out, "aggregate_points.csv")), "point,planner.tau,lambda,agent,metric,value,lo,hi\n") {
		t.Errorf("aggregate_points.csv has another header")
	}
	for _, f := range []string{"sweep.yaml", "sweep.csv", "report.md", "plots/sweep_heatmap_regret.svg", "aggregate.csv", "plots/interval_estimates.svg", "planner.tau=4,lambda=0.01/episodes.csv", "planner.tau=4,lambda=0.01/plots/cum_reward.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	// smrl plot --in redraws the sweep figures; smrl sweep --config
	// DIR/sweep.yaml repeats the sweep.
	// svg again: stdout names each figure drawn, the sweep's and every
	// point's (PNG is TestPlotSummaryAndOut's; PDF, whose fonts cost more
	// than the figures, internal/plotting's TestRunFiguresFormats).
	code, stdout, stderr = run(t, "plot", "--in", out, "--format", "svg")
	if code != ExitOK || !strings.Contains(stdout, "sweep_regret_lambda.svg") || !strings.Contains(stdout, "planner.tau=2,lambda=0.0001/plots/mdp.svg") {
		t.Errorf("plot --in SWEEPDIR: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A hand-edited aggregate_points.csv (another header) or a directory
	// in its place: exit 2 naming it, not an index panic or exit 1, before
	// any figure is redrawn (the sweep's files are as they were: a point's
	// figure removed first is not drawn again).
	points := filepath.Join(out, "aggregate_points.csv")
	os.WriteFile(points, []byte("point,planner.tau\nx,2\n"), 0o644)
	os.Remove(filepath.Join(out, "planner.tau=4,lambda=0.01", "plots", "cum_reward.svg"))
	before := snapshot(t, out)
	if code, _, stderr = run(t, "plot", "--in", out, "--format", "svg"); code != ExitUsage || !strings.Contains(stderr, points+": want a header of 8 columns") {
		t.Errorf("an edited %s: exit %d, stderr %q", points, code, stderr)
	}
	sameSnapshot(t, "plot refused for an edited "+points, before, snapshot(t, out))
	os.Remove(points)
	os.Mkdir(points, 0o755)
	before = snapshot(t, out)
	if code, _, stderr = run(t, "plot", "--in", out, "--format", "svg"); code != ExitUsage || !strings.Contains(stderr, points+" is a directory") {
		t.Errorf("a directory at %s: exit %d, stderr %q", points, code, stderr)
	}
	sameSnapshot(t, "plot refused for a directory at "+points, before, snapshot(t, out))
	again := filepath.Join(t.TempDir(), "again")
	if code, _, stderr := run(t, "sweep", "--config", filepath.Join(out, "sweep.yaml"), "--out", again, "-q", "--no-plots"); code != ExitOK {
		t.Fatalf("repeating the sweep from sweep.yaml: exit %d: %s", code, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(out, "sweep.csv"))
	b, _ := os.ReadFile(filepath.Join(again, "sweep.csv"))
	if !bytes.Equal(a, b) {
		t.Error("the sweep repeated from sweep.yaml differs")
	}
}

// Kubernetes and Slurm shards of a sweep, then smrl merge.
func TestSweepShardsFromEnvironmentAndMerge(t *testing.T) {
	cfg := tinyConfig(t, "sweep:\n  planner.tau: [2, 4]\n")
	quick, err := filepath.Abs("../../configs/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	ref := filepath.Join(dir, "ref")
	if code, _, stderr := run(t, "sweep", "--config", cfg, "--out", ref, "-q", "--no-plots"); code != ExitOK {
		t.Fatal(stderr)
	}
	t.Setenv("SMRL_SHARD_COUNT", "2")
	for _, i := range []string{"0", "1"} {
		t.Setenv("JOB_COMPLETION_INDEX", i)
		code, stdout, stderr := run(t, "sweep", "--config", cfg, "--no-plots")
		if code != ExitOK || !strings.Contains(stdout, "shard "+i+"/2") {
			t.Fatalf("shard %s: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
	}
	os.Unsetenv("JOB_COMPLETION_INDEX")
	shards, _ := filepath.Glob(filepath.Join("results", "tiny-sweep", "shard-*-of-2"))
	if len(shards) != 2 {
		t.Fatalf("shard directories %v", shards)
	}
	// The conventional results/<name>/ is marked, so merge may write there.
	code, stdout, stderr := run(t, "merge", shards[0], shards[1], "--out", filepath.Join("results", "tiny-sweep"), "--no-plots")
	if code != ExitOK || !strings.Contains(stdout, "(2 points, 6 trials") {
		t.Fatalf("merge: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(ref, "sweep.csv"))
	b, _ := os.ReadFile(filepath.Join("results", "tiny-sweep", "sweep.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the merged sweep.csv differs from the unsharded sweep's")
	}
	// A run's shard and a sweep's shard do not mix.
	runShard := filepath.Join(dir, "runshard")
	if code, _, stderr := run(t, "run", "--config", quick, "--episodes", "1", "--seeds", "1", "--shard", "0/1", "--out", runShard, "-q", "--no-plots"); code != ExitOK {
		t.Fatal(stderr)
	}
	code, stdout, stderr = run(t, "merge", shards[0], runShard, "--out", filepath.Join(dir, "mixed"))
	wantUsage(t, code, stdout, stderr, "give the shards of one run or of one sweep, not both")
}

func TestSweepBadInput(t *testing.T) {
	cfg := tinyConfig(t, "")
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	os.MkdirAll(filepath.Join(mine, "planner.tau=2"), 0o755)
	os.WriteFile(filepath.Join(mine, "planner.tau=2", "notes.txt"), []byte("x"), 0o644)
	withGrid := tinyConfig(t, "sweep:\n  planner.tau: [1, 2]\n")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--set", "planner.tau=1,x"}, []string{"--set planner.tau=1,x: planner.tau: \"x\" must be an integer"}},
		{[]string{"--set", "env.w0=[[1,1]];[[2,2]]", "--set", "planner.tau=1,2"}, []string{`--set env.w0=[[1,1]];[[2,2]]: env.w0: "[[1,1]];[[2,2]]" must be one list`}},
		{[]string{"--set", "planner.tua=1,2"}, []string{"unknown config key \"planner.tua\"; did you mean planner.tau?"}},
		{[]string{"--set", "planner.tau=0,1"}, []string{"sweep point planner.tau=0: --set: planner.tau: must be >= 1, got 0"}},
		{[]string{"--set", "planner.tau=1", "--set", "planner.tau=2"}, []string{"--set planner.tau is given twice"}},
		{[]string{"--set", "planner.n_rollouts=lin:1:10:3"}, []string{"gives 5.5, which is not a whole number"}},
		{[]string{"--set", "seeds=1,2", "--seeds", "3"}, []string{"--set sweeps seeds, which --seeds also sets"}},
		{nil, []string{"nothing to sweep"}},
		{[]string{"--set", "planner.tau=2,3", "--out", mine}, []string{"not empty and was not made by smrl"}},
		{[]string{"--set", "planner.tau=2", "--shard", "2/2"}, []string{"--shard: shard 2 of 2"}},
	} {
		args := append([]string{"sweep", "--config", cfg, "-q"}, tc.args...)
		code, stdout, stderr := run(t, args...)
		wantUsage(t, code, stdout, stderr, tc.want...)
		if strings.Count(stderr, "\n") > 2 {
			t.Errorf("%v: more than one error line:\n%s", tc.args, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(mine, ".smrl-results")); err == nil {
		t.Error("a refused sweep marked the user's directory")
	}
	// The other commands refuse a config with a grid.
	code, stdout, stderr := run(t, "run", "--config", withGrid)
	wantUsage(t, code, stdout, stderr, "line 6: the sweep: section is a grid for smrl sweep: run it with smrl sweep --config")
	// A note when --set replaces the file's sweep of a key.
	code, _, stderr = run(t, "sweep", "--config", withGrid, "--set", "planner.tau=3", "--out", filepath.Join(dir, "note"), "-q", "--no-plots")
	if code != ExitOK || !strings.Contains(stderr, "smrl: note: --set planner.tau=3 replaces the sweep of planner.tau in "+withGrid+" line 7") {
		t.Errorf("override note: exit %d, stderr %q", code, stderr)
	}
}

// sweep's flags parse into SweepOptions through its runF (nothing runs):
// the grid's --set arguments in order, and its own --save-models.
func TestSweepFlags(t *testing.T) {
	var o *SweepOptions
	capture := func(ios *IOStreams) *cobra.Command {
		return NewCmdSweep(ios, func(so *SweepOptions) error { o = so; return nil })
	}
	code, _, stderr := runSeam(t, capture, "sweep", "--set", "planner.tau=1,2", "--set", "lambda=log:1e-4:1e-2:2", "--save-models", "--agents", "sm", "-o", "sw", "--shard", "0/2")
	if code != ExitOK || o == nil {
		t.Fatalf("exit %d, runF called %v: %s", code, o != nil, stderr)
	}
	got := fmt.Sprint(o.Config.Set, o.SaveModels, o.Agents, o.Out, o.Shard, o.Format, o.Grace, o.Cmd.Name())
	if want := fmt.Sprint([]string{"planner.tau=1,2", "lambda=log:1e-4:1e-2:2"}, true, []string{"sm"}, "sw", "0/2", "png", DefaultGrace, "sweep"); got != want {
		t.Errorf("parsed %s, want %s", got, want)
	}
	o = nil
	code, stdout, stderr := runSeam(t, capture, "sweep", "--save-transitions")
	wantUsage(t, code, stdout, stderr, "unknown flag: --save-transitions")
	if o != nil {
		t.Error("runF called after a usage error")
	}
}
