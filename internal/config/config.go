// Package config loads smrl's YAML experiment configs.
//
// Precedence, highest first: command-line flags, SMRL_* environment
// variables (SMRL_EPISODES, SMRL_PLANNER_N_ROLLOUTS: the key path upper-cased
// with dots as underscores), the --config file, and the embedded defaults
// (default.yaml: the paper's settings). Unknown keys in a file are errors
// that name the key, the file and the line; values are validated with
// messages that name the key.
package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

//go:embed default.yaml
var defaultYAML []byte

// Default returns the embedded default config file (the paper's settings).
func Default() []byte { return slices.Clone(defaultYAML) }

// Config is a fully resolved experiment.
type Config struct {
	Name       string     `mapstructure:"name" yaml:"name"`
	Seed       uint64     `mapstructure:"seed" yaml:"seed"`
	Seeds      int        `mapstructure:"seeds" yaml:"seeds"`
	Episodes   int        `mapstructure:"episodes" yaml:"episodes"`
	Workers    int        `mapstructure:"workers" yaml:"workers"`
	Lambda     float64    `mapstructure:"lambda" yaml:"lambda"`
	Agents     []string   `mapstructure:"agents" yaml:"agents"`
	Env        Env        `mapstructure:"env" yaml:"env"`
	Model      Model      `mapstructure:"model" yaml:"model"`
	Planner    Planner    `mapstructure:"planner" yaml:"planner"`
	LDS        LDS        `mapstructure:"lds" yaml:"lds"`
	Confidence Confidence `mapstructure:"confidence" yaml:"confidence"`
	Estimate   Estimate   `mapstructure:"estimate" yaml:"estimate"`
}

// Env describes the MDP. Kind "expfam" is an exponential-family transition
// with a known reward on states (the paper's); the other kinds are physical
// systems with their own sections.
type Env struct {
	Kind        string      `mapstructure:"kind" yaml:"kind"`
	Horizon     int         `mapstructure:"horizon" yaml:"horizon"`
	InitLow     float64     `mapstructure:"init_low" yaml:"init_low"`
	InitHigh    float64     `mapstructure:"init_high" yaml:"init_high"`
	Family      Family      `mapstructure:"family" yaml:"family"`
	Features    Features    `mapstructure:"features" yaml:"features"`
	W0          [][]float64 `mapstructure:"w0" yaml:"w0"`
	ActionDim   int         `mapstructure:"action_dim" yaml:"action_dim"`
	ActionSpace string      `mapstructure:"action_space" yaml:"action_space"`
	Actions     []float64   `mapstructure:"actions" yaml:"actions"`
	ActionLow   []float64   `mapstructure:"action_low" yaml:"action_low"`
	ActionHigh  []float64   `mapstructure:"action_high" yaml:"action_high"`
	Reward      Reward      `mapstructure:"reward" yaml:"reward"`
	// Terminal is a boolean expression of s0, s1, …: the states that end
	// an episode ("" none), with TerminalReward collected on entering one
	// (see validate_expr.go).
	Terminal       string      `mapstructure:"terminal" yaml:"terminal,omitempty"`
	TerminalReward float64     `mapstructure:"terminal_reward" yaml:"terminal_reward,omitempty"`
	CartPole       CartPole    `mapstructure:"cartpole" yaml:"cartpole"`
	Pendulum       Pendulum    `mapstructure:"pendulum" yaml:"pendulum"`
	MountainCar    MountainCar `mapstructure:"mountain_car" yaml:"mountain_car"`
}

// CartPole configures env.kind cartpole: the Barto–Sutton–Anderson cart-pole
// (Gym's CartPole constants, explicit Euler) with the noise variants of the
// SMRL authors' code.
type CartPole struct {
	Gravity        float64 `mapstructure:"gravity" yaml:"gravity"`
	MassCart       float64 `mapstructure:"mass_cart" yaml:"mass_cart"`
	MassPole       float64 `mapstructure:"mass_pole" yaml:"mass_pole"`
	Length         float64 `mapstructure:"length" yaml:"length"` // half the pole's length
	ForceMag       float64 `mapstructure:"force_mag" yaml:"force_mag"`
	DT             float64 `mapstructure:"dt" yaml:"dt"`
	XThreshold     float64 `mapstructure:"x_threshold" yaml:"x_threshold"`
	ThetaThreshold float64 `mapstructure:"theta_threshold" yaml:"theta_threshold"`
	Init           float64 `mapstructure:"init" yaml:"init"`               // s_1 ~ Unif(−init, init)^4
	Noise          string  `mapstructure:"noise" yaml:"noise"`             // none | action_flip | next_state
	FlipProb       float64 `mapstructure:"flip_prob" yaml:"flip_prob"`     // action_flip
	Density        string  `mapstructure:"density" yaml:"density"`         // next_state: normal | exp | custom-sin | mog
	NoiseScale     float64 `mapstructure:"noise_scale" yaml:"noise_scale"` // σ_i = noise_scale · c_i
	MogWidth       float64 `mapstructure:"mog_width" yaml:"mog_width"`     // mog: second component at σ_0·width
	// CustomSinBase is the scale of the custom-sin noise's base measure:
	// "unit", exp(−ε²/2) as in the authors' code, or "sigma", exp(−ε²/(2σ_i²)).
	CustomSinBase string `mapstructure:"custom_sin_base" yaml:"custom_sin_base"`
}

