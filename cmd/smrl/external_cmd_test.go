package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

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
// (skipped without python3 on PATH; on one seed and two episodes of 10
// steps, as Python answers slower), gives byte-identical episodes.csv and
// transitions.csv to its built-in copy, for sm, lds and the oracle (which
// plans through get_state/set_state), with 1 and 2 workers.
func TestExternalMatchesBuiltin(t *testing.T) {
	base := t.TempDir()
	runTo := func(name, cfg string, more ...string) string {
		out := filepath.Join(base, name)
		mustRun(t, append([]string{"run", "--config", cfg, "--out", out, "--no-plots", "-q", "--save-transitions", "--set", fewDraws}, more...)...)
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
	small := []string{"--workers", "2", "--seeds", "1", "--set", "episodes=2", "--set", "env.horizon=10"}
	ref = runTo("builtin-small", extConfig(t, "test-damped", nil, ""), small...)
	same("python", runTo("python", extConfig(t, "external", []string{py, "../../examples/external/damped_pendulum.py"}, ""), small...), ref)
}

// TestExternalFaultKeepsFinishedTrials: a process that misbehaves in the
// middle of the second trial stops the run with exit 2 naming the command,
// the message and the line it answered; the first trial stays in the
// journal, and --resume with a sound process completes the run with the
// files of an uninterrupted one. The oracle without can_restore is refused
// up front.
func TestExternalFaultKeepsFinishedTrials(t *testing.T) {
	base := t.TempDir()
	ref := filepath.Join(base, "ref")
	args := func(out string) []string {
		return []string{"run", "--out", out, "--no-plots", "-q", "--workers", "1", "--seeds", "2", "--set", "agents=[sm]"}
	}
	mustRun(t, append(args(ref), "--config", extConfig(t, "external", goServer(t, testutil.ExtFault{}), ""))...)
	for _, kind := range []string{"nan", "exit"} {
		out := filepath.Join(base, kind)
		// Process 1 reads the spec, 2 serves seed 1, 3 seed 2: it fails
		// at its 30th step, the 5th of the second episode (its output's
		// line 33: spec, reset, 25 steps, reset, 5 steps).
		f := testutil.ExtFault{Kind: kind, Step: 30, Proc: 3, Dir: t.TempDir()}
		code, stdout, stderr := run(t, append(args(out), "--config", extConfig(t, "external", goServer(t, f), ""))...)
		want := []string{"agent sm, seed 1: episode 2 step 5:", "env.external.command [" + os.Args[0] + "]", `{"step": [`}
		if kind == "nan" {
			want = append(want, "(line 33 of its output)", "NaN")
		} else {
			want = append(want, "got no answer: its output ended", "exit status 3")
		}
		wantUsage(t, code, stdout, stderr, want...)
		if n := strings.Count(read(t, filepath.Join(out, "journal.jsonl")), "\n"); n != 1 {
			t.Errorf("%s: the journal holds %d trials, want the first", kind, n)
		}
		mustRun(t, append(args(out), "--resume", "--config", extConfig(t, "external", goServer(t, testutil.ExtFault{}), ""))...)
		if read(t, filepath.Join(out, "episodes.csv")) != read(t, filepath.Join(ref, "episodes.csv")) {
			t.Errorf("%s: the resumed episodes.csv differs from an uninterrupted run's", kind)
		}
	}
	code, stdout, stderr := run(t, "run", "--out", filepath.Join(base, "oracle"), "--no-plots", "-q", "--config", extConfig(t, "external", goServer(t, testutil.ExtFault{NoRestore: true}), ""))
	wantUsage(t, code, stdout, stderr, "agents: oracle plans with the true simulator", `"can_restore": true`)
	noChildren(t)
}

// noChildren fails t if this process has a child left (Linux: its
// threads' /proc children lists), a process of env.kind external that was
// not reaped.
func noChildren(t *testing.T) {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range tasks {
		if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) != "" {
			t.Errorf("child processes left: %s", b)
		}
	}
}

