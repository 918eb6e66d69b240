package env

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// cartPole is the Barto–Sutton–Anderson cart-pole with Gym's CartPole
// equations and explicit Euler steps, and the noise variants of the SMRL
// authors' StochasticCartPoleEnv. The state is (x, ẋ, θ, θ̇); an action
// a ∈ {−1, +1} (or [−1, 1]) pushes with force F = force_mag·a:
//
//	temp = (F + m_p l θ̇² sin θ)/M,  M = m_c + m_p, l = half the pole's length
//	θ̈ = (g sin θ − cos θ·temp) / (l (4/3 − m_p cos²θ / M))
//	ẍ = temp − m_p l θ̈ cos θ / M
//	x' = x + dt ẋ,  ẋ' = ẋ + dt ẍ,  θ' = θ + dt θ̇,  θ̇' = θ̇ + dt θ̈
//
// Noise (env.cartpole.noise):
//
//	none         the physics alone
//	action_flip  F's sign flips with probability flip_prob, and ε of density
//	             is added as for next_state (the authors' "in_action" adds
//	             their next-state noise too); density: none flips only
//	next_state   s' = physics + ε with per-coordinate scales
//	             σ_i = noise_scale·(x_th, dt·force_mag/M, θ_th, dt·g/l) and ε
//	             by env.cartpole.density:
//	   normal      ε_i ~ N(0, σ_i²) in every coordinate (the authors pass σ_i²
//	               as the variance of their NonLDSDensity: σ_i is the standard
//	               deviation)
//	   exp         ε_0 ~ Exp(rate 1/σ_0) (mean σ_0) in x only
//	   custom-sin  ε_i ∝ exp(−ε²/2 + sin(ε/σ_i)·η) in every coordinate, with
//	               η = x + ẋ + θ + θ̇ + a (the authors' W = ones on phi = [s, a])
//	               and a unit-scale base measure, as in their code
//	               (custom_sin_base: unit); with custom_sin_base: sigma the base
//	               is exp(−ε²/(2σ_i²)), i.e. ε_i = σ_i u with u ∝ exp(−u²/2 + sin(u)·η)
//	   mog         ε_0 ~ ½ N(0, σ_0²) + ½ N(σ_0·mog_width, σ_0²) in x only
//
// The reward is +1 for every step, including the one that fails; a state is
// terminal when |x| > x_th or |θ| > θ_th.
type cartPole struct {
	p              config.CartPole
	totalMass      float64
	poleMassLen    float64
	sigma          [4]float64
	noiseTables    [4]*expfam.Table // custom-sin noise: the table of ε_i/noiseMul[i]
	noiseMul       [4]float64
	flip, additive bool
}

// CartPoleScales returns the per-coordinate scales
// (x_th, dt·force_mag/M, θ_th, dt·g/l) that noise_scale multiplies.
func CartPoleScales(p config.CartPole) [4]float64 {
	return [4]float64{p.XThreshold, p.DT * p.ForceMag / (p.MassCart + p.MassPole), p.ThetaThreshold, p.DT * p.Gravity / p.Length}
}

func newCartPole(c *config.Config) (*MDP, error) {
	p := c.Env.CartPole
	cp := &cartPole{p: p, totalMass: p.MassCart + p.MassPole, poleMassLen: p.MassPole * p.Length,
		flip:     p.Noise == "action_flip",
		additive: (p.Noise == "next_state" || p.Noise == "action_flip") && p.Density != "none"}
	scales := CartPoleScales(p)
	def := make([]float64, 4)
	for i, s := range scales {
		cp.sigma[i] = p.NoiseScale * s
		def[i] = cp.sigma[i]
	}
	if cp.additive && p.Density == "custom-sin" {
		for i, s := range cp.sigma {
			freq, mul := 1/s, 1.0 // unit base: ε_i itself has frequency 1/σ_i
			if p.CustomSinBase == "sigma" {
				freq, mul = 1, s // sigma base: ε_i/σ_i, one shape for every coordinate
			}
			if freq > MaxSinFreq {
				return nil, fmt.Errorf("env.cartpole.noise_scale: coordinate %d's noise scale σ = %g gives the custom-sin noise (custom_sin_base: unit) the frequency 1/σ = %.4g > %d, "+
					"too fast for the sampling table's quadrature; use a larger noise_scale or custom_sin_base: sigma", i, s, freq, MaxSinFreq)
			}
			f, err := expfam.NewSin(freq, 2)
			if err != nil {
				return nil, fmt.Errorf("env.cartpole.noise_scale: %w", err)
			}
			// SharedTable returns one table per family: the sigma base's
			// coordinates share it.
			cp.noiseTables[i], cp.noiseMul[i] = expfam.SharedTable(f), mul
		}
	}
	// rff input scales: the termination bounds of x and θ, and typical
	// speeds before failure.
	spec, err := learnerSpec(c, def, 1, []float64{p.XThreshold, 2, p.ThetaThreshold, 3, 1})
	if err != nil {
		return nil, err
	}
	return &MDP{
		Dim:      4,
		Task:     cartPoleTask{xth: p.XThreshold, thth: p.ThetaThreshold},
		Dynamics: cp,
		Model:    spec,
		Init:     uniformInit(-p.Init, p.Init),
		Labels:   []string{"x", "ẋ", "θ", "ω = θ̇"},
	}, nil
}

