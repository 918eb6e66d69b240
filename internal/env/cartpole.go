package env

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

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
	p              CartPoleConfig
	totalMass      float64
	poleMassLen    float64
	sigma          [4]float64
	noiseTables    [4]*expfam.Table // custom-sin noise: the table of ε_i/noiseMul[i]
	noiseMul       [4]float64
	flip, additive bool
}

// CartPoleScales returns the per-coordinate scales
// (x_th, dt·force_mag/M, θ_th, dt·g/l) that noise_scale multiplies.
func CartPoleScales(p CartPoleConfig) [4]float64 {
	return [4]float64{p.XThreshold, p.DT * p.ForceMag / (p.MassCart + p.MassPole), p.ThetaThreshold, p.DT * p.Gravity / p.Length}
}

func newCartPole(c *config.Config) (*MDP, error) {
	p := *config.Section[CartPoleConfig](c, "env.cartpole")
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
	spec, err := LearnerSpec(c, def, 1, []float64{p.XThreshold, 2, p.ThetaThreshold, 3, 1})
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
	sin, cos := sincos(theta)
	temp := (f + cp.poleMassLen*thetadot*thetadot*sin) / cp.totalMass
	thetaacc := (cp.p.Gravity*sin - cos*temp) / (cp.p.Length * (4.0/3.0 - cp.p.MassPole*cos*cos/cp.totalMass))
	xacc := temp - cp.poleMassLen*thetaacc*cos/cp.totalMass
	dt := cp.p.DT
	out[0] = x + dt*xdot
	out[1] = xdot + dt*xacc
	out[2] = theta + dt*thetadot
	out[3] = thetadot + dt*thetaacc
}

