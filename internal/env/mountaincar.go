package env

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// mountainCar is Gymnasium's MountainCarContinuous-v0: an under-powered car
// in a valley must rock back and forth to reach the hill top. The state is
// (position p, velocity v); the force is clip(a, −1, 1) and
//
//	v' = clip(v + power·force − 0.0025 cos(3p) + ε_v, ±max_speed)
//	p' = clip(p + v' + ε_p, [min_position, max_position]),  v' = 0 if p' = min_position and v' < 0
//	r(s, a) = −0.1 a²;  entering p' ≥ goal_position with v' ≥ goal_velocity
//	          ends the episode with goal_reward (100)
//
// with ε = 0 (noise: none, Gymnasium's) or ε ~ N(0, diag(noise_std²))
// (noise: normal), drawn before the bounds so that they always hold.
// Gymnasium rounds the state to float32 after each step; smrl keeps
// float64. p_1 ~ Unif[init_low, init_high], v_1 = 0; Gymnasium truncates
// episodes at 999 steps (env.horizon).
type mountainCar struct {
	p config.MountainCar
}

func newMountainCar(c *config.Config) (*MDP, error) {
	p := c.Env.MountainCar
	mc := &mountainCar{p: p}
	def := []float64{max(p.NoiseStd[0], 1e-4), max(p.NoiseStd[1], 1e-5)}
	// rff input scales: half the position range, the speed limit, |a| ≤ 1.
	spec, err := learnerSpec(c, def, 1, []float64{(p.MaxPosition - p.MinPosition) / 2, p.MaxSpeed, 1})
	if err != nil {
		return nil, err
	}
	return &MDP{
		Dim:      2,
		Task:     mountainCarTask{p: p},
		Dynamics: &gaussianStep{step: mc.step, std: [2]float64(p.NoiseStd), noisy: p.Noise == "normal"},
		Model:    spec,
		Init: func(rng *rand.Rand, s []float64) {
			s[0] = p.InitLow + (p.InitHigh-p.InitLow)*rng.Float64()
			s[1] = 0
		},
		Labels: []string{"position", "velocity"},
		Query:  []float64{-0.5, 0},
	}, nil
}

// step writes the next state from s under action a, with noise (ep, ev).
func (mc *mountainCar) step(s, a []float64, ep, ev float64, out []float64) {
	p := &mc.p
	force := min(max(a[0], -1), 1)
	v := clip(s[1]+force*p.Power-0.0025*math.Cos(3*s[0])+ev, p.MaxSpeed)
	x := min(max(s[0]+v+ep, p.MinPosition), p.MaxPosition)
	if x == p.MinPosition && v < 0 {
		v = 0
	}
	out[0], out[1] = x, v
}

// mountainCarTask: −0.1a² per step (of the action as given, like
// Gymnasium), goal_reward on entering the goal.
type mountainCarTask struct{ p config.MountainCar }

func (mountainCarTask) Reward(_, a []float64) float64 { return -0.1 * a[0] * a[0] }
func (t mountainCarTask) Terminal(s []float64) (bool, float64) {
	if s[0] >= t.p.GoalPosition && s[1] >= t.p.GoalVelocity {
		return true, t.p.GoalReward
	}
	return false, 0
}
func (mountainCarTask) Terminates() bool { return true }
