package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/spf13/pflag"
)

// Every numeric key is bounded to the range the numerics support, and the
// message names the key and says why. Each of these values passed
// validation before and then panicked, ran for hours or failed naming
// another culprit.
func TestNumericBounds(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"env:\n  family: {alpha: 1000}\n", "env.family.alpha: must be <= 100, got 1000: q(x)"},
		{"env:\n  w0: [[1e20, 1]]\n", "env.w0: must lie in [−256, 256], got 1e+20: the sampler tabulates"},
		{"env:\n  family: {kind: gaussian, sigma: 1}\n  w0: [[1e20, 1]]\n", "env.w0: must lie in [−256, 256]"},
		{"env:\n  init_low: -1e20\n  init_high: 1e20\n", "env.init_low: must lie in [−1024, 1024], got -1e+20"},
		{"env:\n  init_low: 0\n  init_high: 2000\n", "env.init_high: must lie in [−1024, 1024], got 2000"},
		{"env:\n  reward: {centers: [.nan, 1]}\n", "env.reward.centers: must lie in [−1024, 1024], got NaN"},
		{"env:\n  reward: {centers: [5000, 1]}\n", "env.reward.centers: must lie in"},
		{"env:\n  actions: [1, -1e9]\n", "env.actions: must lie in [−1024, 1024], got -1e+09"},
		{"env:\n  family: {freq: 1e200}\n", "env.family.freq: must have 0.001 <= |env.family.freq| <= 1000"},
		{"env:\n  family: {freq: 1e-9}\n", "env.family.freq: must have 0.001"},
		{"env:\n  family: {kind: gaussian, sigma: 1e-200}\n", "env.family.sigma: must have 0.001 <= |env.family.sigma| <= 1000"},
		{"env:\n  family: {kind: gaussian, sigma: 1e200}\n", "env.family.sigma: must have"},
		{"lds:\n  sigma: 1e-9\n", "lds.sigma: must have 0.001"},
		{"sm:\n  floor: -1\n", "sm.floor: must lie in [0, 1000] (average transitions; 0: the plain estimator), got -1"},
		{"sm:\n  floor: .nan\n", "sm.floor: must lie in [0, 1000]"},
		{"sm:\n  floor: 1e9\n", "sm.floor: must lie in [0, 1000]"},
		{"env:\n  features: {kind: rff, dim: 3, length: 1e-9}\n  w0: [[1, 1, 1]]\n", "env.features.length: must have 0.001"},
		{"confidence:\n  scale: 1e300\n", "confidence.scale: must be <= 1000, got 1e+300"},
		{"confidence:\n  posterior_scale: 1e300\n", "confidence.posterior_scale: must be <= 1000"},
		{"confidence:\n  delta: 1e-320\n", "confidence.delta: must be >= 1e-300, got 1e-320: β needs log(1/δ)"},
		{"confidence:\n  b_star: 1e300\n", "confidence.b_star: must be <= 1e+06"},
		{"confidence:\n  b_psi: 1e300\n", "confidence.b_psi: must be <= 1e+06"},
		{"confidence:\n  alpha1: 1e-200\n", "confidence.alpha1: must lie in [1e-6, 1e6]"},
		{"lambda: 1e300\n", "lambda: must be <= 1e6"},
		{"lambda: 1e-20\nagents: [sm-ucb]\n", "lambda: must be >= 1e-12 for agents [sm-ucb]"},
		{"env:\n  features: {kind: rff, dim: 10000}\n  w0: [[1]]\n", "env.features.dim: the agents' model has 1 × 1 statistics and d_phi = 10000 features, for which agent sm holds 2e+08 numbers"},
		{"env:\n  kind: cartpole\nplanner:\n  mode: random\nmodel:\n  family: [relu-mog]\n  features: {kind: rff, dim: 3000, length: 1}\n",
			"model.features.dim: the agents' model has 4 × 3 statistics and d_phi = 3000 features, for which agent sm holds 6.48e+08 numbers"},
		{"agents: [mle]\nenv:\n  features: {kind: rff, dim: 4000}\n", "agent mle holds 6.4e+07 numbers"},
		{"env:\n  kind: cartpole\n  cartpole: {x_threshold: 1e300}\nplanner:\n  mode: random\n", "env.cartpole.x_threshold: must lie in [1e-6, 1e6]"},
		{"env:\n  kind: cartpole\n  cartpole: {gravity: 1e300}\nplanner:\n  mode: random\n", "env.cartpole.gravity: must lie in [1e-6, 1e6]"},
		{"env:\n  kind: cartpole\n  cartpole: {noise: next_state, density: none}\nplanner:\n  mode: random\n", "env.cartpole.density: noise next_state needs a density"},
		{"env:\n  kind: cartpole\n  cartpole: {dt: 1.5}\nplanner:\n  mode: random\n", "env.cartpole.dt: must be at most 1"},
		{"env:\n  kind: cartpole\nplanner:\n  mode: random\nmodel:\n  sigma: [1, 2]\n", "model.sigma: 2 scales for 4 state coordinates of cartpole"},
		{"env:\n  kind: cartpole\nplanner:\n  mode: random\nmodel:\n  family: [gaussian, relu]\n", "model.family: 2 families for 4 state coordinates of cartpole"},
		{"env:\n  kind: cartpole\nplanner:\n  mode: random\nmodel:\n  input_scale: [1, 2]\n", "model.input_scale: 2 scales for the 5 inputs (s, a) of cartpole"},
		{"env:\n  kind: cartpole\n  cartpole: {gravity: 1001}\nplanner:\n  mode: random\n", "env.cartpole.gravity: must be at most 1000"},
		{"env:\n  kind: pendulum\n  horizon: 200\n  action_space: box\n  action_low: [-2]\n  action_high: [2]\n  pendulum: {dt: 1e6}\nplanner:\n  kind: mppi\n", "env.pendulum.dt: must be at most 1"},
		{"env:\n  kind: mountain-car\n  horizon: 999\n  action_space: box\n  action_low: [-1]\n  action_high: [1]\n  mountain_car: {goal_position: 1.5}\nplanner:\n  kind: mppi\n", "env.mountain_car.goal_position: must be at most max_position = 0.6"},
		{"env:\n  kind: mountain-car\n  horizon: 999\n  action_space: box\n  action_low: [-1]\n  action_high: [1]\n  mountain_car: {goal_velocity: 1.5}\nplanner:\n  kind: mppi\n", "env.mountain_car.goal_velocity: must be at most max_speed = 0.07"},
		{"env:\n  kind: pendulum\n  horizon: 200\n  action_space: box\n  action_low: [-2]\n  action_high: [2]\nplanner:\n  kind: mppi\nmodel:\n  features: {kind: rff, dim: 10, length: 1e308}\n", "model.features.length: must lie in [1e-3, 1e3]"},
		// env.kind expfam reads model.kink_bandwidth but not the model
		// section: NaN passed and a run failed (exit 1) after writing.
		{"env:\n  family: {kind: relu, dim: 1, sigma: 1}\n  features: {kind: affine}\n  w0: [[0.3, 0.8, 1], [0.2, -1.2, -2.5]]\nmodel:\n  kink: kernel\n  kink_bandwidth: .nan\n", "model.kink_bandwidth: must lie in [0, 10]"},
		{"env:\n  family: {kind: relu, dim: 1, sigma: 1}\n  features: {kind: affine}\n  w0: [[0.3, 0.8, 1], [0.2, -1.2, -2.5]]\nmodel:\n  kink: kernel\n  kink_bandwidth: 1e300\n", "model.kink_bandwidth: must lie in [0, 10]"},
		{"name: \"\"\n", `name: must be a file name`},
		{"confidence: {b_psi: true}\n", `line 1: confidence.b_psi: want auto or a number, got "true"`},
		{"env: {kind: 2024-01-01}\n", `line 1: env.kind: want text (quote it if you mean it: "2024-01-01")`},
		{"planner: {rollout: true}\n", `line 1: planner.rollout: want text`},
		{"model: {family: [2024-01-01]}\n", `model.family: want text`},
		{"name: ../../x\n", `got "../../x": results go to results/<name>/`},
		{"name: a/b\n", `name: must be a file name`},
		{"name: ..\n", `name: must be a file name`},
		{"name: .hidden\n", `name: must be a file name`},
		// The planner's sampled sequences, N × (tau − 1) × d_a numbers.
		{"env:\n  action_space: box\nplanner:\n  kind: cem\n  tau: 10000\n  mode: random\n  cem:\n    population: 100000\n",
			"planner.cem.population: 100000 sampled sequences × (planner.tau − 1 = 9999) steps × env.action_dim = 1 numbers per action are 1e+09 numbers (7.45 GiB) per decision, more than the 256 MiB smrl allows per trial"},
		{"planner:\n  kind: cem\n  tau: 2000\n  cem:\n    population: 20000\n",
			"planner.cem.population: 20000 sampled sequences × (planner.tau − 1 = 1999) steps × 1 number (an index into env.actions) per action are 4e+07 numbers"},
		{"env:\n  action_space: box\nplanner:\n  kind: mppi\n  tau: 5000\n  mppi:\n    samples: 10000\n",
			"planner.mppi.samples: 10000 sampled sequences × (planner.tau − 1 = 4999) steps × env.action_dim = 1 numbers per action are 5e+07 numbers"},
		{"env:\n  action_space: box\n  action_dim: 4000\n  action_low: [" + strings.Repeat("-1, ", 3999) + "-1]\n  action_high: [" + strings.Repeat("1, ", 3999) + "1]\nplanner:\n  tau: 10000\n  mode: random\n",
			"planner.tau: 1 sampled sequence × (planner.tau − 1 = 9999) steps × env.action_dim = 4000 numbers per action are 4e+07 numbers"},
		// cem's coloured noise: (L/2+1)×L tables, O(L²) per draw.
		{"env:\n  action_space: box\nplanner:\n  kind: cem\n  tau: 1002\n  mode: random\n  cem:\n    beta: 2\n",
			"planner.tau: must be <= 1001 with planner.cem.beta = 2 > 0, got 1002: coloured noise"},
	} {
		_, err := Load(Options{Path: write(t, tc.body)})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want it to contain %q", tc.body, err, tc.want)
		}
	}
	// The edges of every range are accepted.
	ok := "name: my_run-2.b+c\nenv:\n  family: {alpha: 100, freq: 1000}\n  init_low: -1024\n  init_high: 1024\n" +
		"  w0: [[256, -256]]\n  reward: {centers: [1024, -1024]}\n  actions: [1024, -1024]\n" +
		"lambda: 1e6\nconfidence:\n  scale: 1000\n  posterior_scale: 1000\n  delta: 1e-300\n  alpha1: 1e-6\n  b_star: 1e6\n"
	if _, err := Load(Options{Path: write(t, ok)}); err != nil {
		t.Errorf("edges of the ranges: %v", err)
	}
	// The planner's edges: exactly MaxTrialFloats sampled numbers
	// (32768 × 1024 × 1), and coloured noise over MaxColouredSteps steps.
	for _, body := range []string{
		"planner:\n  kind: cem\n  tau: 1025\n  cem:\n    population: 32768\n",
		"env:\n  action_space: box\nplanner:\n  kind: mppi\n  tau: 1025\n  mppi:\n    samples: 32768\n",
		"env:\n  action_space: box\nplanner:\n  kind: cem\n  tau: 1001\n  cem:\n    beta: 10\n",
	} {
		if _, err := Load(Options{Path: write(t, body)}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// YAML would silently convert these into their fields; they are refused
// with the key and the line, as the flags refuse them.
func TestNoSilentCoercion(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"episodes: 1.5\n", `line 1: episodes: want a whole number, got "1.5"`},
		{"seeds: 2\nplanner:\n  tau: 2.5\n", `line 3: planner.tau: want a whole number, got "2.5"`},
		{"seed: 18446744073709551616\n", `line 1: seed: want a whole number in [0, 18446744073709551615], got "18446744073709551616"`},
		{"estimate:\n  sweep_n: [100, 2.5e3]\n", `line 2: estimate.sweep_n: want a whole number, got "2.5e3"`},
		{"episodes: 1e3\n", `episodes: want a whole number`},
	} {
		_, err := Load(Options{Path: write(t, tc.body)})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "c.yaml") {
			t.Errorf("%q: err = %v, want it to contain %q", tc.body, err, tc.want)
		}
	}
	c, err := Load(Options{Path: write(t, "seed: 18446744073709551615\nlambda: 1\nenv:\n  init_low: -1\n")})
	if err != nil || c.Seed != 18446744073709551615 || c.Lambda != 1 {
		t.Errorf("whole numbers in range: %v %+v", err, c)
	}
	// Empty sections and lists are fine.
	c, err = Load(Options{Path: write(t, "env:\n  reward:\nestimate:\n  sweep_n:\n")})
	if err != nil || c.Estimate.SweepN != nil {
		t.Errorf("empty section and list: %v %+v", err, c)
	}
}