// Pendulum configures env.kind pendulum: Gymnasium's Pendulum-v1, with an
// optional Gaussian noise on the next (θ, θ̇).
type Pendulum struct {
	Gravity   float64 `mapstructure:"gravity" yaml:"gravity"`
	Mass      float64 `mapstructure:"mass" yaml:"mass"`
	Length    float64 `mapstructure:"length" yaml:"length"`
	DT        float64 `mapstructure:"dt" yaml:"dt"`
	MaxSpeed  float64 `mapstructure:"max_speed" yaml:"max_speed"`
	MaxTorque float64 `mapstructure:"max_torque" yaml:"max_torque"`
	InitTheta float64 `mapstructure:"init_theta" yaml:"init_theta"` // θ_1 ~ Unif[−init_theta, init_theta]
	InitSpeed float64 `mapstructure:"init_speed" yaml:"init_speed"` // θ̇_1 ~ Unif[−init_speed, init_speed]
	Noise     string  `mapstructure:"noise" yaml:"noise"`           // none | normal
	// NoiseStd is the standard deviation of the noise on (θ, θ̇).
	NoiseStd []float64 `mapstructure:"noise_std" yaml:"noise_std"`
}

// MountainCar configures env.kind mountain-car: Gymnasium's
// MountainCarContinuous-v0, with an optional Gaussian noise on the next
// (position, velocity).
type MountainCar struct {
	Power        float64 `mapstructure:"power" yaml:"power"`
	MinPosition  float64 `mapstructure:"min_position" yaml:"min_position"`
	MaxPosition  float64 `mapstructure:"max_position" yaml:"max_position"`
	MaxSpeed     float64 `mapstructure:"max_speed" yaml:"max_speed"`
	GoalPosition float64 `mapstructure:"goal_position" yaml:"goal_position"`
	GoalVelocity float64 `mapstructure:"goal_velocity" yaml:"goal_velocity"`
	GoalReward   float64 `mapstructure:"goal_reward" yaml:"goal_reward"`
	InitLow      float64 `mapstructure:"init_low" yaml:"init_low"` // position_1 ~ Unif[init_low, init_high], velocity 0
	InitHigh     float64 `mapstructure:"init_high" yaml:"init_high"`
	Noise        string  `mapstructure:"noise" yaml:"noise"` // none | normal
	// NoiseStd is the standard deviation of the noise on (position, velocity).
	NoiseStd []float64 `mapstructure:"noise_std" yaml:"noise_std"`
}

// Model configures the learners' model in the physical environments (in
// env.kind expfam the learners use the true family and features): a product
// of per-coordinate families for s' with features phi(s, a).
type Model struct {
	Family   []string  `mapstructure:"family" yaml:"family"` // per coordinate, or one for all: a name of Families
	Sigma    []float64 `mapstructure:"sigma" yaml:"sigma"`   // per-coordinate base scale; empty: the environment's noise scales
	Alpha    float64   `mapstructure:"alpha" yaml:"alpha"`   // custom-sin: q(x) = exp(−|x|^alpha/alpha)
	Features Features  `mapstructure:"features" yaml:"features"`
	// KinkBandwidth is the kernel bandwidth of the score-matching kink term
	// of the relu families, in units of the coordinate's base scale (0: the
	// kink is ignored, as in the authors' estimator).
	KinkBandwidth float64 `mapstructure:"kink_bandwidth" yaml:"kink_bandwidth"`
	// Kink is how score matching treats the kink of the relu families:
	// "weighted", a weight vanishing at the kink (generalised SM, consistent);
	// "kernel", the kernel estimate of its δ term (bandwidth KinkBandwidth);
	// "none", ignored (the authors' estimator).
	Kink string `mapstructure:"kink" yaml:"kink"`
	// WeightCap is the cap C of the score-matching weights min(d/C, 1)^p
	// (d the distance to a kink or the boundary of the support): in units of
	// σ for relu, relu-mog and truncated-gaussian, of x for exponential and
	// gamma, absolute for beta; 0 is each family's default (1, 1, 1, 0.5).
	WeightCap float64 `mapstructure:"weight_cap" yaml:"weight_cap"`
	// Target is what the learners model: "next", s', or "delta", s' − s.
	Target string `mapstructure:"target" yaml:"target"`
	// InputScale divides each coordinate of (s, a) before rff features
	// (empty: the environment's scales), so one length fits every input.
	InputScale []float64 `mapstructure:"input_scale" yaml:"input_scale"`
	// LDSFeatures are the LDS agent's features: "linear" [s, a], "affine"
	// [s, a, 1], or "model", the other learners' model.features.
	LDSFeatures string `mapstructure:"lds_features" yaml:"lds_features"`
	// Expression defines the coordinates of model.family "expression": one
	// family for all of them, or one per such coordinate in order.
	Expression []ExprFamily `mapstructure:"expression" yaml:"expression,omitempty"`
}