// sincos is math.Sincos(x) to the bit. For 0 < |x| < 0.7 (the pole's
// angles: a state beyond |θ| = 12° is terminal) it is math.Sincos's own
// arithmetic inline: x/(π/4) < 1 there, so Sincos reduces nothing (octant
// 0, z = |x|) and evaluates its two polynomials in z² with the
// coefficients below (math/sin.go's _sin and _cos), negating the sine for
// x < 0. Elsewhere (0, large |x|, NaN, ±Inf) it calls math.Sincos.
func sincos(x float64) (sin, cos float64) {
	z := math.Abs(x)
	if !(z < 0.7) || x == 0 {
		return math.Sincos(x)
	}
	const (
		s0, s1, s2 = 1.58962301576546568060e-10, -2.50507477628578072866e-8, 2.75573136213857245213e-6
		s3, s4, s5 = -1.98412698295895385996e-4, 8.33333333332211858878e-3, -1.66666666666666307295e-1
		c0, c1, c2 = -1.13585365213876817300e-11, 2.08757008419747316778e-9, -2.75573141792967388112e-7
		c3, c4, c5 = 2.48015872888517045348e-5, -1.38888888888730564116e-3, 4.16666666666665929218e-2
	)
	zz := z * z
	cos = 1.0 - 0.5*zz + zz*zz*((((((c0*zz)+c1)*zz+c2)*zz+c3)*zz+c4)*zz+c5)
	sin = z + z*zz*((((((s0*zz)+s1)*zz+s2)*zz+s3)*zz+s4)*zz+s5)
	if x < 0 {
		sin = -sin
	}
	return sin, cos
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

// Survival describes the task for the planners' rollouts (Survival).
func (t cartPoleTask) Survival() SurvivalSpec {
	return SurvivalSpec{Reward: 1, Bonus: 0, Bounds: []Bound{{I: 0, Lo: -t.xth, Hi: t.xth}, {I: 2, Lo: -t.thth, Hi: t.thth}}}
}

// cartPoleNoise and noiseDensity are the values of env.cartpole.noise and
// env.cartpole.density.
var (
	cartPoleNoise = []string{"none", "action_flip", "next_state"}
	noiseDensity  = []string{"normal", "exp", "custom-sin", "mog", "none"}
)

// CartPoleConfig is the section env.cartpole: it configures env.kind cartpole: the Barto–Sutton–Anderson cart-pole
// (Gym's CartPole constants, explicit Euler) with the noise variants of the
// SMRL authors' code.
type CartPoleConfig struct {
	Gravity        float64 `mapstructure:"gravity" yaml:"gravity" doc:"g"`
	MassCart       float64 `mapstructure:"mass_cart" yaml:"mass_cart" doc:"the cart's mass"`
	MassPole       float64 `mapstructure:"mass_pole" yaml:"mass_pole" doc:"the pole's mass"`
	Length         float64 `mapstructure:"length" yaml:"length" doc:"half the pole's length"` // half the pole's length
	ForceMag       float64 `mapstructure:"force_mag" yaml:"force_mag" doc:"force = force_mag·a"`
	DT             float64 `mapstructure:"dt" yaml:"dt" doc:"Euler step (s)"`
	XThreshold     float64 `mapstructure:"x_threshold" yaml:"x_threshold" doc:"terminal when |x| > x_threshold"`
	ThetaThreshold float64 `mapstructure:"theta_threshold" yaml:"theta_threshold" doc:"terminal when |θ| > theta_threshold (12° in radians)"`
	Init           float64 `mapstructure:"init" yaml:"init" doc:"s_1 ~ Unif(−init, init)^4"`                                                                                             // s_1 ~ Unif(−init, init)^4
	Noise          string  `mapstructure:"noise" yaml:"noise" doc:"none | action_flip (the force's sign flips w.p. flip_prob, plus the density's noise) | next_state"`                   // none | action_flip | next_state
	FlipProb       float64 `mapstructure:"flip_prob" yaml:"flip_prob" doc:"action_flip: probability of a flip"`                                                                          // action_flip
	Density        string  `mapstructure:"density" yaml:"density" doc:"next_state and action_flip noise: normal | exp (x only) | custom-sin | mog (x only) | none (action_flip only)"`   // next_state: normal | exp | custom-sin | mog
	NoiseScale     float64 `mapstructure:"noise_scale" yaml:"noise_scale" doc:"σ_i = noise_scale·(x_threshold, dt·force_mag/(mass_cart+mass_pole), theta_threshold, dt·gravity/length)"` // σ_i = noise_scale · c_i
	MogWidth       float64 `mapstructure:"mog_width" yaml:"mog_width" doc:"mog: ½ N(0, σ_0²) + ½ N(σ_0·mog_width, σ_0²)"`                                                                // mog: second component at σ_0·width
	// CustomSinBase is the scale of the custom-sin noise's base measure:
	// "unit", exp(−ε²/2) as in the authors' code, or "sigma", exp(−ε²/(2σ_i²)).
	CustomSinBase string `mapstructure:"custom_sin_base" yaml:"custom_sin_base" doc:"custom-sin: q = exp(−ε²/2) (unit, the authors') or exp(−ε²/(2σ_i²)) (sigma)"`
}

// cartPoleKind registers env.kind cartpole (see env.go's registry).
var cartPoleKind = Kind{Part: config.Part{Name: "cartpole", Aliases: []config.Alias{{Name: "CartPole-v1", Set: map[string]any{"env.horizon": 500}}},
	Doc:     "Gym's CartPole physics (explicit Euler), +1 per step, with the SMRL authors' noise variants",
	Section: "env.cartpole", Uses: []string{"model"}, Dim: 4, Validate: validateCartPole,
	Defaults: &CartPoleConfig{Gravity: 9.8, MassCart: 1, MassPole: 0.1, Length: 0.5, ForceMag: 10, DT: 0.02,
		XThreshold: 2.4, ThetaThreshold: 0.20943951023931953, Init: 0.05, Noise: "none", FlipProb: 0.4,
		Density: "normal", NoiseScale: 0.1, MogWidth: 1, CustomSinBase: "unit"}},
	Build: newCartPole}

// validateCartPole checks env.cartpole and the parts of env that apply to
// it (actions of one number each).
func validateCartPole(c *config.Config, bad config.Bad) {
	p := config.Section[CartPoleConfig](c, "env.cartpole")
	pos := func(key string, v float64) {
		if !(v > 0) || !finite(v) {
			bad("env.cartpole."+key, "must be a finite number > 0, got %v", v)
		} else if v < 1e-6 || v > 1e6 {
			// The parameters set the scales of the model's coordinates
			// (env.CartPoleScales), which score matching weighs by 1/σ⁴.
			bad("env.cartpole."+key, "must lie in [1e-6, 1e6], got %v: the dynamics and the model's coordinate scales derived from it under- or overflow beyond", v)
		}
	}
	if p.XThreshold > config.MaxAbsState {
		bad("env.cartpole.x_threshold", "must be <= %d, got %v: %s", config.MaxAbsState, p.XThreshold, config.StateWhy)
	}
	for _, k := range []keyValue{{"gravity", p.Gravity}, {"mass_cart", p.MassCart}, {"mass_pole", p.MassPole}, {"length", p.Length},
		{"force_mag", p.ForceMag}, {"dt", p.DT}, {"x_threshold", p.XThreshold}, {"theta_threshold", p.ThetaThreshold},
		{"noise_scale", p.NoiseScale}} {
		pos(k.key, k.v)
	}
	stepBounds(bad, "env.cartpole", p.DT, p.Gravity)
	if p.ThetaThreshold >= math.Pi/2 {
		bad("env.cartpole.theta_threshold", "must be below π/2 (the pole falls over), got %v", p.ThetaThreshold)
	}
	if !(p.Init >= 0) || !finite(p.Init) || p.Init >= min(p.XThreshold, p.ThetaThreshold) {
		bad("env.cartpole.init", "must be a finite number >= 0 below x_threshold and theta_threshold (s_1 must not be terminal), got %v", p.Init)
	}
	if !slices.Contains(cartPoleNoise, p.Noise) {
		bad("env.cartpole.noise", "unknown noise %q (known: %v)", p.Noise, cartPoleNoise)
	}
	if !slices.Contains(noiseDensity, p.Density) {
		bad("env.cartpole.density", "unknown density %q (known: %v)", p.Density, noiseDensity)
	}
	if p.Noise == "next_state" && p.Density == "none" {
		bad("env.cartpole.density", "noise next_state needs a density (normal, exp, custom-sin or mog); for no noise set env.cartpole.noise: none")
	}
	if !(p.FlipProb >= 0 && p.FlipProb <= 1) {
		bad("env.cartpole.flip_prob", "must lie in [0, 1], got %v", p.FlipProb)
	}
	if p.CustomSinBase != "unit" && p.CustomSinBase != "sigma" {
		bad("env.cartpole.custom_sin_base", "unknown base %q (known: unit, sigma)", p.CustomSinBase)
	}
	if !finite(p.MogWidth) || math.Abs(p.MogWidth) > 1e3 {
		bad("env.cartpole.mog_width", "must be a finite number with |width| <= 1000, got %v", p.MogWidth)
	}
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "cartpole has one action (the force's sign or fraction), got action_dim %d", c.Env.ActionDim)
	}
	if c.Env.ActionSpace == "box" && len(c.Env.ActionLow) == 1 && len(c.Env.ActionHigh) == 1 &&
		(c.Env.ActionLow[0] < -1 || c.Env.ActionHigh[0] > 1) {
		bad("env.action_low", "cartpole's box must lie in [−1, 1] (force = force_mag·a), got [%v, %v]", c.Env.ActionLow[0], c.Env.ActionHigh[0])
	}
}

