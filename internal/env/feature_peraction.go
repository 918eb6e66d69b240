package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// perActionFeatures are one block [s, 1] per discrete action: phi(s, a) =
// e_a ⊗ [s, 1] (env.features only).
var perActionFeatures = Feature{Name: "per-action", EnvOnly: true,
	Part: func(string) config.Part {
		return config.Part{Doc: "one block [s, 1] per discrete action: phi(s, a) = e_a ⊗ [s, 1]",
			Validate: validatePerAction, SizeKey: "env.actions", PhiDim: perActionDim}
	},
	Build: func(c *config.Config, _ string, ds, da int, _ []float64) (expfam.Features, error) {
		return expfam.PerAction{DS: ds, Actions: group(c.Env.Actions, da)}, nil
	}}

// perActionDim is d_phi of per-action features: one block [s, 1] per
// action of env.actions.
func perActionDim(c *config.Config, _ string, ds, da int) (int, bool) {
	n := len(c.Env.Actions)
	if n == 0 || n%da != 0 {
		return 0, false
	}
	return n / da * (ds + 1), true
}

func validatePerAction(c *config.Config, bad config.Bad) {
	if c.Env.ActionSpace == "box" {
		bad("env.features.kind", "per-action features need a discrete action set, not env.action_space: box")
	}
}
