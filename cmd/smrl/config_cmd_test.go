package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Item 1: adding an environment is one file plus one registration line
// (testenv_test.go): it runs, its section is in the snapshot and nothing of
// the environments it does not use, its validation is its own, and its
// keys are refused under another env.kind.
func TestTestOnlyEnvironment(t *testing.T) {
	out := filepath.Join(t.TempDir(), "walk")
	code, _, stderr := run(t, "run", "--set", "env.kind=test-walk", "--set", "env.walk.drift=0.3", "--set", "agents=[sm,oracle]",
		"--set", "env.horizon=4", "--seeds", "1", "--episodes", "2", "-q", "--no-plots", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	snap := read(t, filepath.Join(out, "config.yaml"))
	for _, want := range []string{"kind: test-walk\n", "  walk:\n    drift: 0.3\n    noise: 0.1\n", "model:\n"} {
		if !strings.Contains(snap, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, snap)
		}
	}
	// "\nlds:": the top-level section; cv.folds also ends in "lds:".
	for _, not := range []string{"cartpole", "family:\n    kind", "w0:", "\nlds:", "confidence:"} {
		if strings.Contains(snap, not) {
			t.Errorf("config.yaml holds %q, which the run does not use:\n%s", not, snap)
		}
	}
	if n := strings.Count(read(t, filepath.Join(out, "episodes.csv")), "\n"); n != 1+2*2 {
		t.Errorf("episodes.csv has %d lines, want 5", n)
	}
	_, stdout, _ := run(t, "list", "envs")
	if !strings.Contains(stdout, "test-walk") {
		t.Errorf("smrl list envs does not list the test environment:\n%s", stdout)
	}
	code, stdout, stderr = run(t, "config", "--set", "env.kind=test-walk", "--set", "env.walk.noise=0")
	wantUsage(t, code, stdout, stderr, "env.walk.noise: must lie in (0, 10], got 0")
	code, stdout, stderr = run(t, "config", "--set", "env.walk.drift=1")
	wantUsage(t, code, stdout, stderr, "env.walk.drift: is set but env.kind is expfam (it is used by env.kind test-walk only)")
}

