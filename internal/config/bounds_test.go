package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
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
