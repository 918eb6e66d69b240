//go:build mujoco

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMuJoCoTagged: a binary built with -tags mujoco lists the MuJoCo
// tasks as runnable and runs one end to end: the oracle keeps
// InvertedPendulum-v4's pole up for a 30-step episode (return 30), twice
// with the same bytes for one and two workers.
func TestMuJoCoTagged(t *testing.T) {
	_, stdout, _ := run(t, "list", "envs")
	if !strings.Contains(stdout, "HalfCheetah-v4") || strings.Contains(stdout, "needs a build with -tags mujoco") {
		t.Errorf("smrl list envs of a tagged binary:\n%s", stdout)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ip.yaml")
	if err := os.WriteFile(cfg, []byte(`env:
  kind: InvertedPendulum-v4
  horizon: 30
agents: [oracle]
seeds: 2
episodes: 1
planner:
  kind: cem
  tau: 8
  rollout: mean
  n_rollouts: 1
  cem: {population: 16, elites: 4, iterations: 2, init_std: 0.3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var csv [2][]byte
	for i, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "out"+w)
		code, _, stderr := run(t, "run", "--config", cfg, "--out", out, "--workers", w, "--no-plots")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "episodes.csv"))
		if err != nil {
			t.Fatal(err)
		}
		csv[i] = b
	}
	if string(csv[0]) != string(csv[1]) {
		t.Errorf("episodes.csv differs between 1 and 2 workers:\n%s\n%s", csv[0], csv[1])
	}
	for _, line := range strings.Split(strings.TrimSpace(string(csv[0])), "\n")[1:] {
		if f := strings.Split(line, ","); f[3] != "30" {
			t.Errorf("the oracle's episode %s: return %s, want 30", f[2], f[3])
		}
	}
}