// Item 1: a key of a part the config does not select is exit 2 naming it,
// from any source, and nothing is written.
func TestUnselectedKeyIsRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", "env:\n  cartpole:\n    dt: .nan\n")
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, "run", "--config", cfg, "--out", out)
	wantUsage(t, code, stdout, stderr, cfg, "env.cartpole.dt: is set but env.kind is expfam")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was created", out)
	}
	t.Setenv("SMRL_PLANNER_N_SEQUENCES", "8")
	code, stdout, stderr = run(t, "compare", "--out", out)
	wantUsage(t, code, stdout, stderr, "SMRL_PLANNER_N_SEQUENCES: planner.n_sequences: is set but planner.mode is constant")
	os.Unsetenv("SMRL_PLANNER_N_SEQUENCES")
	code, stdout, stderr = run(t, "estimate", "--set", "env.family.sigma=2")
	wantUsage(t, code, stdout, stderr, "env.family.sigma: is set but env.family.kind is custom-sin")
	// Sweeps over keys that change nothing, or over equal points.
	for _, tc := range []struct{ set, want string }{
		{"env.features.dim=8,16", "env.features.dim: is set but env.features.kind is linear"},
		{"planner.n_sequences=8,16", "planner.n_sequences: is set but planner.mode is constant"},
		{"lds.sigma=1,2", "lds.sigma: is set but agents is sm, oracle"},
		{"lambda=0,-0", "have the same config"},
	} {
		code, stdout, stderr = run(t, "sweep", "--set", tc.set, "--agents", "sm,oracle", "--out", out, "--dry-run")
		wantUsage(t, code, stdout, stderr, tc.want)
	}
	// A selection overridden above the file drops the file's keys of the
	// part it replaces (SMRL_PLANNER_KIND=cem over a file with planner.mppi).
	cfg = writeFile(t, dir, "m.yaml", "env:\n  action_space: box\nplanner:\n  kind: mppi\n  mppi:\n    samples: 8\n")
	code, stdout, stderr = run(t, "config", "--config", cfg, "--set", "planner.kind=cem")
	if code != ExitOK || strings.Contains(stdout, "mppi") || !strings.Contains(stdout, "  cem:\n") {
		t.Errorf("overriding the planner: exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
}

// Item 2: --set on run, compare, estimate and sweep, with sweep's grammar
// and one value; layered --config; precedence flags > --set > SMRL_* >
// files > defaults; smrl config --sources; --dry-run writes nothing.
func TestOverridesAndInspection(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", "seeds: 3\nepisodes: 4\n")
	b := writeFile(t, dir, "b.yaml", "seeds: 7\n")
	code, stdout, stderr := run(t, "config", "--config", a, "--config", b, "--sources")
	if code != ExitOK {
		t.Fatal(stderr)
	}
	for _, want := range []string{"seeds: 7 # " + b + ":1\n", "episodes: 4 # " + a + ":2\n", "seed: 1 # default\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("smrl config --sources lacks %q:\n%s", want, stdout)
		}
	}
	t.Setenv("SMRL_SEEDS", "8")
	_, stdout, _ = run(t, "config", "--config", a, "--sources")
	if !strings.Contains(stdout, "seeds: 8 # SMRL_SEEDS\n") {
		t.Errorf("SMRL_SEEDS does not override the file:\n%s", stdout)
	}
	_, stdout, _ = run(t, "config", "--config", a, "--set", "seeds=9", "--sources")
	if !strings.Contains(stdout, "seeds: 9 # --set\n") {
		t.Errorf("--set does not override SMRL_SEEDS:\n%s", stdout)
	}
	out := filepath.Join(dir, "never")
	code, stdout, stderr = run(t, "run", "--config", a, "--set", "seeds=9", "--seeds", "10", "--set", "planner.tau=3", "--out", out, "--dry-run")
	if code != ExitOK || !strings.Contains(stdout, "trials: 30 (3 agents × 10 seeds) of 4 episodes") || !strings.Contains(stdout, "output: "+out) {
		t.Errorf("run --dry-run: exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--dry-run created %s", out)
	}
	os.Unsetenv("SMRL_SEEDS")
	// One value per key, in sweep's grammar, with its errors.
	code, stdout, stderr = run(t, "run", "--set", "planner.tau=1,2", "--dry-run")
	wantUsage(t, code, stdout, stderr, "--set planner.tau=1,2: gives 2 values")
	code, stdout, stderr = run(t, "compare", "--set", "planner.tau", "--dry-run")
	wantUsage(t, code, stdout, stderr, "--set planner.tau: want KEY=VALUES")
	code, stdout, stderr = run(t, "run", "--set", "planner.tua=3", "--dry-run")
	wantUsage(t, code, stdout, stderr, `unknown config key "planner.tua"; did you mean planner.tau?`)
	code, stdout, stderr = run(t, "run", "--set", "planner.tau=2", "--set", "planner.tau=3", "--dry-run")
	wantUsage(t, code, stdout, stderr, "planner.tau is set twice")
	if got := runJSON(t, "--set", "estimate.n=50", "--set", "lambda=0.01", "--method", "sm"); got.N != 50 || got.Lambda != 0.01 {
		t.Errorf("estimate --set: n %d, lambda %v", got.N, got.Lambda)
	}
	code, stdout, stderr = run(t, "sweep", "--set", "planner.tau=2,3", "--set", "env.w0=[[1,-1]]", "--seeds", "1", "--out", out, "--dry-run")
	if code != ExitOK || !strings.Contains(stdout, "2 points, 6 trials") || !strings.Contains(stdout, "planner.tau=3,env.w0=[[1,-1]]") {
		t.Errorf("sweep --dry-run: exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	for _, what := range []struct{ arg, want string }{
		{"envs", "mountain-car"}, {"planners", "mppi"}, {"families", "custom-sin"}, {"features", "per-action"},
		{"agents", "lds-ps"}, {"keys", "env.cartpole.dt"},
	} {
		code, stdout, stderr := run(t, "list", what.arg)
		if code != ExitOK || !strings.Contains(stdout, what.want) || stderr != "" {
			t.Errorf("smrl list %s: exit %d, stderr %q, stdout lacks %q", what.arg, code, stderr, what.want)
		}
	}
	code, stdout, stderr = run(t, "list", "planets")
	wantUsage(t, code, stdout, stderr, "want one of envs")
}

// Item 3: a fresh run into completed results is exit 2 with a hint, and
// --overwrite replaces them; compare and sweep of one config default to
// different directories.
func TestCompletedResultsAreNotReplaced(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	args := []string{"run", "--config", quickConfig, "--seeds", "1", "--episodes", "1", "--no-plots", "-q", "--out", out}
	if code, _, stderr := run(t, args...); code != ExitOK {
		t.Fatal(stderr)
	}
	before := read(t, filepath.Join(out, "episodes.csv"))
	code, stdout, stderr := run(t, args...)
	wantUsage(t, code, stdout, stderr, out+" holds completed results (episodes.csv): --overwrite replaces them, --resume continues")
	if read(t, filepath.Join(out, "episodes.csv")) != before {
		t.Error("the refused run changed episodes.csv")
	}
	if code, _, stderr := run(t, append(args, "--overwrite")...); code != ExitOK {
		t.Errorf("--overwrite: %s", stderr)
	}
	code, stdout, stderr = run(t, append(args, "--overwrite", "--resume")...)
	wantUsage(t, code, stdout, stderr, "give one")
	t.Chdir(t.TempDir())
	_, cmp, _ := run(t, "compare", "--dry-run")
	_, sw, _ := run(t, "sweep", "--set", "planner.tau=2,3", "--dry-run")
	if !strings.Contains(cmp, "output: "+filepath.Join("results", "synthetic")+"\n") || !strings.Contains(sw, "output: "+filepath.Join("results", "synthetic-sweep")+"\n") {
		t.Errorf("compare and sweep default directories:\n%s\n%s", cmp, sw)
	}
}

// Item 4: Gymnasium ids are env kinds with their horizons (and box
// actions where Gymnasium's are continuous); explicit keys win.
func TestGymnasiumIDs(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"CartPole-v1", []string{"kind: cartpole # --set\n", "horizon: 500 # env.kind CartPole-v1\n"}},
		{"Pendulum-v1", []string{"kind: pendulum # --set\n", "horizon: 200 # env.kind Pendulum-v1\n", "action_space: box # env.kind Pendulum-v1\n"}},
		{"MountainCarContinuous-v0", []string{"kind: mountain-car # --set\n", "horizon: 999 # env.kind MountainCarContinuous-v0\n"}},
		{"Acrobot-v1", []string{"kind: acrobot # --set\n", "horizon: 500 # env.kind Acrobot-v1\n", "actions: # env.kind Acrobot-v1\n    - -1\n    - 0\n    - 1\n"}},
	} {
		code, stdout, stderr := run(t, "config", "--set", "env.kind="+tc.id, "--set", "planner.mode=random", "--sources")
		if code != ExitOK {
			t.Errorf("%s: %s", tc.id, stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: smrl config lacks %q:\n%s", tc.id, w, stdout)
			}
		}
	}
	_, stdout, _ := run(t, "config", "--set", "env.kind=Pendulum-v1", "--set", "planner.mode=random", "--set", "env.horizon=50")
	if !strings.Contains(stdout, "horizon: 50\n") {
		t.Errorf("--set env.horizon does not override the id's horizon:\n%s", stdout)
	}
}

