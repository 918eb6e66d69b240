package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// kernelLearner is examples/kernel/pendulum-kernel-learner.yaml.
var kernelLearner = filepath.Join("..", "..", "examples", "kernel", "pendulum-kernel-learner.yaml")

// kernelSmall are the test sizes of that config: episodes of 40 steps,
// 20 features, 6 centres and a fixed bandwidth (no cross-validation),
// MPPI with 8 sequences of 6 torques.
var kernelSmall = []string{"--set", "env.horizon=40", "--set", "model.features.dim=20", "--set", "model.centres=6",
	"--set", "model.bandwidth=0.1", "--set", "lambda=100", "--set", "planner.mppi.samples=8", "--set", "planner.tau=6", "--no-plots"}

// TestRunKernelFamilyWorkers: smrl run with model.family kernel and
// agents [sm, oracle] (the example config at 2 seeds × 2 episodes of 40
// steps: the centres are drawn at the first refit, n = 40, and again at
// the second, n = 80 = 2·40) completes, writes the sm rows and no W
// columns in w.csv (stats.save_w: the bound family's Ŵ is not the model
// class's W), and the same
// episodes.csv and summary.csv, byte for byte, with --workers 1 and 2.
func TestRunKernelFamilyWorkers(t *testing.T) {
	files, dirs := sameFilesByWorkers(t, append([]string{"run", "--config", kernelLearner, "--seeds", "2", "--episodes", "2", "--set", "stats.save_w=true"}, kernelSmall...),
		"episodes.csv", "summary.csv")
	dir := dirs[0]
	ep := string(files[0])
	if n := strings.Count(ep, "\nsm,"); n != 4 {
		t.Errorf("episodes.csv has %d sm rows, want 4:\n%s", n, ep)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "w.csv")); err != nil || bytes.Contains(b, []byte("w_0_0")) {
		t.Errorf("w.csv (stats.save_w) holds W columns for the bound kernel family, or is missing (err %v):\n%.300s", err, b)
	}
}

// sameFilesByWorkers runs smrl with args, --workers 1 and then 2, each
// into a fresh --out directory, and fails unless each named file of the
// two runs is the same byte for byte; it returns the first run's files
// and both directories.
func sameFilesByWorkers(t *testing.T, args []string, names ...string) ([][]byte, [2]string) {
	t.Helper()
	var files [2][][]byte
	var dirs [2]string
	for i, w := range []string{"1", "2"} {
		dirs[i] = t.TempDir()
		code, _, errOut := run(t, append(slices.Clone(args), "--workers", w, "--out", dirs[i])...)
		if code != ExitOK {
			t.Fatalf("--workers %s: exit %d: %s", w, code, errOut)
		}
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dirs[i], name))
			if err != nil {
				t.Fatal(err)
			}
			files[i] = append(files[i], b)
		}
	}
	for j, name := range names {
		if !bytes.Equal(files[0][j], files[1][j]) {
			t.Errorf("%s differs between --workers 1 and 2", name)
		}
	}
	return files[0], dirs
}

// TestRunKernelFamilyRefusals: what the sm agent cannot do with the
// data-bound kernel family is exit 2 at validation, naming the key,
// before the results directory exists: another learner (lds, sm-ucb:
// model.family, naming the agent), the joint graph of d = 3
// (model.graph), standard errors (stats.save_se), a model file
// (--save-models, naming the agent).
func TestRunKernelFamilyRefusals(t *testing.T) {
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--agents", "lds,oracle"}, "model.family: kernel is bound to the data at each refit, which agent lds cannot do"},
		{[]string{"--agents", "sm,sm-ucb"}, "agent sm-ucb cannot do (of the learners, sm can)"},
		{[]string{"--set", "model.graph=joint"}, "model.graph: joint with 3 state coordinates"},
		{[]string{"--set", "stats.save_se=true"}, "stats.save_se: the kernel family"},
		{[]string{"--save-models"}, "--save-models: agent sm: its model of model.family kernel"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		args := append([]string{"run", "--config", kernelLearner, "--seeds", "1", "--episodes", "1", "--out", dir}, kernelSmall...)
		refusedBeforeDir(t, dir, c.want, append(args, c.extra...))
	}
	// env.kind lq fixes d only when it is built (from env.lq.a): the joint
	// graph of d = 2 is refused by the built agent, still before the
	// directory exists.
	dir := filepath.Join(t.TempDir(), "out")
	refusedBeforeDir(t, dir, "agent sm: model.graph: joint with 2 state coordinates", []string{"run", "--config", "../../configs/lq.yaml", "--out", dir,
		"--set", "model.family=[kernel]", "--set", "model.centres=10", "--set", "model.graph=joint", "--set", "agents=[sm]",
		"--set", "env.lq.a=[[1,0],[0,1]]", "--set", "env.lq.b=[[1],[0]]", "--set", "env.lq.q=[[1,0],[0,1]]"})
}

// refusedBeforeDir runs args and requires exit 2 with want on stderr and
// no directory dir.
func refusedBeforeDir(t *testing.T, dir, want string, args []string) {
	t.Helper()
	code, _, errOut := run(t, args...)
	if code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", args, code, errOut, ExitUsage, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%v: %s exists after the refusal (err %v)", args, dir, err)
	}
}
