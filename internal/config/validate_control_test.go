package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

const lqBox = "env:\n  kind: lq\n  action_space: box\n  lq:\n"

// Bad values of the keys of issue 23 (planner.tie_break of part rss,
// planner.cem.keep_elites, planner.mppi.iterations, the env parts lq and
// acrobot, the agent part lqr): one error naming the key and the file,
// wrapping ErrInvalidInput.
func TestControlKeysInvalid(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"tie break", "planner:\n  mode: random\n  tie_break: last\n", `planner.tie_break: unknown tie-break "last"`},
		{"tie break constant", "planner:\n  tie_break: vote\n", `planner.tie_break: "vote" applies to planner.kind rss in mode random`},
		{"tie break box", "env:\n  action_space: box\nplanner:\n  mode: random\n  tie_break: mean\n", `planner.tie_break: "mean" applies to`},
		{"mppi iterations", "env:\n  action_space: box\nplanner:\n  kind: mppi\n  mppi:\n    iterations: 0\n", "planner.mppi.iterations: must lie in [1, 1000], got 0"},
		{"keep elites discrete", "planner:\n  kind: cem\n  cem:\n    keep_elites: true\n", "planner.cem.keep_elites: applies to box actions"},
		{"lqr elsewhere", "agents: [lqr]\n", "agents: lqr plays the Riccati controller of env.lq and needs env.kind: lq, got expfam"},
		{"lq discrete", "env:\n  kind: lq\n", "env.action_space: env.kind lq needs box actions"},
		{"lq a shape", lqBox + "    a: [[1, 0]]\n", "env.lq.a: row 0 must have 1 entries, got 2"},
		{"lq b rows", lqBox + "    b: [[1], [1]]\n", "env.lq.b: must have 1 rows, got 2"},
		{"lq q negative", lqBox + "    q: [[-1]]\n", "env.lq.q: must be positive semidefinite"},
		{"lq r singular", lqBox + "    r: [[0]]\n", "env.lq.r: must be positive definite"},
		{"lq q asymmetric", lqBox + "    a: [[1, 0], [0, 1]]\n    b: [[1], [0]]\n    q: [[1, 0.5], [0, 1]]\n", "env.lq.q: must be symmetric"},
		{"lq q indefinite", lqBox + "    a: [[1, 0], [0, 1]]\n    b: [[1], [0]]\n    q: [[1, 2], [2, 1]]\n", "env.lq.q: must be positive semidefinite"},
		{"lq nan", lqBox + "    a: [[.nan]]\n", "env.lq.a: must hold finite numbers"},
		{"lq noise", lqBox + "    noise_std: -1\n", "env.lq.noise_std: must lie in [0, 1000], got -1"},
		{"acrobot dt", "env:\n  kind: acrobot\n  acrobot:\n    dt: 0\n", "env.acrobot.dt: must lie in (0, 1], got 0"},
		{"acrobot init", "env:\n  kind: acrobot\n  acrobot:\n    init: 4\n", "env.acrobot.init: must lie in [0, π], got 4"},
		{"acrobot potential", "env:\n  kind: acrobot\n  acrobot:\n    height_potential: -1\n", "env.acrobot.height_potential: must lie in [0, 1e6], got -1"},
		{"tie break of cem", "planner:\n  kind: cem\n  tie_break: vote\n", "planner.tie_break: is set but planner.kind is cem"},
		{"mppi iterations of cem", "planner:\n  kind: cem\n  mppi:\n    iterations: 2\n", "planner.mppi.iterations: is set but planner.kind is cem"},
		{"lq keys elsewhere", "env:\n  lq:\n    noise_std: 1\n", "env.lq.noise_std: is set but env.kind is expfam"},
		{"acrobot actions", "env:\n  kind: acrobot\n  action_dim: 2\n  actions: [1, 1]\n", "env.action_dim: acrobot has one action"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(Options{Path: write(t, tc.body)})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "c.yaml") {
				t.Errorf("error %q, want it to wrap ErrInvalidInput, name the file and contain %q", err, tc.want)
			}
		})
	}
	// Valid: a semidefinite Q with a zero pivot, the rules on a discrete set.
	for _, body := range []string{
		lqBox + "    a: [[1, 0], [0, 1]]\n    b: [[1], [0]]\n    q: [[0, 0], [0, 1]]\nplanner:\n  mode: random\n",
		"planner:\n  mode: random\n  tie_break: vote\n",
		"planner:\n  mode: random\n  tie_break: mean\n",
		"env:\n  kind: acrobot\n  actions: [-1, 0, 1]\nplanner:\n  mode: random\n",
		"env:\n  kind: Acrobot-v1\nplanner:\n  mode: random\n",
	} {
		if _, err := Load(Options{Path: write(t, body)}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}