// Family selects the transition family.
type Family struct {
	Kind  string  `mapstructure:"kind" yaml:"kind"`
	Freq  float64 `mapstructure:"freq" yaml:"freq"`
	Alpha float64 `mapstructure:"alpha" yaml:"alpha"`
	Dim   int     `mapstructure:"dim" yaml:"dim"`
	Sigma float64 `mapstructure:"sigma" yaml:"sigma"`
	// Low and High are the support [low, high] of the truncated-gaussian
	// family (env.family and model.family).
	Low  float64 `mapstructure:"low" yaml:"low"`
	High float64 `mapstructure:"high" yaml:"high"`
	// Kind expression: log q, psi and the support for every coordinate,
	// or Coords, one family per coordinate (see validate_expr.go).
	LogQ    string       `mapstructure:"log_q" yaml:"log_q,omitempty"`
	Psi     []string     `mapstructure:"psi" yaml:"psi,omitempty"`
	Support []float64    `mapstructure:"support" yaml:"support,omitempty"`
	Coords  []ExprFamily `mapstructure:"coords" yaml:"coords,omitempty"`
}

// ExprFamily is a one-dimensional family written as expressions of x:
// q(x) = exp(log_q), statistics psi, support [lo, hi] (empty: the real line).
type ExprFamily struct {
	LogQ    string    `mapstructure:"log_q" yaml:"log_q"`
	Psi     []string  `mapstructure:"psi" yaml:"psi"`
	Support []float64 `mapstructure:"support" yaml:"support,omitempty"`
}

// Features selects phi.
type Features struct {
	Kind   string  `mapstructure:"kind" yaml:"kind"`
	Dim    int     `mapstructure:"dim" yaml:"dim"`
	Length float64 `mapstructure:"length" yaml:"length"`
	Seed   uint64  `mapstructure:"seed" yaml:"seed"`
	// Phi lists the features of kind expression, expressions of s0, s1, …
	// and a0, a1, ….
	Phi []string `mapstructure:"phi" yaml:"phi,omitempty"`
}

// Reward is r(s) = Σ_k exp(−width·|s − c_k|²).
type Reward struct {
	Width   float64   `mapstructure:"width" yaml:"width"`
	Centers []float64 `mapstructure:"centers" yaml:"centers"`
	// Expression, when set, is r(s, a) as an expression of s0, s1, … and
	// a0, a1, … instead of the bumps.
	Expression string `mapstructure:"expression" yaml:"expression,omitempty"`
}

// Planner configures the planner every agent plans with: Kind selects the
// method (rss, cem, mppi); Tau, NRollouts, CRN and Rollout define the
// objective all methods share, the mean return of a rollout of τ states.
type Planner struct {
	Kind       string `mapstructure:"kind" yaml:"kind"`
	Mode       string `mapstructure:"mode" yaml:"mode"`
	NRollouts  int    `mapstructure:"n_rollouts" yaml:"n_rollouts"`
	Tau        int    `mapstructure:"tau" yaml:"tau"`
	NSequences int    `mapstructure:"n_sequences" yaml:"n_sequences"`
	CRN        bool   `mapstructure:"common_random_numbers" yaml:"common_random_numbers"`
	// Rollout is how rollouts draw next states: "sample" from the model, or
	// "mean", the model's mean next state (the authors' "deterministic").
	Rollout string `mapstructure:"rollout" yaml:"rollout"`
	CEM     CEM    `mapstructure:"cem" yaml:"cem"`
	MPPI    MPPI   `mapstructure:"mppi" yaml:"mppi"`
}

// CEM configures the cross-entropy method (planner.kind cem).
type CEM struct {
	Population int     `mapstructure:"population" yaml:"population"` // N, sequences per iteration
	Elites     int     `mapstructure:"elites" yaml:"elites"`         // K, the best sequences refitted to
	Iterations int     `mapstructure:"iterations" yaml:"iterations"`
	Alpha      float64 `mapstructure:"alpha" yaml:"alpha"` // smoothing: new = α·old + (1 − α)·elite statistic
	// InitStd is the initial standard deviation of every action, in units
	// of the box's half-width.
	InitStd float64 `mapstructure:"init_std" yaml:"init_std"`
	// Beta is the exponent of iCEM's coloured noise, power ∝ 1/f^β along
	// the sequence (0: white noise, plain CEM).
	Beta float64 `mapstructure:"beta" yaml:"beta"`
}

// MPPI configures model predictive path integral control (planner.kind
// mppi).
type MPPI struct {
	Samples     int     `mapstructure:"samples" yaml:"samples"`         // K, perturbed sequences per decision
	Temperature float64 `mapstructure:"temperature" yaml:"temperature"` // λ, in units of the return
	// NoiseStd is the standard deviation of the perturbations, in units of
	// the box's half-width.
	NoiseStd float64 `mapstructure:"noise_std" yaml:"noise_std"`
}

// LDS configures the LDS agent's model.
type LDS struct {
	Sigma float64 `mapstructure:"sigma" yaml:"sigma"`
}

