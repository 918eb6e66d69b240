package testutil

// The damped pendulum of examples/external/damped_pendulum.py, written in
// Go with the same operations in the same order, so that both give the
// same bits: the tests run it as a built-in environment, and serve it
// over the protocol of env.kind external (ServeExternal) in place of the
// Python program when no python3 is at hand.
//
// State and observation s = (θ, ω), θ = 0 upright and not wrapped (the
// reward counts whole turns: the task is to stand up without spinning);
// torque u = clip(a, ±MaxTorque) and, with psin a polynomial of sin
// (Taylor to x¹⁵ after reduction to [−π, π): only +, −, ×, / and floor,
// which IEEE 754 rounds alike in every language, where Python's and Go's
// sin may differ in the last bit),
//
//	ω' = clip(ω + dt·(g/l·psin(θ) − b·ω + k·u), ±MaxSpeed)
//	θ' = θ + dt·ω'
//	r(s, a) = −(θ² + 0.1·ω² + 0.001·u²).
//
// Every product is rounded before it is added (float64(x*y)), so that no
// compiler fuses a multiply-add, which Python never does.

import "math"

// Damped holds the pendulum's constants (examples/external/damped_pendulum.py's
// defaults: DampedDefaults).
type Damped struct {
	Gain, Damping, TorqueGain, DT, MaxSpeed, MaxTorque, InitTheta, InitSpeed float64
	Horizon                                                                  int
}

// DampedDefaults are damped_pendulum.py's constants.
var DampedDefaults = Damped{Gain: 10, Damping: 0.1, TorqueGain: 3, DT: 0.05, MaxSpeed: 8, MaxTorque: 2, InitTheta: 3.141592653589793, InitSpeed: 1, Horizon: 100}

// DampedReward is the reward expression that equals Reward bit for bit
// (env.reward.expression).
const DampedReward = "-(s0*s0 + 0.1*s1*s1 + 0.001*a0*a0)"

// sinCoef are 1/1!, −1/3!, 1/5!, …, −1/15!, as damped_pendulum.py writes them.
var sinCoef = [...]float64{1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984,
	2.7557319223985893e-06, -2.505210838544172e-08, 1.6059043836821613e-10, -7.647163731819816e-13}

const (
	dampedPi    = 3.141592653589793
	dampedTwoPi = 6.283185307179586
)

// psin is Σ_k sinCoef[k] r^(2k+1) of r = wrap(x), by Horner's rule in r²
// (|psin − sin| < 1e-9).
func psin(x float64) float64 {
	x = wrap(x)
	x2 := float64(x * x)
	p := sinCoef[7]
	for k := 6; k >= 0; k-- {
		p = float64(p*x2) + sinCoef[k]
	}
	return float64(p * x)
}

// wrap maps θ to [−π, π): θ − 2π·floor((θ + π)/(2π)).
func wrap(th float64) float64 {
	return th - float64(dampedTwoPi*math.Floor((th+dampedPi)/dampedTwoPi))
}

func clipTo(x, m float64) float64 { return min(max(x, -m), m) }

// Step writes the next state from s under a.
func (d *Damped) Step(s, a, out []float64) {
	th, w := s[0], s[1]
	u := clipTo(a[0], d.MaxTorque)
	acc := float64(d.Gain*psin(th)) - float64(d.Damping*w) + float64(d.TorqueGain*u)
	w = clipTo(w+float64(d.DT*acc), d.MaxSpeed)
	out[0], out[1] = th+float64(d.DT*w), w
}

// Reward is r(s, a).
func (d *Damped) Reward(s, a []float64) float64 {
	u := clipTo(a[0], d.MaxTorque)
	return -(float64(s[0]*s[0]) + float64(float64(0.1*s[1])*s[1]) + float64(float64(0.001*u)*u))
}

// Init writes the first state of the episode of seed: θ and ω uniform,
// from two draws of SplitMix64 (53 bits each).
func (d *Damped) Init(seed uint64, s []float64) {
	x := seed
	u := func() float64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float64(z>>11) * 0x1p-53
	}
	u1 := u()
	u2 := u()
	s[0] = d.InitTheta * (2*u1 - 1)
	s[1] = d.InitSpeed * (2*u2 - 1)
}
