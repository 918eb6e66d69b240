package env

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/vmath"
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
// (noise: normal), drawn before the clip so that |θ̇| ≤ max_speed always;
// or (noise: mixture) ε_θ = 0 and ε_θ̇ = 3/(m l²)·ν·dt for a torque noise ν
// drawn from a mixture of Gaussians (pendulum_mixture.go): u + ν is the
// torque applied, bimodal for two separated components.
// Episodes never terminate (Gymnasium truncates them at 200 steps:
// env.horizon). θ_1 ~ Unif[−init_theta, init_theta], θ̇_1 ~
// Unif[−init_speed, init_speed].
type pendulum struct {
	p      PendulumConfig
	gain   float64 // 3g/(2l)
	torque float64 // 3/(m l²)
}

func newPendulum(c *config.Config) (*MDP, error) {
	p := *config.Section[PendulumConfig](c, "env.pendulum")
	pd := &pendulum{p: p, gain: 3 * p.Gravity / (2 * p.Length), torque: 3 / (p.Mass * p.Length * p.Length)}
	// The learners' noise scales: the noise on θ moves cos θ and sin θ by
	// about as much. (With noise: none they only set the ridge penalty
	// λσ⁴ of score matching and the width of sampled rollouts.)
	def := []float64{p.NoiseStd[0], p.NoiseStd[0], p.NoiseStd[1]}
	for i := range def {
		def[i] = max(def[i], 1e-3)
	}
	spec, err := LearnerSpec(c, def, 1, []float64{1, 1, p.MaxSpeed, p.MaxTorque})
	if err != nil {
		return nil, err
	}
	task := pendulumTask{maxTorque: p.MaxTorque}
	var stepRewards func(xs []float64, acts [][]float64, out, rw []float64)
	if !compilerFuses { // else the batch step might round unlike stepReward
		stepRewards = pd.stepRewards
	}
	var dyn Dynamics = &gaussianStep{step: pd.step, std: [2]float64(p.NoiseStd), noisy: p.Noise == "normal",
		stepReward: pd.stepReward, stepRewards: stepRewards, task: task}
	if p.Noise == "mixture" {
		dyn = newPendulumMixture(pd, dyn.(*gaussianStep))
	}
	return &MDP{
		Dim:      pendulumDim,
		Task:     task,
		Dynamics: dyn,
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
	pd.stepFrom(atan2(s[1], s[0]), s, a, eTheta, eSpeed, out)
}

// stepFrom is step given θ = atan2(s[1], s[0]).
func (pd *pendulum) stepFrom(th float64, s, a []float64, eTheta, eSpeed float64, out []float64) {
	p := &pd.p
	u := clip(a[0], p.MaxTorque)
	w := clip(s[2]+(pd.gain*math.Sin(th)+pd.torque*u)*p.DT+eSpeed, p.MaxSpeed)
	out[1], out[0] = math.Sincos(th + w*p.DT + eTheta)
	out[2] = w
}

// stepReward is the noise-free step and pendulumTask.Reward(s, a) with one
// atan2 (env.RewardStepper); out must not alias s.
func (pd *pendulum) stepReward(s, a, out []float64) float64 {
	th := atan2(s[1], s[0])
	r := pendulumReward(th, s, a, pd.p.MaxTorque)
	pd.stepFrom(th, s, a, 0, 0, out)
	return r
}

// stepRewards is stepReward for a batch of states (env.BatchRewardStepper),
// 64 at a time: their angles by atan2s, sin θ by vmath.Sins and the next
// (sin θ', cos θ') by vmath.Sincoss, each in vector lanes; the rest is
// stepFrom's and pendulumReward's arithmetic, state by state.
func (pd *pendulum) stepRewards(xs []float64, acts [][]float64, out, rw []float64) {
	const batch = 64
	p := &pd.p
	var y, x, th, sin, next [batch]float64
	for k0 := 0; k0 < len(rw); k0 += batch {
		n := min(batch, len(rw)-k0)
		pendulumAngles(xs[k0*pendulumDim:], y[:n], x[:n], th[:n])
		vmath.Sins(sin[:n], th[:n])
		for k := range n {
			s, a := xs[(k0+k)*pendulumDim:][:pendulumDim], acts[k0+k]
			rw[k0+k] = pendulumReward(th[k], s, a, p.MaxTorque)
			// stepFrom with no noise: the same expressions, eSpeed and
			// eTheta 0 added (x + 0 is not x for x = −0).
			u := clip(a[0], p.MaxTorque)
			w := clip(s[2]+(pd.gain*sin[k]+pd.torque*u)*p.DT+0, p.MaxSpeed)
			next[k] = th[k] + w*p.DT + 0
			out[(k0+k)*pendulumDim+2] = w
		}
		// The next observation's sin θ' and cos θ', in place of y and x.
		vmath.Sincoss(y[:n], x[:n], next[:n])
		for k := range n {
			o := out[(k0+k)*pendulumDim:]
			o[1], o[0] = y[k], x[k]
		}
	}
}

func clip(x, m float64) float64 { return min(max(x, -m), m) }

// pendulumDim is the dimension of the pendulum's observation (cos θ, sin θ, θ̇).
const pendulumDim = 3

// pendulumTask is Gymnasium's cost, negated, on the observation.
type pendulumTask struct{ maxTorque float64 }

func (t pendulumTask) Reward(s, a []float64) float64 {
	return pendulumReward(atan2(s[1], s[0]), s, a, t.maxTorque)
}

// Rewards is Reward for a batch of states (env.BatchRewarder): their angles
// by atan2s, 64 at a time.
func (t pendulumTask) Rewards(xs []float64, acts [][]float64, out []float64) {
	const batch = 64
	var sin, cos, th [batch]float64
	for t0 := 0; t0 < len(out); t0 += batch {
		n := min(batch, len(out)-t0)
		pendulumAngles(xs[t0*pendulumDim:], sin[:n], cos[:n], th[:n])
		for k := range n {
			out[t0+k] = pendulumReward(th[k], xs[(t0+k)*pendulumDim:], acts[t0+k], t.maxTorque)
		}
	}
}

// pendulumAngles sets th[k] = atan2(sin θ, cos θ) of the k-th observation
// laid end to end in xs, for k < len(th), by atan2s (sin and cos are its
// scratch, as long as th).
func pendulumAngles(xs, sin, cos, th []float64) {
	for k := range th {
		s := xs[k*pendulumDim:]
		sin[k], cos[k] = s[1], s[0]
	}
	atan2s(sin, cos, th)
}

// pendulumReward is r(s, a) given θ = atan2(s[1], s[0]).
func pendulumReward(th float64, s, a []float64, maxTorque float64) float64 {
	u := clip(a[0], maxTorque)
	return -(th*th + 0.1*s[2]*s[2] + 0.001*u*u)
}
func (pendulumTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (pendulumTask) Terminates() bool                   { return false }

// PendulumConfig is the section env.pendulum: it configures env.kind pendulum: Gymnasium's Pendulum-v1, with an
// optional Gaussian noise on the next (θ, θ̇).
type PendulumConfig struct {
	Gravity   float64 `mapstructure:"gravity" yaml:"gravity" doc:"g"`
	Mass      float64 `mapstructure:"mass" yaml:"mass" doc:"the pendulum's mass"`
	Length    float64 `mapstructure:"length" yaml:"length" doc:"its length"`
	DT        float64 `mapstructure:"dt" yaml:"dt" doc:"Euler step (s)"`
	MaxSpeed  float64 `mapstructure:"max_speed" yaml:"max_speed" doc:"|θ̇| is clipped to max_speed"`
	MaxTorque float64 `mapstructure:"max_torque" yaml:"max_torque" doc:"u = clip(a, ±max_torque)"`
	InitTheta float64 `mapstructure:"init_theta" yaml:"init_theta" doc:"θ_1 ~ Unif[−init_theta, init_theta]"`                                                                                                                                       // θ_1 ~ Unif[−init_theta, init_theta]
	InitSpeed float64 `mapstructure:"init_speed" yaml:"init_speed" doc:"θ̇_1 ~ Unif[−init_speed, init_speed]"`                                                                                                                                      // θ̇_1 ~ Unif[−init_speed, init_speed]
	Noise     string  `mapstructure:"noise" yaml:"noise" doc:"none | normal: θ̇' += N(0, noise_std[1]²) before its clip, θ' += N(0, noise_std[0]²) | mixture: the torque u += ε, ε ~ Σ_j mixture_weights[j] N(mixture_means[j], mixture_stds[j]²)"` // none | normal | mixture
	// NoiseStd is the standard deviation of the noise on (θ, θ̇).
	NoiseStd []float64 `mapstructure:"noise_std" yaml:"noise_std" doc:"standard deviations of the noise on (θ, θ̇)"`
	// MixtureWeights, MixtureMeans and MixtureStds are the components of
	// the torque noise of noise: mixture (pendulum_mixture.go).
	MixtureWeights []float64 `mapstructure:"mixture_weights" yaml:"mixture_weights" doc:"noise: mixture: the components' weights (each > 0, summing to 1)"`
	MixtureMeans   []float64 `mapstructure:"mixture_means" yaml:"mixture_means" doc:"noise: mixture: the components' means (N·m of torque)"`
	MixtureStds    []float64 `mapstructure:"mixture_stds" yaml:"mixture_stds" doc:"noise: mixture: the components' standard deviations (each > 0)"`
}

// pendulumKind registers env.kind pendulum (see env.go's registry).
var pendulumKind = Kind{Part: config.Part{Name: "pendulum", Aliases: []config.Alias{{Name: "Pendulum-v1", Set: map[string]any{"env.horizon": 200, "env.action_space": "box", "env.action_low": []float64{-2}, "env.action_high": []float64{2}}}},
	Doc:     "Gymnasium's Pendulum-v1 swing-up, state (cos θ, sin θ, θ̇), torque actions",
	Section: "env.pendulum", Uses: []string{"model"}, Dim: pendulumDim, Validate: validatePendulum,
	Defaults: &PendulumConfig{Gravity: 10, Mass: 1, Length: 1, DT: 0.05, MaxSpeed: 8, MaxTorque: 2,
		InitTheta: math.Pi, InitSpeed: 1, Noise: "none", NoiseStd: []float64{0.01, 0.1},
		MixtureWeights: []float64{0.5, 0.5}, MixtureMeans: []float64{-1, 1}, MixtureStds: []float64{0.2, 0.2}}},
	Build: newPendulum}

// validatePendulum checks env.pendulum and that the action is one number
// (the torque).
func validatePendulum(c *config.Config, bad config.Bad) {
	p := config.Section[PendulumConfig](c, "env.pendulum")
	physicsConstants(bad, "env.pendulum", keyValue{"gravity", p.Gravity}, keyValue{"mass", p.Mass}, keyValue{"length", p.Length},
		keyValue{"dt", p.DT}, keyValue{"max_speed", p.MaxSpeed}, keyValue{"max_torque", p.MaxTorque})
	stepBounds(bad, "env.pendulum", p.DT, p.Gravity)
	if !(p.InitTheta >= 0) || p.InitTheta > math.Pi {
		bad("env.pendulum.init_theta", "must lie in [0, π], got %v", p.InitTheta)
	}
	if !(p.InitSpeed >= 0) || !(p.InitSpeed <= p.MaxSpeed) {
		bad("env.pendulum.init_speed", "must lie in [0, max_speed = %v], got %v", p.MaxSpeed, p.InitSpeed)
	}
	noise := p.Noise
	switch noise {
	case "mixture": // the pendulum's own kind; its keys are checked here
		noise = "none"
		validateMixture(bad, "env.pendulum", p.MixtureWeights, p.MixtureMeans, p.MixtureStds)
	case "none", "normal":
	default:
		bad("env.pendulum.noise", "unknown noise %q (known: none, normal, mixture)", noise)
		noise = "none"
	}
	validatePhysicsNoise(bad, "env.pendulum", noise, p.NoiseStd)
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "pendulum has one action (the torque), got action_dim %d", c.Env.ActionDim)
	}
}
