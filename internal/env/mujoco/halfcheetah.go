//go:build mujoco

package mujoco

import (
	_ "embed"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
)

//go:embed assets/half_cheetah.xml
var halfCheetahXML string

// halfCheetah is Gymnasium's HalfCheetah-v4: a planar cheetah of 14 kg
// (root slides x and z and hinge y; six hinged leg joints driven by
// motors with gears 120, 90, 60, 120, 60, 30 and u ∈ [−1, 1]⁶), Euler
// with timestep 0.01 s and frame skip 5 (dt = 0.05 s), 1000 steps, never
// terminal. Observation (17): qpos[1:] (z, pitch, six joint angles), then
// qvel (9, from ẋ). The true reward of a step is
//
//	(x_after − x_before)/dt − 0.1·|a|²,
//
// x being the unobserved root position. The planners score
//
//	r(s, a) = s[8] − 0.1·|a|²,  s[8] = ẋ,
//
// the forward velocity at the state played from: over a rollout the sum
// of ẋ(x_t) for t ≥ 1 approximates Σ Δx/dt (ẋ at the end of each step,
// against its mean over the step), and the extra ẋ(s) of the first state
// is the same for every action sequence of a decision. Reset: qpos ~
// qpos0 + U(−0.1, 0.1), qvel ~ 0.1·N(0, 1).
var halfCheetah = &spec{
	name: "half-cheetah", alias: "HalfCheetah-v4",
	doc: "Gymnasium's HalfCheetah-v4 (MuJoCo): a planar cheetah, r = Δx/dt − 0.1|a|², 1000 steps",
	xml: halfCheetahXML, frameSkip: 5, horizon: 1000, dim: 17, nu: 6, ctrlRange: 1,
	labels: []string{"z", "pitch", "bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot",
		"ẋ", "ż", "pitch'", "bthigh'", "bshin'", "bfoot'", "fthigh'", "fshin'", "ffoot'"},
	observe:  observeSkipX,
	restore:  restoreSkipX,
	reset:    func(rng *rand.Rand, d *data) { uniformNoise(rng, d.qpos, 0.1); normalNoise(rng, d.qvel, 0.1) },
	progress: func(x0 float64, d *data, a []float64) float64 { return (d.qpos[0]-x0)/cheetahDT - 0.1*sumSquares(a) },
	newTask:  func(*task) env.Task { return cheetahTask{} },
	sigma: []float64{0.01, 0.01, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05,
		0.2, 0.2, 0.5, 1, 1, 1, 1, 1, 1},
	inScale: []float64{0.2, 0.5, 1, 1, 1, 1, 1, 1, 5, 2, 5, 10, 10, 10, 10, 10, 10, 1, 1, 1, 1, 1, 1},
}

// cheetahDT is HalfCheetah-v4's environment step, timestep 0.01 × 5.
const cheetahDT = 0.05

// cheetahTask is the planners' reward of HalfCheetah-v4 (see
// halfCheetah); it never terminates.
type cheetahTask struct{}

func (cheetahTask) Reward(s, a []float64) float64      { return s[8] - 0.1*sumSquares(a) }
func (cheetahTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (cheetahTask) Terminates() bool                   { return false }

// observeSkipX writes (qpos[1:], qvel): the observation of HalfCheetah
// (and, with its velocities clipped, of Hopper).
func observeSkipX(_ *task, d *data, out []float64) {
	n := copy(out, d.qpos[1:])
	copy(out[n:], d.qvel)
}

// restoreSkipX sets qpos[1:] and qvel from (qpos[1:], qvel) and x to 0:
// the floor is a plane, so the dynamics do not depend on x.
func restoreSkipX(d *data, s []float64) {
	d.qpos[0] = 0
	n := copy(d.qpos[1:], s)
	copy(d.qvel, s[n:])
}

// normalNoise adds scale·N(0, 1) to each of x, in order.
func normalNoise(rng *rand.Rand, x []float64, scale float64) {
	for i := range x {
		x[i] += scale * rng.NormFloat64()
	}
}