// Confidence configures the confidence sets of the optimistic (-ucb) and
// posterior-sampling (-ps) agents:
//
//	W_k = {W : |vec(W − Ŵ_k)|_{A_k} ≤ β_k}
//
// with A_k the precision of the agent's fit (V_k + λI; (G + λI)/σ² for the
// LDS agent) and β_k from the paper's theorem (Beta "theory", eq.
// conf-set) or the practical form β_k = Scale·sqrt(log det(V_k/λ + I) +
// 2 log(1/δ)).
type Confidence struct {
	Beta  string  `mapstructure:"beta" yaml:"beta"`   // "practical" or "theory"
	Scale float64 `mapstructure:"scale" yaml:"scale"` // c of the practical β
	Delta float64 `mapstructure:"delta" yaml:"delta"` // δ, in (0, 1)
	// The constants of the theory β, each a number or "auto" (derived from
	// the agent's model family where the paper allows it).
	BPsi   Auto `mapstructure:"b_psi" yaml:"b_psi"`   // ξ(s') + C(s')W0 phi is B_psi-subgaussian
	BC     Auto `mapstructure:"b_c" yaml:"b_c"`       // C(s')W0 phi is B_c-subgaussian
	Alpha1 Auto `mapstructure:"alpha1" yaml:"alpha1"` // C(s') ⪰ α₁ I
	// BStar bounds |W0|_F: it enters the theory β as sqrt(λ)·B_star, and
	// candidate and posterior parameters are kept in the ball |W|_F ≤
	// max(B_star, |Ŵ|_F).
	BStar float64 `mapstructure:"b_star" yaml:"b_star"`
	// Lambda is the -ucb agents' λ: "shared" (the top-level lambda) or
	// "theorem" (1/b_star², the choice of the paper's regret theorem).
	Lambda     string `mapstructure:"lambda" yaml:"lambda"`
	Candidates int    `mapstructure:"candidates" yaml:"candidates"` // M, boundary draws per episode (-ucb)
	Choice     string `mapstructure:"choice" yaml:"choice"`         // "episode" or "step" (-ucb)
	// Value is how choice "episode" scores a candidate at s_1: "lookahead"
	// (the planner's value of its best action) or "rollout" (the reward of
	// an H-step episode simulated under the candidate with the planner).
	Value string `mapstructure:"value" yaml:"value"`
	// PosteriorScale is ν of the -ps agents: W ~ N(Ŵ, ν² A⁻¹) truncated to
	// the ball.
	PosteriorScale float64 `mapstructure:"posterior_scale" yaml:"posterior_scale"`
}

// Auto is a number or the word "auto" (derive the value). It is decoded
// from a YAML number or string and written back as a number when it is
// one.
type Auto string

// AutoWord is the value of an Auto that asks for a derived value.
const AutoWord = "auto"

// Float returns the number, or auto = true for "auto"; err when the value
// is neither.
func (a Auto) Float() (v float64, auto bool, err error) {
	if a == AutoWord {
		return 0, true, nil
	}
	v, err = strconv.ParseFloat(strings.TrimSpace(string(a)), 64)
	if err != nil {
		return 0, false, fmt.Errorf("must be %s or a number, got %q", AutoWord, string(a))
	}
	return v, false, nil
}

// MarshalYAML writes a number as a number and "auto" as a string.
func (a Auto) MarshalYAML() (any, error) {
	if v, auto, err := a.Float(); err == nil && !auto {
		return v, nil
	}
	return string(a), nil
}

// Estimate configures smrl estimate.
type Estimate struct {
	N       int   `mapstructure:"n" yaml:"n"`
	Repeats int   `mapstructure:"repeats" yaml:"repeats"`
	SweepN  []int `mapstructure:"sweep_n" yaml:"sweep_n"`
}

// Options says where a config comes from.
type Options struct {
	// Path is the --config file; empty for the embedded defaults only.
	Path string
	// Flags maps config keys ("episodes", "planner.tau") to flags whose
	// values override them when set on the command line.
	Flags map[string]*pflag.Flag
	// Environ is the environment (os.Environ() form); nil means none.
	Environ []string
	// IgnoreAgents skips the checks of the agents and of what only they
	// need (smrl estimate runs no agent).
	IgnoreAgents bool
	// Warn, when not nil, receives one-line warnings and notes: an SMRL_*
	// variable that is no config key (with the closest key), or a flag that
	// overrides the agents a config file or variable lists.
	Warn func(msg string)
	// Sweep receives the sweep: section of the file (smrl sweep's grid:
	// its key and value nodes); without it, a file with that section is an
	// error.
	Sweep func(key, value *yaml.Node) error
	// Point sets keys above every other source (a grid point of smrl
	// sweep). A key that an SMRL_* variable or a flag also sets is an
	// error: the two would contradict each other.
	Point []Setting
	// NoValidate skips the validation of the resolved config (the base
	// config of smrl sweep, which only its grid points must make valid).
	NoValidate bool
}

// NonConfigEnv are the SMRL_* variables that smrl (or its tests) reads
// other than config keys; they are not reported as misspelt keys.
var NonConfigEnv = []string{"SMRL_SHARD_COUNT", "SMRL_REPRODUCE", "SMRL_PLOTCHECK_DIR", "SMRL_CACHE_DIR", "SMRL_TABLE_SURVEY"}

