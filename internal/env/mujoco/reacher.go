//go:build mujoco

package mujoco

import (
	_ "embed"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
)

//go:embed assets/reacher.xml
var reacherXML string

// reacher is Gymnasium's Reacher-v4: a two-link planar arm (links of
// 0.1 m and 0.11 m to the fingertip, joint1 within ±3 rad), motors of gear
// 200 with u ∈ [−1, 1]², and a target on two slide joints; RK4 with
// timestep 0.01 s and frame skip 2 (dt = 0.02 s), 50 steps. Observation
// (11): cos q0, cos q1, sin q0, sin q1, the target's (x, y), q̇0, q̇1, and
// fingertip − target (x, y, z) from the bodies' positions. Reward, computed
// before the step from the state the observation describes:
//
//	r(s, a) = −|fingertip − target| − |a|² = −‖s[8:11]‖ − Σ a_i²,
//
// so the planners' reward is Gymnasium's exactly. Reset: qpos ~ qpos0 +
// U(−0.1, 0.1), then the target drawn from U(−0.2, 0.2)² until inside the
// disc of radius 0.2; q̇ ~ U(−0.005, 0.005), the target at rest.
var reacher = &spec{
	name: "reacher", alias: "Reacher-v4",
	doc: "Gymnasium's Reacher-v4 (MuJoCo): a two-link arm to a random target, r = −|fingertip − target| − |a|²",
	xml: reacherXML, frameSkip: 2, horizon: 50, dim: 11, nu: 2, ctrlRange: 1,
	labels: []string{"cos q0", "cos q1", "sin q0", "sin q1", "target x", "target y", "q̇0", "q̇1", "Δx", "Δy", "Δz"},
	observe: func(t *task, d *data, out []float64) {
		out[2], out[0] = math.Sincos(d.qpos[0])
		out[3], out[1] = math.Sincos(d.qpos[1])
		out[4], out[5] = d.qpos[2], d.qpos[3]
		out[6], out[7] = d.qvel[0], d.qvel[1]
		f, g := 3*t.bodies["fingertip"], 3*t.bodies["target"]
		for i := range 3 {
			out[8+i] = d.xpos[f+i] - d.xpos[g+i]
		}
	},
	restore: func(d *data, s []float64) {
		// joint0 turns freely (its angle modulo 2π is what matters);
		// joint1 stays within ±3 rad, inside atan2's (−π, π].
		d.qpos[0], d.qpos[1] = math.Atan2(s[2], s[0]), math.Atan2(s[3], s[1])
		d.qpos[2], d.qpos[3] = s[4], s[5]
		d.qvel[0], d.qvel[1], d.qvel[2], d.qvel[3] = s[6], s[7], 0, 0
	},
	reset: func(rng *rand.Rand, d *data) {
		uniformNoise(rng, d.qpos, 0.1)
		for {
			gx, gy := 0.2*(2*rng.Float64()-1), 0.2*(2*rng.Float64()-1)
			if math.Hypot(gx, gy) < 0.2 {
				d.qpos[2], d.qpos[3] = gx, gy
				break
			}
		}
		uniformNoise(rng, d.qvel, 0.005)
		d.qvel[2], d.qvel[3] = 0, 0
	},
	newTask: func(*task) env.Task { return reacherTask{} },
	sigma:   []float64{0.01, 0.01, 0.01, 0.01, 1e-3, 1e-3, 0.1, 0.1, 3e-3, 3e-3, 1e-3},
	inScale: []float64{1, 1, 1, 1, 0.2, 0.2, 10, 10, 0.2, 0.2, 0.01, 1, 1},
}

// reacherTask is Reacher-v4's reward; it never terminates.
type reacherTask struct{}

// Reward is −‖fingertip − target‖ − |a|² (reward_dist + reward_ctrl).
func (reacherTask) Reward(s, a []float64) float64 {
	return -math.Sqrt(s[8]*s[8]+s[9]*s[9]+s[10]*s[10]) - sumSquares(a)
}
func (reacherTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (reacherTask) Terminates() bool                   { return false }
