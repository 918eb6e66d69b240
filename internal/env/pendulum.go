package env

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// pendulum is Gymnasium's Pendulum-v1, the inverted-pendulum swing-up. Its
// internal state is (θ, θ̇), θ = 0 upright; the agents see Gymnasium's
// observation s = (cos θ, sin θ, θ̇), which is smooth in θ (no wrap at ±π).
// A torque a is clipped to u ∈ [−max_torque, max_torque] and
//
//	θ̇' = clip(θ̇ + (3g/(2l) sin θ + 3/(m l²) u)·dt + ε_θ̇, ±max_speed)
//	θ'  = θ + θ̇'·dt + ε_θ
//	r(s, a) = −(θ_n² + 0.1 θ̇² + 0.001 u²),  θ_n = θ normalised to (−π, π]
//
// with ε = 0 (noise: none, Gymnasium's) or ε ~ N(0, diag(noise_std²))
// (noise: normal), drawn before the clip so that |θ̇| ≤ max_speed always.
// Episodes never terminate (Gymnasium truncates them at 200 steps:
// env.horizon). θ_1 ~ Unif[−init_theta, init_theta], θ̇_1 ~
// Unif[−init_speed, init_speed].
type pendulum struct {
	p      config.Pendulum
	gain   float64 // 3g/(2l)
	torque float64 // 3/(m l²)
}

func newPendulum(c *config.Config) (*MDP, error) {
	p := c.Env.Pendulum
	pd := &pendulum{p: p, gain: 3 * p.Gravity / (2 * p.Length), torque: 3 / (p.Mass * p.Length * p.Length)}
	// The learners' noise scales: the noise on θ moves cos θ and sin θ by
	// about as much. (With noise: none they only set the ridge penalty
	// λσ⁴ of score matching and the width of sampled rollouts.)
	def := []float64{p.NoiseStd[0], p.NoiseStd[0], p.NoiseStd[1]}
	for i := range def {
		def[i] = max(def[i], 1e-3)
	}
	spec, err := learnerSpec(c, def, 1, []float64{1, 1, p.MaxSpeed, p.MaxTorque})
	if err != nil {
		return nil, err
	}
	return &MDP{
		Dim:      3,
		Task:     pendulumTask{maxTorque: p.MaxTorque},
		Dynamics: &gaussianStep{step: pd.step, std: [2]float64(p.NoiseStd), noisy: p.Noise == "normal"},
		Model:    spec,
		Init: func(rng *rand.Rand, s []float64) {
			th := p.InitTheta * (2*rng.Float64() - 1)
			s[0], s[1] = math.Cos(th), math.Sin(th)
			s[2] = p.InitSpeed * (2*rng.Float64() - 1)
		},
		Labels: []string{"cos θ", "sin θ", "θ̇"},
		Query:  []float64{-1, 0, 0}, // hanging down at rest
	}, nil
}

// step writes the next observation from s under torque a, with noise
// (eTheta, eSpeed) on (θ', θ̇').
func (pd *pendulum) step(s, a []float64, eTheta, eSpeed float64, out []float64) {
	p := &pd.p
	th := math.Atan2(s[1], s[0])
	u := clip(a[0], p.MaxTorque)
	w := clip(s[2]+(pd.gain*math.Sin(th)+pd.torque*u)*p.DT+eSpeed, p.MaxSpeed)
	out[1], out[0] = math.Sincos(th + w*p.DT + eTheta)
	out[2] = w
}

func clip(x, m float64) float64 { return min(max(x, -m), m) }

// pendulumTask is Gymnasium's cost, negated, on the observation.
type pendulumTask struct{ maxTorque float64 }

func (t pendulumTask) Reward(s, a []float64) float64 {
	th := math.Atan2(s[1], s[0])
	u := clip(a[0], t.maxTorque)
	return -(th*th + 0.1*s[2]*s[2] + 0.001*u*u)
}
func (pendulumTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (pendulumTask) Terminates() bool                   { return false }