// noteOverride lists the keys for which a flag that overrides the file's or
// the environment's value is worth a note: the agents decide what runs.
var noteOverride = []string{"agents"}

// Load resolves a config. Every error wraps errs.ErrInvalidInput.
func Load(opt Options) (*Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(defaultYAML)); err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	source := "config"
	// sources records where each key that is not a default was set: the
	// file, an SMRL_* variable or a flag, so that a bad value is reported
	// against it.
	sources := map[string]string{}
	if opt.Path != "" {
		data, err := os.ReadFile(opt.Path)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("reading config: %w", err))
		}
		if err := oneDocument(opt.Path, data); err != nil {
			return nil, err
		}
		data, sk, sv, err := cutSection(opt.Path, data, SweepSection)
		if err != nil {
			return nil, err
		}
		if sk != nil && opt.Sweep == nil {
			return nil, errs.Invalid(fmt.Errorf("%s line %d: the %s: section is a grid for smrl sweep: run it with smrl sweep --config %s", opt.Path, sk.Line, SweepSection, opt.Path))
		}
		if sk != nil {
			if err := opt.Sweep(sk, sv); err != nil {
				return nil, err
			}
		}
		keys, err := checkKnownKeys(opt.Path, data)
		if err != nil {
			return nil, err
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %w", opt.Path, err))
		}
		source = opt.Path
		for _, k := range keys {
			sources[k] = opt.Path
		}
	}
	for _, kv := range opt.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "SMRL_") {
			continue
		}
		key := envKey(v, strings.TrimPrefix(name, "SMRL_"))
		if key == "" {
			if opt.Warn != nil && !slices.Contains(NonConfigEnv, name) {
				opt.Warn(misspeltEnv(v, name))
			}
			continue
		}
		x, err := parseEnv(fieldType(key), val)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s=%q: %s %v", name, val, key, err))
		}
		v.Set(key, x)
		sources[key] = name
	}
	// Flags last: viper's Set has the highest precedence, so later Sets win.
	for key, f := range opt.Flags {
		if f == nil || !f.Changed {
			continue
		}
		var x any = f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			x = sv.GetSlice()
		}
		if prev, ok := sources[key]; ok && opt.Warn != nil && slices.Contains(noteOverride, key) {
			if old := fmt.Sprint(v.Get(key)); old != fmt.Sprint(x) {
				opt.Warn(fmt.Sprintf("note: --%s %s overrides %s = %s from %s", f.Name, strings.Join(toStrings(x), ","), key, old, prev))
			}
		}
		v.Set(key, x)
		sources[key] = "--" + f.Name
	}
	for _, s := range opt.Point {
		if prev, ok := sources[s.Key]; ok && prev != opt.Path {
			return nil, errs.Invalid(fmt.Errorf("%s sweeps %s, which %s also sets: give it in one place", s.Source, s.Key, prev))
		}
		v.Set(s.Key, s.Value)
		sources[s.Key] = s.Source
	}
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %s", source, strings.Join(strings.Fields(err.Error()), " ")))
	}
	if opt.NoValidate {
		return &c, nil
	}
	if err := c.validate(!opt.IgnoreAgents); err != nil {
		return nil, errs.Invalid(attribute(err, opt.Path, sources))
	}
	return &c, nil
}

func toStrings(x any) []string {
	if l, ok := x.([]string); ok {
		return l
	}
	return []string{fmt.Sprint(x)}
}

// misspeltEnv is the warning for an SMRL_* variable that names no config
// key, with the closest variable that does.
func misspeltEnv(v *viper.Viper, name string) string {
	var cands []string
	for _, k := range v.AllKeys() {
		cands = append(cands, "SMRL_"+strings.ToUpper(strings.ReplaceAll(k, ".", "_")))
	}
	return fmt.Sprintf("warning: %s is not a config key and is ignored; did you mean %s?", name, closest(name, cands))
}