// stepBounds bounds the Euler step and the gravity of a physical
// environment (checked > 0 with the other constants): a step of more than
// a second, or a gravity beyond 1000, makes the explicit Euler dynamics
// diverge within a few steps, and the learners' fits then fail halfway
// through a run instead of before it.
func stepBounds(bad config.Bad, section string, dt, gravity float64) {
	if dt > 1 {
		bad(section+".dt", "must be at most 1 (s), got %v: longer explicit Euler steps diverge", dt)
	}
	if gravity > 1e3 {
		bad(section+".gravity", "must be at most 1000, got %v: the Euler steps diverge within a few steps", gravity)
	}
}

// keyValue is a number of a config section and its key in the section.
type keyValue struct {
	key string
	v   float64
}

// physicsConstants reports (through bad) each physics constant of section
// (env.pendulum, env.mountain_car) outside [config.MinPhysics,
// config.MaxPhysics] or not finite: "> 0" let a subnormal mass (1e-320)
// through, which then failed deep inside the run (exit 1, with a hint
// about lambda), because the dynamics divide by it and the model's
// coordinate scales derive from it.
func physicsConstants(bad config.Bad, section string, constants ...keyValue) {
	for _, k := range constants {
		if !(k.v >= config.MinPhysics && k.v <= config.MaxPhysics) || !finite(k.v) {
			bad(section+"."+k.key, "must lie in [1e-6, 1e6], got %v: the dynamics divide by it or scale by it, and under- or overflow beyond", k.v)
		}
	}
}

// physicsNoise are the noise kinds of the physical environments with two
// state variables.
var physicsNoise = []string{"none", "normal"}

// validatePhysicsNoise checks the additive next-state noise of a physical
// environment with two state variables.
func validatePhysicsNoise(bad config.Bad, section, noise string, std []float64) {
	if !slices.Contains(physicsNoise, noise) {
		bad(section+".noise", "unknown noise %q (known: %v)", noise, physicsNoise)
	}
	if len(std) != 2 {
		bad(section+".noise_std", "must hold 2 numbers, got %d", len(std))
	}
	for _, s := range std {
		if !(s >= 0) || !finite(s) || s > 1e3 {
			bad(section+".noise_std", "must lie in [0, 1000], got %v", s)
		}
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
