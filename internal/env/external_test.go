package env

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestMain lets this test binary serve the damped pendulum over the
// protocol of env.kind external (testutil.MaybeServeExternal), so that the
// tests of the protocol need only Go.
func TestMain(m *testing.M) {
	testutil.MaybeServeExternal()
	os.Exit(m.Run())
}

// extYAML is a config of env.kind external running command, with extra
// keys appended.
func extYAML(command []string, timeout float64, extra string) string {
	q := make([]string, len(command))
	for i, w := range command {
		q[i] = fmt.Sprintf("%q", w)
	}
	return fmt.Sprintf(`agents: [sm, oracle]
env:
  kind: external
  action_space: box
  action_low: [-2]
  action_high: [2]
  reward: {expression: %q}
  external: {command: [%s], timeout: %v}
model: {sigma: [0.1]}
planner: {kind: cem}
%s`, testutil.DampedReward, strings.Join(q, ", "), timeout, extra)
}

// serverMDP builds the MDP of the Go test server with fault f.
func serverMDP(t testing.TB, f testutil.ExtFault, timeout float64, extra string) (*MDP, error) {
	t.Helper()
	t.Setenv(testutil.ExtServerEnv, f.String())
	c, err := testutil.LoadYAML(t, extYAML([]string{os.Args[0]}, timeout, extra))
	if err != nil {
		t.Fatal(err)
	}
	return New(c)
}

// TestExternalSession checks a session against testutil.Damped, computed
// here: the spec (d_s, the box, the horizon), the first state of a seed,
// and the states and rewards of steps, bit for bit (floats written with
// strconv's 'g', −1 and read back exactly); the oracle's rollouts through
// get_state/set_state leave the real episode where it was.
func TestExternalSession(t *testing.T) {
	mdp, err := serverMDP(t, testutil.ExtFault{}, 10, "")
	if err != nil {
		t.Fatal(err)
	}
	d := testutil.DampedDefaults
	if mdp.Dim != 2 || mdp.Horizon != d.Horizon || mdp.Box == nil || mdp.Box.Low[0] != -2 || mdp.Box.High[0] != 2 || mdp.Live == nil {
		t.Fatalf("MDP: d_s %d, H %d, box %v, live %v", mdp.Dim, mdp.Horizon, mdp.Box, mdp.Live)
	}
	s, err := mdp.Live.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sim := s.Dynamics().NewSimulator()
	got, want, rollout := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	const seed = 1<<53 - 12345
	if err := s.Reset(seed, got); err != nil {
		t.Fatal(err)
	}
	d.Init(seed, want)
	sameBitsT(t, "s_1", got, want)
	rng := rand.New(rand.NewPCG(1, 2))
	for h := range 40 {
		a := []float64{4*rng.Float64() - 2}
		// A rollout of three steps from the real state, twice: the second
		// restores the real state first, and must repeat the first.
		var first []float64
		for range 2 {
			x := append([]float64(nil), got...)
			for range 3 {
				sim.Step(x, []float64{1.5}, nil, rollout)
				copy(x, rollout)
			}
			if first != nil {
				sameBitsT(t, "repeated rollout", x, first)
			}
			first = x
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		wantR := d.Reward(want, a)
		d.Step(want, a, want)
		r, term, trunc, err := s.Step(a, got)
		if err != nil {
			t.Fatal(err)
		}
		sameBitsT(t, fmt.Sprintf("step %d", h+1), append(got, r), append(append([]float64(nil), want...), wantR))
		if term || trunc {
			t.Fatalf("step %d: terminated %v, truncated %v", h+1, term, trunc)
		}
	}
}

// TestExternalFaults: a process that answers malformed JSON, a short
// observation, a NaN reward or an error, exits or hangs mid-episode is
// invalid input naming the command, the message and the line it answered
// (or how it ended), and is reaped.
func TestExternalFaults(t *testing.T) {
	cases := []struct {
		kind string
		want []string
	}{
		{"malformed", []string{"line 5", "not a JSON object"}},
		{"short", []string{"line 5", `"obs" has 1 numbers, the spec's obs_dim is 2`}},
		{"noobs", []string{"line 5", `it has no "obs"`}},
		{"nan", []string{"line 5", "NaN or Infinity"}},
		{"error", []string{"line 5", "the simulator diverged", "reported an error"}},
		{"exit", []string{"got no answer: its output ended", "exit status 3", "exiting mid-episode as asked"}},
		{"hang", []string{"no answer within env.external.timeout = 300ms", "killed"}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			// The agents are learners: no get_state, so the third step is
			// line 5 (spec, reset, step, step, step).
			mdp, err := serverMDP(t, testutil.ExtFault{Kind: tc.kind, Step: 3}, 0.3, "")
			if err != nil {
				t.Fatal(err)
			}
			s, err := mdp.Live.Open(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			obs := make([]float64, 2)
			if err := s.Reset(7, obs); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			for range 3 {
				if _, _, _, err = s.Step([]float64{0.25}, obs); err != nil {
					break
				}
			}
			if tc.kind == "hang" && time.Since(t0) > 3*time.Second {
				t.Errorf("the hung process was waited on for %v", time.Since(t0))
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Fatalf("error %v, want invalid input", err)
			}
			for _, w := range append(tc.want, "env.external.command ["+os.Args[0]+"]", `{"step": [0.25]}`) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			// Every later message fails alike, and Close reaps the process.
			if _, _, _, err2 := s.Step([]float64{0.25}, obs); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("after the failure: %v", err2)
			}
			s.Close()
			if ps := s.(*extSession).p.cmd.ProcessState; ps == nil {
				t.Error("the process was not reaped")
			}
		})
	}
}