// closest returns the candidate nearest to name in edit distance (the
// first of equals), for "did you mean" hints.
func closest(name string, cands []string) string {
	best, dist := "", -1
	for _, c := range cands {
		if d := editDistance(name, c); dist < 0 || d < dist {
			best, dist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// envKey maps an environment suffix such as PLANNER_N_ROLLOUTS to the known
// key planner.n_rollouts, or "" when no key matches.
func envKey(v *viper.Viper, suffix string) string {
	want := strings.ToLower(suffix)
	for _, k := range v.AllKeys() {
		if strings.ReplaceAll(k, ".", "_") == want {
			return k
		}
	}
	return ""
}

// fieldType returns the Go type of the Config field at a dotted key path
// ("planner.tau"), found through the mapstructure tags; nil if none.
func fieldType(key string) reflect.Type {
	t := reflect.TypeOf(Config{})
	for _, part := range strings.Split(key, ".") {
		if t.Kind() != reflect.Struct {
			return nil
		}
		var next reflect.Type
		for i := 0; i < t.NumField(); i++ {
			if strings.Split(t.Field(i).Tag.Get("mapstructure"), ",")[0] == part {
				next = t.Field(i).Type
			}
		}
		if next == nil {
			return nil
		}
		t = next
	}
	return t
}

// parseEnv converts an environment value to the type of its Config field,
// so a malformed number is reported against its variable. Lists are
// comma-separated (SMRL_AGENTS=sm,lds, SMRL_ENV_ACTIONS=1,-1) or YAML flow
// sequences (SMRL_ENV_W0='[[1, -1]]').
func parseEnv(t reflect.Type, val string) (any, error) {
	val = strings.TrimSpace(val)
	if t == nil {
		return val, nil
	}
	if t.Kind() == reflect.Slice && strings.HasPrefix(val, "[") {
		n, err := flowNode(t, val)
		if err != nil {
			return nil, err
		}
		if err := checkNode(n, t, ""); err != nil {
			var le *LineError
			if errors.As(err, &le) {
				err = errors.New(le.Msg) // the line of a one-line value says nothing
			}
			return nil, fmt.Errorf("must be a list such as %s: %v", flowExample(t), err)
		}
		out := reflect.New(t)
		if err := n.Decode(out.Interface()); err != nil {
			return nil, fmt.Errorf("must be a list such as %s", flowExample(t))
		}
		return out.Elem().Interface(), nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("must be an integer")
		}
		return n, nil
	case reflect.Uint64:
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("must be a non-negative integer")
		}
		return n, nil
	case reflect.Float64:
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, fmt.Errorf("must be a number")
		}
		return x, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return nil, fmt.Errorf("must be true or false")
		}
		return b, nil
	case reflect.Slice:
		parts := strings.Split(val, ",")
		if t.Elem().Kind() == reflect.Slice {
			return nil, fmt.Errorf("must be a list of lists such as %s", example(t))
		}
		out := reflect.MakeSlice(t, 0, len(parts))
		for _, p := range parts {
			x, err := parseEnv(t.Elem(), p)
			if err != nil {
				return nil, fmt.Errorf("entry %q: %v", strings.TrimSpace(p), err)
			}
			out = reflect.Append(out, reflect.ValueOf(x).Convert(t.Elem()))
		}
		return out.Interface(), nil
	}
	return val, nil
}

// flowNode parses val, a YAML flow sequence such as [[1, -1]] for a list
// of type t, into its node. Text after the sequence ("[[1]]junk", "[1]]",
// "[[1]];[[2]]", a second document) is an error: yaml.Unmarshal would drop
// it.
func flowNode(t reflect.Type, val string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(strings.NewReader(val))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("must be a list such as %s", flowExample(t))
	}
	var rest yaml.Node
	if err := dec.Decode(&rest); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("must be one list such as %s, with nothing after its closing bracket", flowExample(t))
	}
	return doc.Content[0], nil
}

// example shows a value of list type t for a message.
func example(t reflect.Type) string {
	switch {
	case t.Elem().Kind() == reflect.Slice:
		return "'[[1, 0.5]]'"
	case t.Elem().Kind() == reflect.String:
		return "a,b"
	}
	return "1,2"
}

// flowExample shows a value of list type t as a YAML flow sequence.
func flowExample(t reflect.Type) string {
	switch t.Elem().Kind() {
	case reflect.Slice:
		return "[[1, 0.5]]"
	case reflect.String:
		return "[a, b]"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "[1, 2]"
	}
	return "[1, 0.5]"
}

// attribute prefixes each validation problem ("key: message") with where
// its key was set: a flag, an SMRL_* variable or the file. A key that
// keeps its embedded default (the problem lies in its combination with
// keys set elsewhere) says so instead.
func attribute(err error, file string, sources map[string]string) error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, len(list))
	for i, p := range list {
		key, _, _ := strings.Cut(p.Error(), ":")
		src, ok := sources[key]
		if !ok {
			// A check of several keys is reported on one of them: name
			// where the others it mentions were set.
			src, ok = relatedSources(key, p.Error(), sources)
		}
		switch {
		case ok:
			out[i] = fmt.Errorf("%s: %w", src, p)
		case file != "":
			out[i] = fmt.Errorf("%s: %w (%s keeps its embedded default)", file, p, key)
		default:
			out[i] = fmt.Errorf("%w (%s keeps its embedded default; set it in a config file or with %s)", p, key,
				"SMRL_"+strings.ToUpper(strings.ReplaceAll(key, ".", "_")))
		}
	}
	return errors.Join(out...)
}

// relatedSources returns where the keys of key's section that msg names
// (by their last component, as a whole word) were set, joined by ", ";
// ok is false when none of them was set.
func relatedSources(key, msg string, sources map[string]string) (string, bool) {
	section := ""
	if i := strings.LastIndex(key, "."); i >= 0 {
		section = key[:i+1]
	}
	var found []string
	for _, k := range slices.Sorted(maps.Keys(sources)) {
		leaf, inSection := strings.CutPrefix(k, section)
		if !inSection || k == key || strings.Contains(leaf, ".") {
			continue
		}
		if regexp.MustCompile(`\b`+regexp.QuoteMeta(leaf)+`\b`).MatchString(msg) && !slices.Contains(found, sources[k]) {
			found = append(found, sources[k])
		}
	}
	return strings.Join(found, ", "), len(found) > 0
}

