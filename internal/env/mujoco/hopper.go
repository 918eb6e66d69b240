//go:build mujoco

package mujoco

import (
	_ "embed"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
)

//go:embed assets/hopper.xml
var hopperXML string

// hopper is Gymnasium's Hopper-v4: a planar one-legged robot (torso,
// thigh, leg, foot; root slides x and z and hinge y; motors of gear 200
// with u ∈ [−1, 1]³ on the thigh, leg and foot joints), RK4 with
// timestep 0.002 s and frame skip 4 (dt = 0.008 s), 1000 steps.
// Observation (11): qpos[1:] (z, pitch, three joint angles), then qvel
// clipped to [−10, 10] (6). The true reward of a step is
//
//	(x_after − x_before)/dt + 1 − 0.001·|a|²
//
// (the healthy reward 1 is paid on every step, the last included, since
// the episode ends when the hopper is unhealthy). It is unhealthy, and
// the state terminal, unless z > 0.7, |pitch| < 0.2 and every coordinate
// of (qpos[2:], qvel) lies in (−100, 100); smrl checks these on the
// observation, whose velocities are clipped to ±10, so a velocity beyond
// ±100 that Gymnasium's state would flag goes unseen. The planners score
//
//	r(s, a) = 1 + s[5] − 0.001·|a|²,  s[5] = ẋ (clipped),
//
// as HalfCheetah's, with rollouts stopped at unhealthy states. Reset:
// qpos ~ qpos0 + U(−0.005, 0.005), qvel ~ U(−0.005, 0.005).
var hopper = &spec{
	name: "hopper", alias: "Hopper-v4",
	doc: "Gymnasium's Hopper-v4 (MuJoCo): a one-legged hopper, r = Δx/dt + 1 − 0.001|a|² until it falls",
	xml: hopperXML, frameSkip: 4, horizon: 1000, dim: 11, nu: 3, ctrlRange: 1,
	labels: []string{"z", "pitch", "thigh", "leg", "foot", "ẋ", "ż", "pitch'", "thigh'", "leg'", "foot'"},
	observe: func(t *task, d *data, out []float64) {
		observeSkipX(t, d, out)
		for i := 5; i < 11; i++ {
			out[i] = min(max(out[i], -10), 10)
		}
	},
	restore: restoreSkipX,
	reset:   func(rng *rand.Rand, d *data) { uniformNoise(rng, d.qpos, 5e-3); uniformNoise(rng, d.qvel, 5e-3) },
	progress: func(x0 float64, d *data, a []float64) float64 {
		return (d.qpos[0]-x0)/hopperDT + 1 - 1e-3*sumSquares(a)
	},
	newTask: func(*task) env.Task { return hopperTask{} },
	sigma:   []float64{0.005, 0.005, 0.01, 0.01, 0.01, 0.1, 0.1, 0.2, 0.3, 0.3, 0.3},
	inScale: []float64{1, 0.2, 1, 1, 1, 3, 3, 10, 10, 10, 10, 1, 1, 1},
}

// hopperDT is Hopper-v4's environment step, timestep 0.002 × 4.
const hopperDT = 0.008

// hopperTask is the planners' reward of Hopper-v4 and its terminal
// (unhealthy) states.
type hopperTask struct{}

func (hopperTask) Reward(s, a []float64) float64 { return 1 + s[5] - 1e-3*sumSquares(a) }

// Terminal is not healthy: healthy is 0.7 < z < ∞, −0.2 < pitch < 0.2 and
// −100 < s_i < 100 for i ≥ 1 (qpos[2:] and qvel); a NaN fails them all.
func (hopperTask) Terminal(s []float64) (bool, float64) {
	healthy := s[0] > 0.7 && s[0] < math.Inf(1) && s[1] > -0.2 && s[1] < 0.2
	for _, x := range s[1:] {
		healthy = healthy && x > -100 && x < 100
	}
	return !healthy, 0
}
func (hopperTask) Terminates() bool { return true }