// TestExternalSpecRefused: a spec that is not the protocol's, a box that
// is not the config's, and the oracle without can_restore are invalid
// input naming the key or the command.
func TestExternalSpecRefused(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	sh := func(line string) []string {
		return []string{"sh", "-c", "printf '%s\\n' '" + line + "'; cat >/dev/null"}
	}
	cases := []struct {
		command []string
		extra   string
		want    []string
	}{
		{sh(`{"obs_dim": 0, "action_dim": 1, "action_low": [-2], "action_high": [2], "horizon": 10}`), "",
			[]string{`to {"spec": {}} it answered (line 1 of its output)`, `"obs_dim" must be an integer`}},
		{sh(`{"obs_dim": 2, "action_dim": 1, "action_low": [-2], "action_high": [2]}`), "", []string{`"horizon" must be`}},
		{sh(`{"obs_dim": 2, "actions": [[1], [-1]], "action_dim": 1, "horizon": 10}`), "", []string{"not both"}},
		{sh(`{"obs_dim": 2, "action_dim": 1, "action_low": [-1], "action_high": [1], "horizon": 10}`), "agents: [sm]\n",
			[]string{"env.action_low:", "declares the box [[-1], [1]]"}},
		{sh(`{"obs_dim": 2, "action_dim": 1, "action_low": [-2], "action_high": [2], "horizon": 10}`), "",
			[]string{"agents: oracle plans with the true simulator", `"can_restore": true`}},
		{sh(`{"obs_dim": 2, "action_dim": 1, "action_low": [-2], "action_high": [2], "horizon": 10}`), "agents: [sm]\n#reward s2\n",
			[]string{"env.reward.expression"}},
		{[]string{"/nonexistent/simulator"}, "", []string{"env.external.command [/nonexistent/simulator]: cannot start"}},
		{[]string{"sh", "-c", "echo oops >&2; exit 4"}, "", []string{"got no answer", "exit status 4", "oops"}},
		// Output closed, the process alive: killed after the timeout.
		{[]string{"sh", "-c", "exec >&-; sleep 30"}, "#timeout", []string{"got no answer: its output ended", "signal: killed"}},
	}
	for _, tc := range cases {
		timeout := 5.0
		if tc.extra == "#timeout" {
			timeout, tc.extra = 0.3, ""
		}
		y := extYAML(tc.command, timeout, "")
		if tc.extra != "" {
			y = strings.Replace(y, "agents: [sm, oracle]\n", "", 1)
			if strings.Contains(tc.extra, "#reward s2") { // a variable beyond d_s = 2
				y = strings.Replace(y, fmt.Sprintf("%q", testutil.DampedReward), "s2", 1)
			}
			y += tc.extra
			if !strings.Contains(tc.extra, "agents") {
				y += "agents: [sm, oracle]\n"
			}
		}
		c, err := testutil.LoadYAML(t, y)
		if err != nil {
			t.Fatalf("%v: %v", tc.command, err)
		}
		_, err = New(c)
		if !errors.Is(err, errs.ErrInvalidInput) {
			t.Fatalf("%v: error %v, want invalid input", tc.command, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error does not say %q:\n%v", tc.command, w, err)
			}
		}
	}
}

