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
	p MountainCarConfig
}

func newMountainCar(c *config.Config) (*MDP, error) {
	p := *config.Section[MountainCarConfig](c, "env.mountain_car")
	mc := &mountainCar{p: p}
	def := []float64{max(p.NoiseStd[0], 1e-4), max(p.NoiseStd[1], 1e-5)}
	// rff input scales: half the position range, the speed limit, |a| ≤ 1.
	spec, err := LearnerSpec(c, def, 1, []float64{(p.MaxPosition - p.MinPosition) / 2, p.MaxSpeed, 1})
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
type mountainCarTask struct{ p MountainCarConfig }

func (mountainCarTask) Reward(_, a []float64) float64 { return -0.1 * a[0] * a[0] }
func (t mountainCarTask) Terminal(s []float64) (bool, float64) {
	if s[0] >= t.p.GoalPosition && s[1] >= t.p.GoalVelocity {
		return true, t.p.GoalReward
	}
	return false, 0
}
func (mountainCarTask) Terminates() bool { return true }

// MountainCarConfig is the section env.mountain_car: it configures env.kind mountain-car: Gymnasium's
// MountainCarContinuous-v0, with an optional Gaussian noise on the next
// (position, velocity).
type MountainCarConfig struct {
	Power        float64 `mapstructure:"power" yaml:"power" doc:"force per unit action"`
	MinPosition  float64 `mapstructure:"min_position" yaml:"min_position" doc:"lower bound of the position"`
	MaxPosition  float64 `mapstructure:"max_position" yaml:"max_position" doc:"upper bound of the position"`
	MaxSpeed     float64 `mapstructure:"max_speed" yaml:"max_speed" doc:"|velocity| <= max_speed"`
	GoalPosition float64 `mapstructure:"goal_position" yaml:"goal_position" doc:"terminal at position >= goal_position"`
	GoalVelocity float64 `mapstructure:"goal_velocity" yaml:"goal_velocity" doc:"and velocity >= goal_velocity"`
	GoalReward   float64 `mapstructure:"goal_reward" yaml:"goal_reward" doc:"reward on reaching the goal"`
	InitLow      float64 `mapstructure:"init_low" yaml:"init_low" doc:"position_1 ~ Unif[init_low, init_high], velocity_1 = 0"` // position_1 ~ Unif[init_low, init_high], velocity 0
	InitHigh     float64 `mapstructure:"init_high" yaml:"init_high" doc:"see init_low"`
	Noise        string  `mapstructure:"noise" yaml:"noise" doc:"none | normal: velocity' += N(0, noise_std[1]²), position' += N(0, noise_std[0]²), before the bounds"` // none | normal
	// NoiseStd is the standard deviation of the noise on (position, velocity).
	NoiseStd []float64 `mapstructure:"noise_std" yaml:"noise_std" doc:"standard deviations of the noise on (position, velocity)"`
}

// mountainCarKind registers env.kind mountain-car (see env.go's registry).
var mountainCarKind = Kind{Part: config.Part{Name: "mountain-car", Aliases: []config.Alias{{Name: "MountainCarContinuous-v0", Set: map[string]any{"env.horizon": 999, "env.action_space": "box", "env.action_low": []float64{-1}, "env.action_high": []float64{1}}}},
	Doc:     "Gymnasium's MountainCarContinuous-v0, state (position, velocity), force actions",
	Section: "env.mountain_car", Uses: []string{"model"}, Dim: 2, Validate: validateMountainCar,
	Defaults: &MountainCarConfig{Power: 0.0015, MinPosition: -1.2, MaxPosition: 0.6, MaxSpeed: 0.07,
		GoalPosition: 0.45, GoalVelocity: 0, GoalReward: 100, InitLow: -0.6, InitHigh: -0.4,
		Noise: "none", NoiseStd: []float64{0.001, 0.0001}}},
	Build: newMountainCar}

// validateMountainCar checks env.mountain_car and that the action is one
// number (the force).
func validateMountainCar(c *config.Config, bad config.Bad) {
	p := config.Section[MountainCarConfig](c, "env.mountain_car")
	physicsConstants(bad, "env.mountain_car", keyValue{"power", p.Power}, keyValue{"max_speed", p.MaxSpeed})
	for _, k := range []keyValue{{"min_position", p.MinPosition}, {"max_position", p.MaxPosition}, {"goal_position", p.GoalPosition},
		{"goal_velocity", p.GoalVelocity}, {"goal_reward", p.GoalReward}, {"init_low", p.InitLow}, {"init_high", p.InitHigh}} {
		if !finite(k.v) || math.Abs(k.v) > 1e6 {
			bad("env.mountain_car."+k.key, "must be a finite number with |value| <= 1e6, got %v", k.v)
		}
	}
	if !(p.MinPosition < p.MaxPosition) {
		bad("env.mountain_car.min_position", "must be below max_position = %v, got %v", p.MaxPosition, p.MinPosition)
	}
	if p.GoalPosition > p.MaxPosition {
		bad("env.mountain_car.goal_position", "must be at most max_position = %v (else the goal is never reached), got %v", p.MaxPosition, p.GoalPosition)
	}
	if p.GoalVelocity > p.MaxSpeed {
		bad("env.mountain_car.goal_velocity", "must be at most max_speed = %v (else the goal is never reached), got %v", p.MaxSpeed, p.GoalVelocity)
	}
	if !(p.MinPosition <= p.InitLow && p.InitLow <= p.InitHigh && p.InitHigh < p.GoalPosition) {
		bad("env.mountain_car.init_low", "want min_position <= init_low <= init_high < goal_position (s_1 must not be terminal), got [%v, %v]", p.InitLow, p.InitHigh)
	}
	validatePhysicsNoise(bad, "env.mountain_car", p.Noise, p.NoiseStd)
	if c.Env.ActionDim != 1 {
		bad("env.action_dim", "mountain-car has one action (the force), got action_dim %d", c.Env.ActionDim)
	}
}