// fakeGym is a Gymnasium-style environment in pure Python (no gymnasium,
// no numpy) that steps damped_pendulum.py's functions, for the test of
// examples/external/smrl_gym.py: its state lives in a MuJoCo-like data
// (qpos, qvel, time) with set_state, behind a TimeLimit-like wrapper that
// counts steps (100); step fail_at raises.
const fakeGym = `import damped_pendulum as dp

class Box:
    def __init__(self, shape, low=None, high=None):
        self.shape, self.low, self.high, self.dtype = shape, low, high, float

class Spec:
    max_episode_steps = 100

class Data:
    qpos, qvel, time = [0.0], [0.0], 0.0

class Pendulum:
    def __init__(self, fail_at):
        self.observation_space = Box((2,))
        self.action_space = Box((1,), [-2.0], [2.0])
        self.data, self.fail_at, self.n = Data(), fail_at, 0
        self.unwrapped = self

    def set_state(self, qpos, qvel):
        self.data.qpos, self.data.qvel = list(qpos), list(qvel)

    def obs(self):
        return [self.data.qpos[0], self.data.qvel[0]]

    def reset(self, seed=None):
        u1, u2 = dp.uniforms(seed)
        self.set_state([dp.INIT_THETA * (2 * u1 - 1)], [dp.INIT_SPEED * (2 * u2 - 1)])
        return self.obs(), {}

    def step(self, a):
        self.n += 1
        if self.n == self.fail_at:
            raise RuntimeError("the fake simulator broke")
        a = float(a[0])
        th, w = self.obs()
        r = dp.reward(th, w, dp.clip(a, dp.MAX_TORQUE))
        th, w = dp.step(th, w, a)
        self.set_state([th], [w])
        self.data.time += dp.DT
        print("a stray print, which must not reach the protocol")
        return (th, w), r, False, False, {}

    def close(self):
        pass

class TimeLimit:
    def __init__(self, env):
        self.env, self._elapsed_steps = env, 0
        self.observation_space, self.action_space = env.observation_space, env.action_space
        self.spec, self.unwrapped = Spec(), env

    def reset(self, seed=None):
        self._elapsed_steps = 0
        return self.env.reset(seed=seed)

    def step(self, a):
        obs, r, term, trunc, info = self.env.step(a)
        self._elapsed_steps += 1
        return obs, r, term, trunc or self._elapsed_steps >= self.spec.max_episode_steps, info

    def close(self):
        self.env.close()

def make(fail_at=0):
    return TimeLimit(Pendulum(fail_at))
`

// TestGymShim runs examples/external/smrl_gym.py on a fake Gymnasium-style
// environment (fakeGym, damped_pendulum.py's functions behind Gymnasium's
// API and a MuJoCo-like state): its spec, resets and steps, and with
// --restore mujoco the oracle's get_state/set_state (the step count of the
// time limit restored with the state), reach smrl byte for byte as the
// built-in copy's, for sm and the oracle; a stray print goes to stderr;
// without --restore (no can_restore in the spec), an exception in step is
// exit 2 quoting it. Skipped without python3 on PATH.
func TestGymShim(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fake_gym.py"), []byte(fakeGym), 0o644); err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Abs("../../examples/external")
	t.Setenv("PYTHONPATH", dir+string(os.PathListSeparator)+examples)
	shim := []string{py, filepath.Join(examples, "smrl_gym.py"), "fake_gym:make"}
	// One episode of 10 steps: the oracle restores the Python state 24 times
	// a step (CEM: 12 candidates, 2 iterations), each a process round trip.
	small := []string{"--no-plots", "-q", "--save-transitions", "--seeds", "1", "--episodes", "1", "--set", "env.horizon=10"}
	for _, tc := range []struct {
		name, agents string
		more         []string
	}{{"oracle", "sm,oracle", []string{"--restore", "mujoco"}}} {
		args := append(slices.Clone(small), "--agents", tc.agents)
		ref := filepath.Join(dir, "builtin-"+tc.name)
		mustRun(t, append([]string{"run", "--config", extConfig(t, "test-damped", nil, ""), "--out", ref}, args...)...)
		out := filepath.Join(dir, "shim-"+tc.name)
		mustRun(t, append([]string{"run", "--config", extConfig(t, "external", append(slices.Clone(shim), tc.more...), ""), "--out", out}, args...)...)
		for _, f := range []string{"episodes.csv", "transitions.csv"} {
			if read(t, filepath.Join(out, f)) != read(t, filepath.Join(ref, f)) {
				t.Errorf("%s: %s differs from the built-in's", tc.name, f)
			}
		}
	}
	broken := append(slices.Clone(shim), "--kwargs", `{"fail_at": 7}`)
	code, stdout, stderr := run(t, append([]string{"run", "--config", extConfig(t, "external", broken, ""), "--out", filepath.Join(dir, "broken"), "--agents", "sm"}, small...)...)
	wantUsage(t, code, stdout, stderr, "episode 1 step 7", "(line 9 of its output)", "the environment reported an error: RuntimeError: the fake simulator broke")
	noChildren(t)
}

// TestExternalInterruptKillsProcess: a run whose process hangs is
// interrupted (SIGINT, --grace 100ms): the trial in flight is abandoned,
// exit 130, and its process is killed and reaped at once rather than left
// for its 60 s timeout.
func TestExternalInterruptKillsProcess(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	cfg := extConfig(t, "external", goServer(t, testutil.ExtFault{Kind: "hang", Step: 5}), "")
	cfg2 := strings.Replace(read(t, cfg), "timeout: 10", "timeout: 60", 1)
	os.WriteFile(cfg, []byte(cfg2), 0o644)
	args := []string{"run", "--config", cfg, "--out", out, "--no-plots", "-q", "--workers", "1", "--grace", "100ms", "--agents", "sm"}
	done := startMain(t, args, out, started)
	time.Sleep(200 * time.Millisecond) // the trial's process is up and hangs
	start := time.Now()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	r := <-done
	if took := time.Since(start); took > 5*time.Second || r.code != ExitInterrupted {
		t.Errorf("exit %d after %v, stderr:\n%s", r.code, took, r.stderr)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
		left := false
		for _, f := range tasks {
			if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) != "" {
				left = true
			}
		}
		if !left {
			break
		}
		if time.Now().After(deadline) {
			noChildren(t)
			break
		}
	}
}