// TestExternalConfigRefused: env.kind external needs a command, a timeout,
// model.sigma and env.reward.expression, refused at load time naming the
// key (no process is started).
func TestExternalConfigRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, key string }{
		{"env: {kind: external, reward: {expression: s0}}\nmodel: {sigma: [1]}\n", "env.external.command"},
		{"env: {kind: external, reward: {expression: s0}, external: {command: [x], timeout: 0}}\nmodel: {sigma: [1]}\n", "env.external.timeout"},
		{"env: {kind: external, external: {command: [x]}}\nmodel: {sigma: [1]}\n", "env.reward.expression"},
		{"env: {kind: external, reward: {expression: s0}, external: {command: [x]}}\n", "model.sigma"},
	} {
		_, err := testutil.LoadYAML(t, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.key) || !errors.Is(err, errs.ErrInvalidInput) {
			t.Errorf("%s: error %v, want one naming %s", tc.yaml, err, tc.key)
		}
	}
}

// BenchmarkExternalStep measures a step through the protocol (send the
// action, read and check the answer): ns/op is the protocol's overhead per
// environment step, the Go test server's own work being a few ns. With
// python3 on PATH the same against examples/external/damped_pendulum.py.
func BenchmarkExternalStep(b *testing.B) {
	bench := func(b *testing.B, command []string) {
		c, err := testutil.LoadYAML(b, strings.Replace(extYAML(command, 10, ""), "[sm, oracle]", "[sm]", 1))
		if err != nil {
			b.Fatal(err)
		}
		mdp, err := New(c)
		if err != nil {
			b.Fatal(err)
		}
		s, err := mdp.Live.Open(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		obs, a := make([]float64, 2), []float64{0.5}
		if err := s.Reset(1, obs); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			a[0] = math.Sin(float64(i))
			if _, _, _, err := s.Step(a, obs); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("go-server", func(b *testing.B) {
		b.Setenv(testutil.ExtServerEnv, testutil.ExtFault{}.String())
		bench(b, []string{os.Args[0]})
	})
	b.Run("python", func(b *testing.B) {
		py, err := exec.LookPath("python3")
		if err != nil {
			b.Skip("no python3 on PATH")
		}
		bench(b, []string{py, "../../examples/external/damped_pendulum.py"})
	})
}

// sameBitsT fails t naming what when got and want differ in a bit.
func sameBitsT(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if !testutil.SameBits(got, want) {
		t.Errorf("%s: got %v, want %v (bit for bit)", what, got, want)
	}
}

// TestExternalKilledWithContext: the end of a session's context (an
// abandoned trial) kills its process at once, even one that hangs, and
// Close reaps it.
func TestExternalKilledWithContext(t *testing.T) {
	mdp, err := serverMDP(t, testutil.ExtFault{Kind: "hang", Step: 1}, 60, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := mdp.Live.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]float64, 2)
	if err := s.Reset(1, obs); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	t0 := time.Now()
	_, _, _, err = s.Step([]float64{0}, obs)
	if err == nil || !strings.Contains(err.Error(), "got no answer: its output ended") || time.Since(t0) > 5*time.Second {
		t.Errorf("after %v: %v", time.Since(t0), err)
	}
	s.Close()
	if s.(*extSession).p.cmd.ProcessState == nil {
		t.Error("the process was not reaped")
	}
}

// TestExternalDiscreteSpec: a spec of discrete actions builds an MDP with
// that set when the config says the same, and its horizon unless the
// config sets env.horizon.
func TestExternalDiscreteSpec(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	spec := `{"obs_dim": 3, "actions": [[1, 0], [0, 1], [-1, -1]], "horizon": 17}`
	command := fmt.Sprintf("[sh, -c, \"printf '%%s\\\\n' '%s'; cat >/dev/null\"]", strings.ReplaceAll(spec, `"`, `\"`))
	for _, tc := range []struct {
		horizon string
		want    int
	}{{"", 17}, {"  horizon: 40\n", 40}} {
		y := fmt.Sprintf(`agents: [sm, lds]
env:
  kind: external
%s  action_space: discrete
  action_dim: 2
  actions: [1, 0, 0, 1, -1, -1]
  reward: {expression: "s2 - a0"}
  external: {command: %s, timeout: 5}
model: {sigma: [0.5]}
`, tc.horizon, command)
		c, err := testutil.LoadYAML(t, y)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		if m.Dim != 3 || m.Box != nil || len(m.Actions) != 3 || !slices.Equal(m.Actions[2], []float64{-1, -1}) || m.Horizon != tc.want {
			t.Errorf("d_s %d, box %v, actions %v, horizon %d (want %d)", m.Dim, m.Box, m.Actions, m.Horizon, tc.want)
		}
		if r := m.Task.Reward([]float64{0, 0, 2}, []float64{1, 0}); r != 1 {
			t.Errorf("reward %v, want 1", r)
		}
	}
}