// A value of the wrong kind is said in words, naming the file, the line and
// the key; yaml's messages named Go types ("cannot unmarshal !!int `-1`
// into uint64").
func TestTypeErrorsInWords(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"seed: -1\n", `c.yaml line 1: seed: want a whole number in [0, 18446744073709551615], got "-1"`},
		{"agents: sm\n", `c.yaml line 1: agents: want a list of agent names, e.g. [sm, lds], got "sm"`},
		{"seeds: 1\nenv: 5\n", `c.yaml line 2: env: want a section: its keys, one per line, got "5"`},
		{"episodes: [1]\n", `c.yaml line 1: episodes: want a single value, got a list`},
		{"env:\n  w0: [1, 2]\n", `c.yaml line 2: env.w0: want a list of lists of numbers, e.g. [[1, 0.5]], got "1" as an entry`},
		{"env:\n  actions: 1\n", `c.yaml line 2: env.actions: want a list of numbers, e.g. [1, 0.5], got "1"`},
		{"env:\n  actions: {a: 1}\n", `c.yaml line 2: env.actions: want a list of numbers, e.g. [1, 0.5], got a mapping`},
		{"confidence:\n  b_psi: [1]\n", `c.yaml line 2: confidence.b_psi: want a single value, got a list`},
		{"planner:\n  kind: {a: 1}\n", `c.yaml line 2: planner.kind: want a single value, got a mapping`},
		{"model:\n  family: relu\n", `c.yaml line 2: model.family: want a list of families, e.g. [gaussian], got "relu"`},
		{"estimate:\n  sweep_n: 100\n", `c.yaml line 2: estimate.sweep_n: want a list of whole numbers, e.g. [100, 1000], got "100"`},
		{"hello\n", `c.yaml line 1: want config keys, one per line (KEY: VALUE), got "hello"`},
		{"[1, 2]\n", `c.yaml line 1: want config keys, one per line (KEY: VALUE), got a list`},
	} {
		_, err := Load(Options{Path: write(t, tc.body)})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want it to contain %q", tc.body, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "unmarshal") || strings.Contains(err.Error(), "int64") || strings.Contains(err.Error(), "[]")) {
			t.Errorf("%q: err = %v names Go types", tc.body, err)
		}
	}
	// The fallback for what checkNode does not catch.
	for msg, want := range map[string]string{
		"line 3: cannot unmarshal !!int `-1` into uint64":   `line 3: want a whole number >= 0, got "-1"`,
		"line 1: cannot unmarshal !!str `sm` into []string": `line 1: want a list, got "sm"`,
		"cannot unmarshal !!seq into config.Auto":           "want a single value, got a list",
		"cannot unmarshal !!map into config.Env":            "want a section: its keys, one per line, got a mapping",
		"cannot unmarshal !!str `x` into float64":           `want a number, got "x"`,
	} {
		if got := plainTypeError(msg); got != want {
			t.Errorf("plainTypeError(%q) = %q, want %q", msg, got, want)
		}
	}
}