var yamlLineRE = regexp.MustCompile(`^line (\d+):`)

// lineText quotes the offending line of a YAML type error, so that the
// message shows the key: ` (in "episodes: abc")`.
func lineText(data []byte, msg string) string {
	m := yamlLineRE.FindStringSubmatch(strings.TrimPrefix(msg, "yaml: "))
	if m == nil {
		return ""
	}
	var n int
	fmt.Sscan(m[1], &n)
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return fmt.Sprintf(" (in %q)", strings.TrimSpace(lines[n-1]))
}

// oneDocument refuses a file of more than one YAML document: the rest of
// the file is read by nothing, and its keys would be ignored silently. A
// file whose first document does not parse passes (checkKnownKeys reports
// it).
func oneDocument(path string, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if err := dec.Decode(&first); err != nil {
		return nil
	}
	err := dec.Decode(&second)
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			return errs.Invalid(fmt.Errorf("%s line %s:%s (after the first YAML document; a config file holds one)", path, m[1], strings.TrimPrefix(msg, m[0])))
		}
		return errs.Invalid(fmt.Errorf("%s: %s (after the first YAML document; a config file holds one)", path, msg))
	}
	return errs.Invalid(fmt.Errorf("%s line %d: a second YAML document starts here; a config file holds one document", path, second.Line))
}

var yamlFieldRE = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// checkKnownKeys decodes data strictly so that an unknown key is reported
// with its line: "x.yaml line 3: unknown key "episods"", and so is a value
// that YAML would silently coerce into its field ("episodes: 1.5" into an
// integer). It returns the keys the file sets ("planner.tau").
func checkKnownKeys(path string, data []byte) ([]string, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	err := dec.Decode(&c)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			msg := te.Errors[0]
			if m := yamlFieldRE.FindStringSubmatch(msg); m != nil {
				return nil, errs.Invalid(fmt.Errorf("%s line %s: unknown key %q in %s", path, m[1], m[2], sectionOf(m[3])))
			}
			// A value of the wrong kind: checkNode says what its key
			// wants, where yaml's message names Go types.
			var doc yaml.Node
			if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
				if err := checkNode(doc.Content[0], reflect.TypeOf(c), ""); err != nil {
					return nil, errs.Invalid(fmt.Errorf("%s %w", path, err))
				}
			}
			return nil, errs.Invalid(fmt.Errorf("%s %s%s", path, plainTypeError(msg), lineText(data, msg)))
		}
		return nil, errs.Invalid(fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil, nil // decoded above, so this does not happen
	}
	if err := checkNode(doc.Content[0], reflect.TypeOf(c), ""); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s %w", path, err))
	}
	return fileKeys(doc.Content[0], reflect.TypeOf(c), ""), nil
}

// LineError is a bad value in YAML: its line, its key (empty for the
// whole document or a value outside a file) and what is wrong, in words.
type LineError struct {
	Line int
	Key  string
	Msg  string // `want a whole number, got "1.5"`
}

func (e *LineError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Key, e.Msg)
}

// checkNode checks node n against the Go type t it decodes into: a section
// needs a mapping, a list key a list and any other key a single value
// (where yaml's errors would name Go types), and the scalars must be what
// YAML would otherwise convert silently: an integer field needs a whole
// number in its range (not 1.5 or 2^64), a float field a number, a bool
// field true or false. Errors are *LineError.
func checkNode(n *yaml.Node, t reflect.Type, key string) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if err := checkKind(n, t, key); err != nil {
		return err
	}
	switch n.Kind {
	case yaml.MappingNode:
		if t.Kind() != reflect.Struct {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			name := n.Content[i].Value
			for j := 0; j < t.NumField(); j++ {
				if strings.Split(t.Field(j).Tag.Get("yaml"), ",")[0] == name {
					if err := checkNode(n.Content[i+1], t.Field(j).Type, joinKey(key, name)); err != nil {
						return err
					}
				}
			}
		}
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice {
			return nil
		}
		for _, e := range n.Content {
			if t.Elem().Kind() == reflect.Slice && e.Kind != yaml.SequenceNode && e.Kind != yaml.AliasNode && !isNull(e) {
				// [1, 2] for a list of lists: name what the key wants.
				return &LineError{e.Line, key, fmt.Sprintf("want %s, got %s as an entry", listWant(key, t), kindText(e))}
			}
			if err := checkNode(e, t.Elem(), key); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		return checkScalar(n, t, key)
	}
	return nil
}

// checkKind checks that n is a mapping for a section (t a struct), a list
// for a list key and a single value for any other key. A null section or
// list is empty.
func checkKind(n *yaml.Node, t reflect.Type, key string) error {
	var want string
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind == yaml.MappingNode || isNull(n) {
			return nil
		}
		want = "a section: its keys, one per line"
		if key == "" {
			want = "config keys, one per line (KEY: VALUE)"
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode || isNull(n) {
			return nil
		}
		want = listWant(key, t)
	default:
		if n.Kind == yaml.ScalarNode {
			return nil
		}
		want = "a single value"
	}
	return &LineError{n.Line, key, fmt.Sprintf("want %s, got %s", want, kindText(n))}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// kindText describes node n for a message: a scalar quoted, else its kind.
func kindText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return strconv.Quote(n.Value)
}

