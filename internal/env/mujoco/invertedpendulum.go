//go:build mujoco

package mujoco

import (
	_ "embed"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
)

//go:embed assets/inverted_pendulum.xml
var invertedPendulumXML string

// invertedPendulum is Gymnasium's InvertedPendulum-v4: a cart on a rail
// (slider, |x| ≤ 1) with a hinged pole of 0.6 m, pushed by a motor
// (gear 100, u ∈ [−3, 3]), RK4 with timestep 0.02 s and frame skip 2
// (dt = 0.04 s). Observation (qpos, qvel) = (x, θ, ẋ, θ̇); reward 1 per
// step; terminal when |θ| > 0.2;
// 1000 steps; reset qpos, qvel ~ qpos0 + U(−0.01, 0.01) each.
var invertedPendulum = &spec{
	name: "inverted-pendulum", alias: "InvertedPendulum-v4",
	doc: "Gymnasium's InvertedPendulum-v4 (MuJoCo): observation (x, θ, ẋ, θ̇), +1 per step until |θ| > 0.2",
	xml: invertedPendulumXML, frameSkip: 2, horizon: 1000, dim: 4, nu: 1, ctrlRange: 3,
	labels: []string{"x", "θ", "ẋ", "θ̇"},
	observe: func(_ *task, d *data, out []float64) {
		out[0], out[1], out[2], out[3] = d.qpos[0], d.qpos[1], d.qvel[0], d.qvel[1]
	},
	restore: func(d *data, s []float64) {
		d.qpos[0], d.qpos[1], d.qvel[0], d.qvel[1] = s[0], s[1], s[2], s[3]
	},
	reset: func(rng *rand.Rand, d *data) {
		uniformNoise(rng, d.qpos, 0.01)
		uniformNoise(rng, d.qvel, 0.01)
	},
	newTask: func(*task) env.Task { return poleTask{} },
	// One step moves θ̇ by up to about 0.5 rad/s at full force; the
	// scales are a small fraction of each coordinate's range.
	sigma:   []float64{0.01, 0.01, 0.05, 0.05},
	inScale: []float64{1, 0.2, 2, 4, 3},
}

// poleBound is the largest |θ| of a non-terminal state.
const poleBound = 0.2

// poleTask is InvertedPendulum-v4's task: +1 for every step, the one
// entering a terminal state included; terminal when |θ| > 0.2.
type poleTask struct{}

func (poleTask) Reward(_, _ []float64) float64 { return 1 }

// Terminal is Gymnasium's |θ| > 0.2. (Gymnasium also ends an episode at
// a non-finite observation; smrl's runner stops the run there with an
// error, so the task need not, and agrees with its Survival form.)
func (poleTask) Terminal(s []float64) (bool, float64) {
	return s[1] > poleBound || s[1] < -poleBound, 0
}
func (poleTask) Terminates() bool { return true }

// Survival describes the task in closed form (env.Survival) for the
// planners.
func (poleTask) Survival() env.SurvivalSpec {
	return env.SurvivalSpec{Reward: 1, Bonus: 0, Bounds: []env.Bound{{I: 1, Lo: -poleBound, Hi: poleBound}}}
}

// uniformNoise adds U(−scale, scale) to each of x, in order.
func uniformNoise(rng *rand.Rand, x []float64, scale float64) {
	for i := range x {
		x[i] += scale * (2*rng.Float64() - 1)
	}
}

// Potential is the planners' terminal value at a rollout's last state
// (env.Shaped; episode returns never include it): Φ(s) = −(θ/0.2)² − x².
// The reward is 1 on every step, so every rollout that survives its τ
// steps ties; Φ ranks them by how far from its bounds each leaves the pole
// and the cart (the rail ends at |x| = 1), which potential-based shaping
// does without changing the optimal policy.
func (poleTask) Potential(s []float64) float64 {
	th := s[1] / poleBound
	return -th*th - s[0]*s[0]
}