// physics writes the noise-free Euler step from s under force f into out.
func (cp *cartPole) physics(s []float64, f float64, out []float64) {
	x, xdot, theta, thetadot := s[0], s[1], s[2], s[3]
	sin, cos := math.Sincos(theta)
	temp := (f + cp.poleMassLen*thetadot*thetadot*sin) / cp.totalMass
	thetaacc := (cp.p.Gravity*sin - cos*temp) / (cp.p.Length * (4.0/3.0 - cp.p.MassPole*cos*cos/cp.totalMass))
	xacc := temp - cp.poleMassLen*thetaacc*cos/cp.totalMass
	dt := cp.p.DT
	out[0] = x + dt*xdot
	out[1] = xdot + dt*xacc
	out[2] = theta + dt*thetadot
	out[3] = thetadot + dt*thetaacc
}

// noiseEta is the natural parameter of the custom-sin noise at (s, a).
func noiseEta(s, a []float64) float64 { return s[0] + s[1] + s[2] + s[3] + a[0] }

func (cp *cartPole) NewSimulator() Simulator { return cartPoleSim{cp} }
func (cp *cartPole) NewMean() Simulator      { return cartPoleMean{cp} }

// cartPoleSim draws the true transition.
type cartPoleSim struct{ *cartPole }

func (cp cartPoleSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	f := cp.p.ForceMag * a[0]
	if cp.flip && rng.Float64() < cp.p.FlipProb {
		f = -f
	}
	cp.physics(s, f, out)
	if !cp.additive {
		return
	}
	sg := &cp.sigma
	switch cp.p.Density {
	case "normal":
		for i := range 4 {
			out[i] += sg[i] * rng.NormFloat64()
		}
	case "exp":
		out[0] += sg[0] * rng.ExpFloat64()
	case "mog":
		e := sg[0] * rng.NormFloat64()
		if rng.Float64() >= 0.5 {
			e += sg[0] * cp.p.MogWidth
		}
		out[0] += e
	case "custom-sin":
		eta := noiseEta(s, a)
		for i, t := range cp.noiseTables {
			out[i] += cp.noiseMul[i] * t.Quantile(eta, rng.Float64())
		}
	}
}

// cartPoleMean is the mean transition E[s' | s, a]: the physics is affine in
// the force, so a flip with probability p averages to the force (1 − 2p)F,
// and additive noise adds its mean.
type cartPoleMean struct{ *cartPole }

func (cp cartPoleMean) Step(s, a []float64, _ *rand.Rand, out []float64) {
	f := cp.p.ForceMag * a[0]
	if cp.flip {
		f *= 1 - 2*cp.p.FlipProb
	}
	cp.physics(s, f, out)
	if !cp.additive {
		return
	}
	sg := &cp.sigma
	switch cp.p.Density {
	case "exp":
		out[0] += sg[0]
	case "mog":
		out[0] += 0.5 * sg[0] * cp.p.MogWidth
	case "custom-sin":
		eta := noiseEta(s, a)
		for i, t := range cp.noiseTables {
			out[i] += cp.noiseMul[i] * t.MeanX(eta)
		}
	}
}

// Deterministic reports that the mean transition draws nothing.
func (cartPoleMean) Deterministic() bool { return true }

// cartPoleTask: +1 per step; terminal when |x| > xth or |θ| > thth.
type cartPoleTask struct{ xth, thth float64 }

func (cartPoleTask) Reward(_, _ []float64) float64 { return 1 }
func (t cartPoleTask) Terminal(s []float64) (bool, float64) {
	return s[0] < -t.xth || s[0] > t.xth || s[2] < -t.thth || s[2] > t.thth, 0
}
func (cartPoleTask) Terminates() bool { return true }
