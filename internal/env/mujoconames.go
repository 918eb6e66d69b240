package env

import "github.com/smrl-dev/smrl/internal/config"

// MuJoCoKind is an environment kind of package env/mujoco, which links the
// MuJoCo library through cgo and so builds only with -tags mujoco: its
// name, the Gymnasium id that selects it (with Gymnasium's horizon and its
// box of actions), and the sizes of its observation and action. An
// untagged binary registers these by name only, as needing that build
// (mujocostub.go); package mujoco registers each with its model, and its
// tests check the two agree.
type MuJoCoKind struct {
	Name, Alias string
	Dim         int     // the observation's length
	ActionDim   int     // the actuators
	CtrlRange   float64 // each action in [−CtrlRange, CtrlRange]
	Horizon     int     // Gymnasium's max_episode_steps
}

// MuJoCoKinds are the MuJoCo tasks (docs/mujoco.md).
var MuJoCoKinds = []MuJoCoKind{
	{Name: "inverted-pendulum", Alias: "InvertedPendulum-v4", Dim: 4, ActionDim: 1, CtrlRange: 3, Horizon: 1000},
	{Name: "reacher", Alias: "Reacher-v4", Dim: 11, ActionDim: 2, CtrlRange: 1, Horizon: 50},
	{Name: "half-cheetah", Alias: "HalfCheetah-v4", Dim: 17, ActionDim: 6, CtrlRange: 1, Horizon: 1000},
	{Name: "hopper", Alias: "Hopper-v4", Dim: 11, ActionDim: 3, CtrlRange: 1, Horizon: 1000},
}

// GymAlias is the kind's Gymnasium id as a config alias: it sets the
// horizon and the box of actions unless the config sets them.
func (k MuJoCoKind) GymAlias() config.Alias {
	low, high := make([]float64, k.ActionDim), make([]float64, k.ActionDim)
	for i := range low {
		low[i], high[i] = -k.CtrlRange, k.CtrlRange
	}
	return config.Alias{Name: k.Alias, Set: map[string]any{"env.horizon": k.Horizon, "env.action_space": "box",
		"env.action_dim": k.ActionDim, "env.action_low": low, "env.action_high": high}}
}

// MuJoCoBuildHint says how to build a binary with the MuJoCo tasks.
const MuJoCoBuildHint = "it needs a binary built with MuJoCo: install libmujoco-dev (Debian: apt-get install libmujoco-dev) " +
	"and build with go build -tags mujoco ./cmd/smrl, or make mujoco (docs/mujoco.md)"
