package env

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// acrobot is Gymnasium's Acrobot-v1 (Sutton 1996; the dynamics of Sutton and
// Barto's book, "book" in Gymnasium): two links hanging from a fixed joint,
// the torque acting on the second joint. Internal state (θ1, θ2, θ̇1, θ̇2),
// θ1 = 0 hanging down, θ2 relative to the first link; the agents see
// Gymnasium's observation (cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2).
// With m1 = m2 = 1, l1 = 1, lc1 = lc2 = 0.5, I1 = I2 = 1, g = 9.8 and the
// torque τ = a (+ Unif[−n, n] with torque_noise_max n):
//
//	d1 = m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos θ2) + I1 + I2
//	d2 = m2 (lc2² + l1 lc2 cos θ2) + I2
//	φ2 = m2 lc2 g cos(θ1 + θ2 − π/2)
//	φ1 = −m2 l1 lc2 θ̇2² sin θ2 − 2 m2 l1 lc2 θ̇2 θ̇1 sin θ2 + (m1 lc1 + m2 l1) g cos(θ1 − π/2) + φ2
//	θ̈2 = (τ + d2/d1 φ1 − m2 l1 lc2 θ̇1² sin θ2 − φ2) / (m2 lc2² + I2 − d2²/d1)
//	θ̈1 = −(d2 θ̈2 + φ1)/d1
//
// integrated over dt by one classical RK4 step (the torque held), then the
// angles wrapped to [−π, π) and the speeds clipped to ±4π and ±9π. The
// reward is −1 per step; a state with −cos θ1 − cos(θ1 + θ2) > 1 (the tip
// one link above the pivot) is terminal and pays +1 on entry, so that an
// episode reaching it in L steps returns −(L − 1), Gymnasium's return.
// s_1 ~ Unif[−init, init]^4; Gymnasium truncates at 500 steps
// (env.horizon). With the sparse reward a planner whose rollouts do not
// reach the goal sees all sequences alike; height_potential > 0 gives it
// the tip's height as a potential (env.Shaped), which episode returns
// never include.
type acrobot struct {
	p AcrobotConfig
}

// Acrobot-v1's constants.
const (
	acroM1, acroM2   = 1.0, 1.0
	acroL1           = 1.0
	acroLC1, acroLC2 = 0.5, 0.5
	acroI1, acroI2   = 1.0, 1.0
	acroG            = 9.8
	acroMaxVel1      = 4 * math.Pi
	acroMaxVel2      = 9 * math.Pi
)

func newAcrobot(c *config.Config) (*MDP, error) {
	p := *config.Section[AcrobotConfig](c, "env.acrobot")
	ac := &acrobot{p: p}
	def := []float64{1, 1, 1, 1, 1, 1}
	// rff input scales: the unit circle, a few radians per second, |a| ≤ 1.
	spec, err := LearnerSpec(c, def, 1, []float64{1, 1, 1, 1, 4, 9, 1})
	if err != nil {
		return nil, err
	}
	return &MDP{
		Dim:      6,
		Task:     acrobotTask{potential: p.HeightPotential},
		Dynamics: ac,
		Model:    spec,
		Init: func(rng *rand.Rand, s []float64) {
			var x [4]float64
			for i := range x {
				x[i] = p.Init * (2*rng.Float64() - 1)
			}
			acrobotObs(x, s)
		},
		Labels: []string{"cos θ1", "sin θ1", "cos θ2", "sin θ2", "θ̇1", "θ̇2"},
		Query:  []float64{1, 0, 1, 0, 0, 0}, // hanging at rest
	}, nil
}

// acrobotObs writes the observation of the state x = (θ1, θ2, θ̇1, θ̇2).
func acrobotObs(x [4]float64, s []float64) {
	s[1], s[0] = math.Sincos(x[0])
	s[3], s[2] = math.Sincos(x[1])
	s[4], s[5] = x[2], x[3]
}

// acrobotDeriv returns the time derivative of x under torque tau.
func acrobotDeriv(x [4]float64, tau float64) [4]float64 {
	th1, th2, dth1, dth2 := x[0], x[1], x[2], x[3]
	sin2, cos2 := math.Sincos(th2)
	d1 := acroM1*acroLC1*acroLC1 + acroM2*(acroL1*acroL1+acroLC2*acroLC2+2*acroL1*acroLC2*cos2) + acroI1 + acroI2
	d2 := acroM2*(acroLC2*acroLC2+acroL1*acroLC2*cos2) + acroI2
	phi2 := acroM2 * acroLC2 * acroG * math.Cos(th1+th2-math.Pi/2)
	phi1 := -acroM2*acroL1*acroLC2*dth2*dth2*sin2 - 2*acroM2*acroL1*acroLC2*dth2*dth1*sin2 +
		(acroM1*acroLC1+acroM2*acroL1)*acroG*math.Cos(th1-math.Pi/2) + phi2
	ddth2 := (tau + d2/d1*phi1 - acroM2*acroL1*acroLC2*dth1*dth1*sin2 - phi2) / (acroM2*acroLC2*acroLC2 + acroI2 - d2*d2/d1)
	ddth1 := -(d2*ddth2 + phi1) / d1
	return [4]float64{dth1, dth2, ddth1, ddth2}
}

// wrapAngle maps x to [−π, π) (Gymnasium's wrap).
func wrapAngle(x float64) float64 {
	const twoPi = 2 * math.Pi
	for x >= math.Pi {
		x -= twoPi
	}
	for x < -math.Pi {
		x += twoPi
	}
	return x
}