// Item 5: one vocabulary (-q and --plot-format on plot, -q on estimate)
// and completion of flag values and --set keys.
func TestVocabularyAndCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "run", "--agents", ""}, []string{"sm\n", "lds-ucb\n", "mle-ps\n"}},
		{[]string{"__complete", "compare", "--agents", "sm,"}, []string{"sm,lds\n"}},
		{[]string{"__complete", "sweep", "--plot-format", ""}, []string{"png\n", "svg\n", "pdf\n"}},
		{[]string{"__complete", "plot", "--plot-format", ""}, []string{"svg\n"}},
		{[]string{"__complete", "run", "--set", "planner.t"}, []string{"planner.tau=\n"}},
		{[]string{"__complete", "estimate", "--set", "env.kind="}, []string{"env.kind=Pendulum-v1\t", "env.kind=cartpole\t"}},
		{[]string{"__complete", "list", ""}, []string{"envs\n", "keys\n"}},
		{[]string{"__complete", "run", "--save-transitions="}, []string{"csv\n", "gz\n"}},
		{[]string{"__complete", "compare", "--save-transitions="}, []string{"gz\n"}},
		{[]string{"__complete", "estimate", "--where", "seed=0,"}, []string{"seed=0,agent=\n", "seed=0,episodes=\n"}},
		{[]string{"__complete", "estimate", "--where", "agent=ml"}, []string{"agent=mle\n", "agent=mle-ps\n"}},
		{[]string{"__complete", "estimate", "--model", ""}, []string{"json\n"}},
	} {
		code, stdout, stderr := run(t, tc.args...)
		for _, w := range tc.want {
			if code != ExitOK || !strings.Contains(stdout, w) {
				t.Errorf("smrl %v: exit %d, stderr %q, stdout lacks %q:\n%s", tc.args, code, stderr, w, stdout)
			}
		}
	}
	for _, cmd := range []string{"run", "compare", "sweep", "merge", "plot", "estimate"} {
		_, stdout, _ := run(t, cmd, "--help")
		if !strings.Contains(stdout, "-q, --quiet") {
			t.Errorf("smrl %s has no -q, --quiet", cmd)
		}
		if cmd != "estimate" && !strings.Contains(stdout, "--plot-format") {
			t.Errorf("smrl %s has no --plot-format", cmd)
		}
	}
	_, stdout, _ := run(t, "run", "--help")
	for _, want := range []string{"cartpole", "mppi", "--set", "--dry-run", "--overwrite"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("smrl run --help does not mention %q", want)
		}
	}
}