// Environment variables: lists are typed (a bad entry names the variable),
// nested lists are YAML flow, and a variable that is no key is reported
// with the closest key (but not the SMRL_* variables smrl reads itself).
func TestEnvironment(t *testing.T) {
	c, err := Load(Options{Environ: []string{"SMRL_ENV_W0=[[1, -1]]", "SMRL_ENV_ACTIONS=1, -1", "SMRL_ESTIMATE_SWEEP_N=10,20"}})
	if err != nil || !reflect.DeepEqual(c.Env.W0, [][]float64{{1, -1}}) || !reflect.DeepEqual(c.Env.Actions, []float64{1, -1}) ||
		!reflect.DeepEqual(c.Estimate.SweepN, []int{10, 20}) {
		t.Fatalf("typed lists: %v %+v", err, c)
	}
	for _, tc := range []struct{ kv, want string }{
		{"SMRL_ENV_W0=abc", `SMRL_ENV_W0="abc": env.w0 must be a list of lists`},
		{"SMRL_ENV_ACTIONS=1,x", `SMRL_ENV_ACTIONS="1,x": env.actions entry "x": must be a number`},
		{"SMRL_ESTIMATE_SWEEP_N=10,2.5", `entry "2.5": must be an integer`},
		{"SMRL_ENV_W0=[[1, x]]", `SMRL_ENV_W0="[[1, x]]": env.w0 must be a list such as [[1, 0.5]]: want a number, got "x"`},
		{"SMRL_ENV_W0=[1, 2]", `env.w0 must be a list such as [[1, 0.5]]: want a list of lists of numbers, e.g. [[1, 0.5]], got "1" as an entry`},
		// Text after a flow list is refused, not dropped.
		{"SMRL_ENV_W0=[[1,1]]junk", `SMRL_ENV_W0="[[1,1]]junk": env.w0 must be one list such as [[1, 0.5]], with nothing after its closing bracket`},
		{"SMRL_ENV_W0=[[1,1]];[[2,2]]", `SMRL_ENV_W0="[[1,1]];[[2,2]]": env.w0 must be one list`},
		{"SMRL_ENV_ACTIONS=[1,-1]]", `SMRL_ENV_ACTIONS="[1,-1]]": env.actions must be one list such as [1, 0.5], with nothing after`},
		{"SMRL_ENV_ACTIONS=[1,-1] [2]", `env.actions must be one list`},
		{"SMRL_AGENTS=[sm]\n---\n[lds]", `agents must be one list such as [a, b]`},
	} {
		_, err := Load(Options{Environ: []string{tc.kv}})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "embedded defaults") {
			t.Errorf("%s: err = %v, want it to contain %q", tc.kv, err, tc.want)
		}
	}
	// A default made invalid by a variable is not blamed on the defaults.
	_, err = Load(Options{Environ: []string{"SMRL_ENV_FAMILY_DIM=2"}})
	if err == nil || !strings.Contains(err.Error(), "env.w0 keeps its embedded default") {
		t.Errorf("combination: %v", err)
	}
	// A check of several keys reported on a default one names where the
	// others it mentions were set.
	mc := filepath.Join(t.TempDir(), "mc.yaml")
	if err := os.WriteFile(mc, []byte("env:\n  kind: mountain-car\n  horizon: 999\n  action_space: box\n  action_low: [-1]\n  action_high: [1]\nplanner:\n  kind: mppi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(Options{Path: mc, Environ: []string{"SMRL_ENV_MOUNTAIN_CAR_INIT_HIGH=-1"}})
	if err == nil || !strings.HasPrefix(err.Error(), "SMRL_ENV_MOUNTAIN_CAR_INIT_HIGH: env.mountain_car.init_low: want") {
		t.Errorf("several keys, one set by a variable: %v", err)
	}
	var warnings []string
	warn := func(m string) { warnings = append(warnings, m) }
	env := []string{"SMRL_EPISODS=3", "SMRL_SHARD_COUNT=2", "SMRL_REPRODUCE=1", "SMRL_PLANER_TAU=3", "SMRL_NOSIMD=1", "SMRL_LONG=1", "SMRL_DOCS=1"}
	if _, err := Load(Options{Environ: env, Warn: warn}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"warning: SMRL_EPISODS is not a config key and is ignored; did you mean SMRL_EPISODES?",
		"warning: SMRL_PLANER_TAU is not a config key and is ignored; did you mean SMRL_PLANNER_TAU?",
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

// A flag overriding the agents that a file (or SMRL_AGENTS) lists says so.
func TestAgentsOverrideNote(t *testing.T) {
	p := write(t, "agents: [sm, oracle]\n")
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.StringSlice("agents", nil, "")
	fs.Parse([]string{"--agents", "lds,oracle"})
	var notes []string
	c, err := Load(Options{Path: p, Flags: map[string]*pflag.Flag{"agents": fs.Lookup("agents")}, Warn: func(m string) { notes = append(notes, m) }})
	if err != nil || !reflect.DeepEqual(c.Agents, []string{"lds", "oracle"}) {
		t.Fatalf("%v %v", err, c)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "--agents lds,oracle overrides agents") || !strings.Contains(notes[0], p) {
		t.Errorf("notes %q", notes)
	}
	// No note when nothing but the defaults is overridden.
	notes = nil
	if _, err := Load(Options{Flags: map[string]*pflag.Flag{"agents": fs.Lookup("agents")}, Warn: func(m string) { notes = append(notes, m) }}); err != nil || len(notes) != 0 {
		t.Errorf("override of the defaults: %v, notes %q", err, notes)
	}
}

// smrl estimate runs no agent: a config whose agents need lambda > 0 is
// still a valid config for it.
func TestIgnoreAgents(t *testing.T) {
	p := write(t, "agents: [sm-ucb]\nlambda: 0\n")
	if _, err := Load(Options{Path: p}); err == nil {
		t.Fatal("lambda 0 with sm-ucb accepted for running agents")
	}
	if _, err := Load(Options{Path: p, IgnoreAgents: true}); err != nil {
		t.Errorf("IgnoreAgents: %v", err)
	}
	// Everything else is still checked.
	if _, err := Load(Options{Path: write(t, "agents: [bogus]\nepisodes: 0\n"), IgnoreAgents: true}); err == nil || !strings.Contains(err.Error(), "episodes") {
		t.Errorf("IgnoreAgents skipped the other checks: %v", err)
	}
}