// step writes the observation after one RK4 step from the observation s
// under torque tau.
func (ac *acrobot) step(s []float64, tau float64, out []float64) {
	x := [4]float64{atan2(s[1], s[0]), atan2(s[3], s[2]), s[4], s[5]}
	h := ac.p.DT
	k1 := acrobotDeriv(x, tau)
	var y [4]float64
	for i := range y {
		y[i] = x[i] + h/2*k1[i]
	}
	k2 := acrobotDeriv(y, tau)
	for i := range y {
		y[i] = x[i] + h/2*k2[i]
	}
	k3 := acrobotDeriv(y, tau)
	for i := range y {
		y[i] = x[i] + h*k3[i]
	}
	k4 := acrobotDeriv(y, tau)
	for i := range x {
		x[i] += h / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
	}
	x[0], x[1] = wrapAngle(x[0]), wrapAngle(x[1])
	x[2] = min(max(x[2], -acroMaxVel1), acroMaxVel1)
	x[3] = min(max(x[3], -acroMaxVel2), acroMaxVel2)
	acrobotObs(x, out)
}

func (ac *acrobot) NewSimulator() Simulator { return acrobotSim{ac} }
func (ac *acrobot) NewMean() Simulator      { return acrobotMean{ac} }

// acrobotSim draws the torque noise (none when torque_noise_max is 0).
type acrobotSim struct{ *acrobot }

func (ac acrobotSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	tau := a[0]
	if n := ac.p.TorqueNoiseMax; n > 0 {
		tau += n * (2*rng.Float64() - 1)
	}
	ac.step(s, tau, out)
}

// acrobotMean is the noise-free step (the mean transition without torque
// noise, up to the curvature of the dynamics with it).
type acrobotMean struct{ *acrobot }

func (ac acrobotMean) Step(s, a []float64, _ *rand.Rand, out []float64) { ac.step(s, a[0], out) }

// Deterministic reports that the step draws nothing.
func (acrobotMean) Deterministic() bool { return true }

// acrobotTask: −1 per step; terminal, with +1, when the tip's height
// y = −cos θ1 − cos(θ1 + θ2) = −c1 − (c1 c2 − s1 s2) exceeds 1. Its
// planners' potential (env.Shaped) is Φ(s) = height_potential·y.
type acrobotTask struct{ potential float64 }

// Potential is height_potential times the tip's height.
func (t acrobotTask) Potential(s []float64) float64 {
	return t.potential * (-s[0] - (s[0]*s[2] - s[1]*s[3]))
}

func (acrobotTask) Reward(_, _ []float64) float64 { return -1 }
func (acrobotTask) Terminal(s []float64) (bool, float64) {
	if -s[0]-(s[0]*s[2]-s[1]*s[3]) > 1 {
		return true, 1
	}
	return false, 0
}
func (acrobotTask) Terminates() bool { return true }

// AcrobotConfig is the section env.acrobot: it configures env.kind acrobot,
// Gymnasium's Acrobot-v1 (its physical constants are fixed).
type AcrobotConfig struct {
	DT             float64 `mapstructure:"dt" yaml:"dt" doc:"RK4 step (s)"`
	Init           float64 `mapstructure:"init" yaml:"init" doc:"(θ1, θ2, θ̇1, θ̇2)_1 ~ Unif[−init, init]^4"`
	TorqueNoiseMax float64 `mapstructure:"torque_noise_max" yaml:"torque_noise_max" doc:"torque += Unif[−torque_noise_max, torque_noise_max]"`
	// HeightPotential is the weight c of the planners' potential Φ(s) = c·y,
	// y the tip's height (potential-based shaping; returns never include it).
	HeightPotential float64 `mapstructure:"height_potential" yaml:"height_potential" doc:"planners add c·(tip height) at a rollout's last state (potential-based shaping; not in returns)"`
}

// acrobotKind registers env.kind acrobot (see env.go's registry), with
// Gymnasium's id: Acrobot-v1 truncates at 500 steps and plays the torques
// −1, 0 and +1.
var acrobotKind = Kind{Part: config.Part{Name: "acrobot",
	Aliases: []config.Alias{{Name: "Acrobot-v1", Set: map[string]any{"env.horizon": 500, "env.actions": []float64{-1, 0, 1}}}},
	Doc:     "Gymnasium's Acrobot-v1 (book dynamics, RK4), observation (cos θ1, sin θ1, cos θ2, sin θ2, θ̇1, θ̇2), −1 per step until the tip is above the bar",
	Section: "env.acrobot", Uses: []string{"model"}, Dim: 6, Validate: validateAcrobot,
	Defaults: &AcrobotConfig{DT: 0.2, Init: 0.1}},
	Build: newAcrobot}

func validateAcrobot(c *config.Config, bad config.Bad) {
	a := config.Section[AcrobotConfig](c, "env.acrobot")
	if !(a.DT > 0 && a.DT <= 1) {
		bad("env.acrobot.dt", "must lie in (0, 1], got %v: longer RK4 steps of the acrobot's dynamics diverge", a.DT)
	}
	if !(a.Init >= 0 && a.Init <= math.Pi) {
		bad("env.acrobot.init", "must lie in [0, π], got %v", a.Init)
	}
	if !(a.HeightPotential >= 0 && a.HeightPotential <= 1e6) {
		bad("env.acrobot.height_potential", "must lie in [0, 1e6], got %v", a.HeightPotential)
	}
	if !(a.TorqueNoiseMax >= 0 && a.TorqueNoiseMax <= 1e3) {
		bad("env.acrobot.torque_noise_max", "must lie in [0, 1000], got %v", a.TorqueNoiseMax)
	}
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "acrobot has one action (the torque on the second joint), got action_dim %d", c.Env.ActionDim)
	}
}