// Results directories of earlier versions, whose config.yaml holds every
// section (of unused parts too), still resume, merge and plot.
func TestOldSnapshotsStillLoad(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "old")
	args := []string{"run", "--config", quickConfig, "--seeds", "1", "--episodes", "2", "--no-plots", "-q", "--out", out}
	if code, _, stderr := run(t, args...); code != ExitOK {
		t.Fatal(stderr)
	}
	p := filepath.Join(out, "config.yaml")
	old := strings.Replace(read(t, p), "env:\n", "env:\n  cartpole:\n    dt: 0.02\n    noise: none\n", 1)
	old = strings.Replace(old, "planner:\n", "planner:\n  n_sequences: 32\n  cem:\n    population: 32\n", 1)
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, append(args, "--resume")...); code != ExitOK {
		t.Errorf("--resume over an old snapshot: %s", stderr)
	}
	if code, _, stderr := run(t, "plot", "-q", "--in", out, "--out", filepath.Join(dir, "figs")); code != ExitOK {
		t.Errorf("plot of an old snapshot: %s", stderr)
	}
	if code, _, stderr := run(t, "merge", out, "--out", filepath.Join(dir, "merged"), "--no-plots", "-q"); code != ExitOK {
		t.Errorf("merge of an old snapshot: %s", stderr)
	}
}

// Issue 35, item 7: smrl config validates as run does, the environment
// included: an expression family not finite on its grid is exit 2 under
// both, with one message.
func TestConfigChecksTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", "env:\n  family: {kind: expression, log_q: \"-x^2/2\", psi: [\"1/x\"]}\n")
	const want = `env.family: psi[0]: invalid expression family: "1/x" has the value +Inf at x = 0`
	code, stdout, stderr := run(t, "config", "--config", cfg)
	wantUsage(t, code, stdout, stderr, want)
	code, stdout, stderr = run(t, "run", "--config", cfg, "--dry-run", "--out", filepath.Join(dir, "out"))
	wantUsage(t, code, stdout, stderr, want)
}

// config's and list's arguments parse into their options through the
// runF (nothing is loaded or listed); list takes exactly one argument.
func TestConfigAndListFlags(t *testing.T) {
	var co *ConfigOptions
	code, _, stderr := runSeam(t, func(ios *IOStreams) *cobra.Command {
		return NewCmdConfig(ios, func(o *ConfigOptions) error { co = o; return nil })
	}, "config", "--sources", "-c", "a.yaml", "--set", "seeds=3")
	if code != ExitOK || co == nil || !co.Sources || fmt.Sprint(co.Config.Paths, co.Config.Set) != "[a.yaml] [seeds=3]" || co.Cmd.Name() != "config" {
		t.Errorf("config: exit %d, options %+v, stderr %q", code, co, stderr)
	}
	var lo *ListOptions
	capture := func(ios *IOStreams) *cobra.Command {
		return NewCmdList(ios, func(o *ListOptions) error { lo = o; return nil })
	}
	if code, _, stderr := runSeam(t, capture, "list", "planners"); code != ExitOK || lo == nil || lo.What != "planners" {
		t.Errorf("list planners: exit %d, options %+v, stderr %q", code, lo, stderr)
	}
	lo = nil
	code, stdout, stderr := runSeam(t, capture, "list")
	wantUsage(t, code, stdout, stderr, "accepts 1 arg(s)")
	if lo != nil {
		t.Error("list: runF called after a usage error")
	}
}

// An empty name wrote into results/ itself, and SMRL_NAME=../../x escaped
// it. Both are config errors now, before anything is written.
func TestNameIsOnePathComponent(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("e.yaml", []byte("name: \"\"\nseeds: 1\nepisodes: 2\n"), 0o644)
	code, stdout, stderr := run(t, "run", "--config", "e.yaml", "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "e.yaml: name: must be a file name")
	t.Setenv("SMRL_NAME", "../../x")
	code, stdout, stderr = run(t, "run", "--no-plots", "-q", "--seeds", "1", "--episodes", "1")
	wantUsage(t, code, stdout, stderr, `SMRL_NAME: name: must be a file name`, `"../../x"`)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused runs wrote %v", ents)
	}
}
