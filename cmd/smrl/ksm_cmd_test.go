package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestKSMRunWorkers: a short run of the ksm agent on the pendulum with
// bimodal torque noise (configs/pendulum-bimodal.yaml at 2 seeds × 2
// episodes of 40 steps, 50 features, 10 centres) completes and writes
// the same episodes.csv and summary.csv, byte for byte, with one worker
// and with two.
func TestKSMRunWorkers(t *testing.T) {
	files, _ := sameFilesByWorkers(t, []string{"run", "--config", filepath.Join("..", "..", "configs", "pendulum-bimodal.yaml"), "--seeds", "2", "--episodes", "2", "--no-plots",
		"--set", "env.horizon=40", "--set", "model.features.dim=50", "--set", "ksm.centres=10",
		"--set", "planner.mppi.samples=8", "--set", "planner.tau=6"}, "episodes.csv", "summary.csv")
	if !bytes.Contains(files[0], []byte("\nksm,")) {
		t.Errorf("episodes.csv has no ksm rows:\n%s", files[0])
	}
}

// TestKSMShortFirstEpisode: a first episode shorter than ksm.centres (5
// steps, 30 centres) is no error: ksm plans with its ridge location until
// a refit has the transitions to draw its centres, and the run writes its
// rows.
func TestKSMShortFirstEpisode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := run(t, "run", "--config", filepath.Join("..", "..", "configs", "pendulum-bimodal.yaml"), "--seeds", "1", "--episodes", "2",
		"--agents", "ksm", "--set", "env.horizon=5", "--set", "model.features.dim=20", "--set", "planner.mppi.samples=8", "--set", "planner.tau=4",
		"--no-plots", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "episodes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\nksm,")); n != 2 {
		t.Errorf("episodes.csv has %d ksm rows, want 2:\n%s", n, b)
	}
}

// TestRunRefusesDataBoundModelFamily: model.family kernel with a learning
// agent other than the greedy sm (lds, sm-ucb, ksm; sm binds it:
// run_kernel_family_test.go) is refused at validation, exit 2 naming
// model.family and pointing at ksm, before the results directory exists;
// with the oracle alone (no learner) the key is not read and the run goes.
func TestRunRefusesDataBoundModelFamily(t *testing.T) {
	cfg := filepath.Join("..", "..", "configs", "pendulum-bimodal.yaml")
	for _, agents := range []string{"lds", "sm-ucb,oracle", "ksm"} {
		dir := filepath.Join(t.TempDir(), "out")
		code, _, errOut := run(t, "run", "--config", cfg, "--seeds", "1", "--episodes", "1", "--agents", agents,
			"--set", "model.family=[kernel]", "--no-plots", "--out", dir)
		if code != ExitUsage || !bytes.Contains([]byte(errOut), []byte("model.family: kernel")) || !bytes.Contains([]byte(errOut), []byte("agent ksm")) {
			t.Fatalf("--agents %s: exit %d, stderr %q; want exit %d naming model.family and ksm", agents, code, errOut, ExitUsage)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("--agents %s: %s exists after the refusal (err %v)", agents, dir, err)
		}
	}
}

// TestKSMSaveModelsRefused: --save-models with the ksm agent, whose model
// has no model-file format, is exit 2 naming the flag and the agent before
// the results directory exists (it was left out in silence before).
func TestKSMSaveModelsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errOut := run(t, "run", "--config", filepath.Join("..", "..", "configs", "pendulum-bimodal.yaml"), "--seeds", "1", "--episodes", "1",
		"--save-models", "--no-plots", "--out", dir)
	if code != ExitUsage || !bytes.Contains([]byte(errOut), []byte("--save-models: agent ksm")) {
		t.Fatalf("exit %d, stderr %q; want exit %d naming --save-models and ksm", code, errOut, ExitUsage)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s exists after the refusal (err %v)", dir, err)
	}
}

// TestKSMLambdaZeroRefused: the ksm agent's ridge location needs lambda >
// 0 (its first refit has fewer transitions than features): lambda: 0 is
// refused at validation, exit 2 naming lambda, before the results
// directory exists (it was exit 1 at the first refit, review of
// 2026-11-28).
func TestKSMLambdaZeroRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	refusedBeforeDir(t, dir, "lambda: the ksm agent's ridge location", []string{"run", "--config", filepath.Join("..", "..", "configs", "pendulum-bimodal.yaml"),
		"--set", "agents=[ksm]", "--set", "lambda=0", "--seeds", "1", "--episodes", "1", "--no-plots", "--out", dir})
}

// TestEstimateLearnersKernelFamily: the refusal of model.family kernel is
// the run's alone: smrl estimate --data fits it in a physical
// environment's model class (pendulum, d = 3, model.target delta, the
// autoregressive graph) and --plot draws the density of s'_0 − s_0.
func TestEstimateLearnersKernelFamily(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(36, 11))
	var b bytes.Buffer
	b.WriteString("s0,s1,s2,a0,s_next0,s_next1,s_next2\n")
	for range 80 {
		th, om, a := 2*math.Pi*rng.Float64(), 2*rng.NormFloat64(), 4*rng.Float64()-2
		om2 := om + 0.15*a + 0.05*rng.NormFloat64()
		th2 := th + 0.05*om2
		fmt.Fprintf(&b, "%v,%v,%v,%v,%v,%v,%v\n", math.Cos(th), math.Sin(th), om, a, math.Cos(th2), math.Sin(th2), om2)
	}
	data := writeFile(t, dir, "pendulum.csv", b.String())
	png := filepath.Join(dir, "kernel.png")
	code, _, errOut := run(t, "estimate", "--config", filepath.Join("..", "..", "configs", "pendulum-bimodal.yaml"), "--data", data,
		"--set", "model.family=[kernel]", "--set", "model.centres=5", "--set", "model.bandwidth=0.5", "--set", "lambda=1",
		"--set", "model.features.dim=20", "--plot", png)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if raw, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(raw, []byte("\x89PNG")) {
		t.Errorf("%s is no PNG (err %v)", png, err)
	}
}
