package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
)

// The finished runs and sweeps several tests start from, made once per
// test binary (under the directory fixtureDir makes, which TestMain
// removes) and copied into each test's own directory: a run is
// deterministic, so a copy is byte for byte what the test's own command
// would have written, at a copy's cost instead of a run's (as
// internal/experiment's fixture_test.go does). A test of how a command
// writes its files runs its own.
var fixtures struct {
	mu   sync.Mutex
	root string
	runs map[string]*fixture
}

// fixture is one shared results directory, made by once.
type fixture struct {
	once sync.Once
	dir  string
	err  error
}

// removeFixtures removes the shared results directories (TestMain, after
// the tests).
func removeFixtures() {
	if fixtures.root != "" {
		os.RemoveAll(fixtures.root)
	}
}

// shared returns a copy, in a new directory of t, of the results directory
// that smrl args leaves in OUT, where "OUT" in args stands for the shared
// directory and "CONFIG" for the file holding body, the config (written beside it).
// The first test asking for key runs the command; the others wait for it.
func shared(t *testing.T, key, body string, args ...string) string {
	t.Helper()
	fixtures.mu.Lock()
	if fixtures.root == "" {
		root, err := os.MkdirTemp("", "smrl-cmd-fixtures-*")
		if err != nil {
			fixtures.mu.Unlock()
			t.Fatal(err)
		}
		fixtures.root = root
	}
	if fixtures.runs == nil {
		fixtures.runs = map[string]*fixture{}
	}
	f := fixtures.runs[key]
	if f == nil {
		f = &fixture{dir: filepath.Join(fixtures.root, fmt.Sprintf("f%d", len(fixtures.runs)))}
		fixtures.runs[key] = f
	}
	fixtures.mu.Unlock()
	// The shared directory is every test's: made in an environment a test
	// changed (a config key from SMRL_*, a shard from a job index), it
	// would hold another run than the one it stands for.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		isKey := strings.HasPrefix(name, "SMRL_") && !slices.Contains(config.NonConfigEnv, name)
		if isKey || name == "SMRL_SHARD_COUNT" || name == "JOB_COMPLETION_INDEX" || name == "SLURM_ARRAY_TASK_ID" {
			t.Fatalf("the shared results directory %q is made without %s set", key, name)
		}
	}
	f.once.Do(func() {
		if err := os.Mkdir(f.dir, 0o755); err != nil {
			f.err = err
			return
		}
		cfg := filepath.Join(f.dir, "config.yaml")
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			f.err = err
			return
		}
		full := make([]string, len(args))
		for i, a := range args {
			full[i] = strings.NewReplacer("OUT", filepath.Join(f.dir, "out"), "CONFIG", cfg).Replace(a)
		}
		var out, errOut bytes.Buffer
		if code := Main(full, &out, &errOut); code != ExitOK {
			f.err = fmt.Errorf("smrl %s: exit %d: %s", strings.Join(full, " "), code, errOut.String())
		}
	})
	if f.err != nil {
		t.Fatalf("the shared results directory %q: %v", key, f.err)
	}
	dst := filepath.Join(t.TempDir(), "res")
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(f.dir, "out"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fewDraws is the --set of stats.bootstrap_reps that tinyBody's file
// holds, for the runs of other configs whose tests read no interval.
const fewDraws = "stats.bootstrap_reps=200"

// tinyBody is tinyConfig's file with extra inserted before its last
// section (so extra's lines keep their numbers). Its 200 bootstrap
// draws instead of the default 10,000 make the aggregates of its runs
// 50 times cheaper (they were a fifth of a tiny run's CPU): no test of a
// tiny run reads an interval's value, and every file a test compares is
// still written, and written twice alike (the draws come from the seed).
func tinyBody(extra string) string {
	return "name: tiny\nseeds: 1\nepisodes: 2\nplanner:\n  n_rollouts: 5\n" + extra + "stats:\n  bootstrap_reps: 200\n"
}

// tinyRun returns a copy of a finished results directory of a tiny config
// (3 agents × 1 seed × 2 episodes, one worker, svg figures; extra flags
// such as --no-plots appended) and a config file of the same content:
// what smrl run --config cfg --out DIR -q --workers 1 --plot-format svg
// extra... leaves in DIR.
func tinyRun(t *testing.T, extra ...string) (out, cfg string) {
	t.Helper()
	args := append([]string{"run", "--config", "CONFIG", "--out", "OUT", "-q", "--workers", "1", "--plot-format", "svg"}, extra...)
	return shared(t, "tiny-run "+strings.Join(extra, " "), tinyBody(""), args...), tinyConfig(t, "")
}

// tinyGrid is the sweep tinySweep runs: tinyConfig's run on planner.tau 2 and 4.
const tinyGrid = "sweep:\n  planner.tau: [2, 4]\n"

// tinySweep returns a copy of the finished sweep of tinyConfig(t, tinyGrid)
// without figures, on two workers: what smrl sweep --config cfg --out DIR
// -q --no-plots --workers 2 leaves in DIR.
func tinySweep(t *testing.T) string {
	t.Helper()
	return shared(t, "tiny-sweep", tinyBody(tinyGrid), "sweep", "--config", "CONFIG", "--out", "OUT", "-q", "--no-plots", "--workers", "2")
}

// quickRun returns a copy of the finished run of configs/quick.yaml without
// figures, on two workers: what smrl run --config configs/quick.yaml --out
// DIR -q --no-plots --workers 2 leaves in DIR.
func quickRun(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(quickConfig)
	if err != nil {
		t.Fatal(err)
	}
	return shared(t, "quick-run", string(b), "run", "--config", "CONFIG", "--out", "OUT", "-q", "--no-plots", "--workers", "2")
}

// TestSharedRunIsTheCommandsOwn guards the shared directories against a change of what
// they stand for: a copy holds what the test's own command writes.
func TestSharedRunIsTheCommandsOwn(t *testing.T) {
	got, cfg := tinyRun(t, "--no-plots")
	own := filepath.Join(t.TempDir(), "own")
	mustRun(t, "run", "--config", cfg, "--out", own, "-q", "--workers", "1", "--plot-format", "svg", "--no-plots")
	a, b := snapshot(t, got), snapshot(t, own)
	for p, body := range a {
		r, _ := filepath.Rel(got, p)
		if r == "metadata.json" || r == "metrics.jsonl" || strings.HasPrefix(r, ".smrl") {
			continue // times (of the run and of each episode), host, lock
		}
		if b[filepath.Join(own, r)] != body {
			t.Errorf("the shared run's %s differs from the test's own run's", r)
		}
	}
	if len(a) != len(b) {
		t.Errorf("the shared run holds %d files, the test's own %d", len(a), len(b))
	}
}