// listWant says what the list key key of type t wants, with an example in
// YAML.
func listWant(key string, t reflect.Type) string {
	switch {
	case key == "agents":
		return "a list of agent names, e.g. [sm, lds]"
	case key == "model.family":
		return "a list of families, e.g. [gaussian]"
	case t.Elem().Kind() == reflect.Slice:
		return "a list of lists of numbers, e.g. [[1, 0.5]]"
	case t.Elem().Kind() == reflect.String:
		return "a list of names, e.g. [a, b]"
	case t.Elem().Kind() == reflect.Int:
		return "a list of whole numbers, e.g. [100, 1000]"
	}
	return "a list of numbers, e.g. [1, 0.5]"
}

var yamlTypeRE = regexp.MustCompile("cannot unmarshal !!(\\w+)(?: `([^`]*)`)? into (\\S+)")

// plainTypeError rewrites yaml's "cannot unmarshal !!str `x` into int" in
// words ("want a whole number, got "x""), so that no Go type reaches the
// user. checkNode reports the cases that it knows first; this is the
// fallback.
func plainTypeError(msg string) string {
	msg = strings.TrimPrefix(msg, "yaml: ")
	return yamlTypeRE.ReplaceAllStringFunc(msg, func(s string) string {
		m := yamlTypeRE.FindStringSubmatch(s)
		got := strconv.Quote(m[2])
		switch {
		case m[1] == "seq":
			got = "a list"
		case m[1] == "map":
			got = "a mapping"
		}
		var want string
		switch typ := m[3]; {
		case strings.HasPrefix(typ, "[]"):
			want = "a list"
		case typ == "int" || typ == "int64":
			want = "a whole number"
		case typ == "uint64":
			want = "a whole number >= 0"
		case typ == "float64":
			want = "a number"
		case typ == "bool":
			want = "true or false"
		case typ == "string" || typ == "config.Auto":
			want = "a single value"
		case strings.HasPrefix(typ, "config."):
			want = "a section: its keys, one per line"
		default:
			want = "another kind of value"
		}
		return fmt.Sprintf("want %s, got %s", want, got)
	})
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// checkScalar checks one scalar against its field's type (see checkNode).
func checkScalar(n *yaml.Node, t reflect.Type, key string) error {
	tag := n.ShortTag()
	fail := func(want string) error {
		return &LineError{n.Line, key, fmt.Sprintf("want %s, got %q", want, n.Value)}
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		var x int64
		if tag != "!!int" || n.Decode(&x) != nil || int64(int(x)) != x {
			return fail("a whole number")
		}
	case reflect.Uint64:
		var x uint64
		if tag != "!!int" || n.Decode(&x) != nil {
			return fail(fmt.Sprintf("a whole number in [0, %d]", uint64(math.MaxUint64)))
		}
	case reflect.Float64:
		if tag != "!!int" && tag != "!!float" {
			return fail("a number")
		}
	case reflect.Bool:
		if tag != "!!bool" {
			return fail("true or false")
		}
	case reflect.String:
		if t == reflect.TypeFor[Auto]() {
			if tag != "!!int" && tag != "!!float" && (tag != "!!str" || n.Value != AutoWord) {
				return fail(AutoWord + " or a number")
			}
			break
		}
		// A number is fine as text (a name such as 2024); true, false, a
		// date or null would reach the key as something else than what
		// was written.
		if tag != "!!str" && tag != "!!int" && tag != "!!float" {
			return fail(fmt.Sprintf("text (quote it if you mean it: \"%s\")", n.Value))
		}
	}
	return nil
}

// fileKeys lists the leaf keys a config document sets, through the yaml
// tags of t.
func fileKeys(n *yaml.Node, t reflect.Type, key string) []string {
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return []string{key}
	}
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		for j := 0; j < t.NumField(); j++ {
			if strings.Split(t.Field(j).Tag.Get("yaml"), ",")[0] == name {
				out = append(out, fileKeys(n.Content[i+1], t.Field(j).Type, joinKey(key, name))...)
			}
		}
	}
	return out
}

func sectionOf(goType string) string {
	switch goType {
	case "config.Config":
		return "the top level"
	case "config.Env":
		return "env"
	case "config.Family":
		return "env.family"
	case "config.Features":
		return "env.features or model.features"
	case "config.Reward":
		return "env.reward"
	case "config.CartPole":
		return "env.cartpole"
	case "config.Pendulum":
		return "env.pendulum"
	case "config.MountainCar":
		return "env.mountain_car"
	case "config.CEM":
		return "planner.cem"
	case "config.MPPI":
		return "planner.mppi"
	case "config.Model":
		return "model"
	case "config.Planner":
		return "planner"
	case "config.LDS":
		return "lds"
	case "config.Confidence":
		return "confidence"
	case "config.Estimate":
		return "estimate"
	}
	return goType
}

// YAML renders the resolved config.
func (c *Config) YAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}
