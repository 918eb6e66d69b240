package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// The damped pendulum of examples/external/damped_pendulum.py as a
// built-in environment (testutil.Damped, the same operations in the same
// order), planning as env.kind external plans (env.ExternalPlanning): its
// runs must equal the external ones byte for byte.
var dampedKind = env.Kind{Part: config.Part{Name: "test-damped",
	Doc:  "a test-only built-in copy of examples/external/damped_pendulum.py",
	Uses: []string{"model", "env.reward.expression"}, Dim: 2},
	Build: newDamped}

func init() { env.Register(dampedKind) }

func newDamped(c *config.Config) (*env.MDP, error) {
	d := testutil.DampedDefaults
	task, spec, err := env.ExternalPlanning(c, 2)
	if err != nil {
		return nil, err
	}
	return &env.MDP{Dim: 2, Task: task, Dynamics: dampedDynamics{&d}, Model: spec,
		// The seed an external environment is reset with: 53 bits of the
		// episode's environment stream (runner/world.go).
		Init: func(rng *rand.Rand, s []float64) { d.Init(rng.Uint64()>>11, s) }}, nil
}

type dampedDynamics struct{ d *testutil.Damped }

func (d dampedDynamics) NewSimulator() env.Simulator { return d }
func (d dampedDynamics) NewMean() env.Simulator      { return d }
func (d dampedDynamics) Step(s, a []float64, _ *rand.Rand, out []float64) {
	d.d.Step(s, a, out)
}

// extConfig is a small run of the damped pendulum: env.kind kind, with
// command as env.external.command.
func extConfig(t *testing.T, kind string, command []string, extra string) string {
	t.Helper()
	cmd := ""
	if kind == "external" {
		q := make([]string, len(command))
		for i, w := range command {
			q[i] = fmt.Sprintf("%q", w)
		}
		cmd = fmt.Sprintf("  external:\n    command: [%s]\n    timeout: 10\n", strings.Join(q, ", "))
	}
	return testutil.WriteYAML(t, fmt.Sprintf(`name: ext
seed: 3
seeds: 2
episodes: 3
lambda: 0.001
agents: [sm, lds, oracle]
env:
  kind: %s
  horizon: 25
  action_space: box
  action_dim: 1
  action_low: [-2]
  action_high: [2]
  reward:
    expression: %q
%smodel:
  family: [gaussian]
  sigma: [0.1]
  target: delta
  lds_features: linear
  features: {kind: rff, dim: 24, length: 1}
planner:
  kind: cem
  tau: 6
  n_rollouts: 1
  rollout: mean
  cem: {population: 12, elites: 3, iterations: 2}
%s`, kind, testutil.DampedReward, cmd, extra))
}

// goServer is the command that serves the damped pendulum from this test
// binary, with fault f (testutil.MaybeServeExternal).
func goServer(t *testing.T, f testutil.ExtFault) []string {
	t.Helper()
	t.Setenv(testutil.ExtServerEnv, f.String())
	return []string{os.Args[0]}
}

// TestExternalMatchesBuiltin: the damped pendulum through the protocol,
// served by the Go test server and by examples/external/damped_pendulum.py
// (skipped without python3 on PATH; on one seed and two episodes, as
// Python answers slower), gives byte-identical episodes.csv and
// transitions.csv to its built-in copy, for sm, lds and the oracle (which
// plans through get_state/set_state), with 1 and 2 workers.
func TestExternalMatchesBuiltin(t *testing.T) {
	base := t.TempDir()
	runTo := func(name, cfg string, more ...string) string {
		out := filepath.Join(base, name)
		mustRun(t, append([]string{"run", "--config", cfg, "--out", out, "--no-plots", "-q", "--save-transitions"}, more...)...)
		for _, f := range []string{"episodes.csv", "transitions.csv"} {
			if n := strings.Count(read(t, filepath.Join(out, f)), "\n"); n < 6 {
				t.Fatalf("%s: %s has %d lines", name, f, n)
			}
		}
		return out
	}
	same := func(name, out, ref string) {
		for _, f := range []string{"episodes.csv", "transitions.csv"} {
			if read(t, filepath.Join(out, f)) != read(t, filepath.Join(ref, f)) {
				t.Errorf("%s: %s differs from the built-in's", name, f)
			}
		}
	}
	ref := runTo("builtin", extConfig(t, "test-damped", nil, ""), "--workers", "1")
	same("go-server", runTo("go-server", extConfig(t, "external", goServer(t, testutil.ExtFault{}), ""), "--workers", "2"), ref)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH: damped_pendulum.py is not compared")
	}
	small := []string{"--workers", "2", "--seeds", "1", "--set", "episodes=2"}
	ref = runTo("builtin-small", extConfig(t, "test-damped", nil, ""), small...)
	same("python", runTo("python", extConfig(t, "external", []string{py, "../../examples/external/damped_pendulum.py"}, ""), small...), ref)
}
