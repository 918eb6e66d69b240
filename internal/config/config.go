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
	CartPole    CartPole    `mapstructure:"cartpole" yaml:"cartpole"`
	Pendulum    Pendulum    `mapstructure:"pendulum" yaml:"pendulum"`
	MountainCar MountainCar `mapstructure:"mountain_car" yaml:"mountain_car"`
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
	Family   []string  `mapstructure:"family" yaml:"family"` // per coordinate, or one for all: gaussian | relu | relu-mog | custom-sin
	Sigma    []float64 `mapstructure:"sigma" yaml:"sigma"`   // per-coordinate base scale; empty: the environment's noise scales
	Alpha    float64   `mapstructure:"alpha" yaml:"alpha"`   // custom-sin: q(x) = exp(−|x|^alpha/alpha)
	Features Features  `mapstructure:"features" yaml:"features"`
	// KinkBandwidth is the kernel bandwidth of the score-matching kink term
	// of the relu families, in units of the coordinate's base scale (0: the
	// kink is ignored, as in the authors' estimator).
	KinkBandwidth float64 `mapstructure:"kink_bandwidth" yaml:"kink_bandwidth"`
	// Target is what the learners model: "next", s', or "delta", s' − s.
	Target string `mapstructure:"target" yaml:"target"`
	// InputScale divides each coordinate of (s, a) before rff features
	// (empty: the environment's scales), so one length fits every input.
	InputScale []float64 `mapstructure:"input_scale" yaml:"input_scale"`
	// LDSFeatures are the LDS agent's features: "linear" [s, a], "affine"
	// [s, a, 1], or "model", the other learners' model.features.
	LDSFeatures string `mapstructure:"lds_features" yaml:"lds_features"`
}

// Family selects the transition family.
type Family struct {
	Kind  string  `mapstructure:"kind" yaml:"kind"`
	Freq  float64 `mapstructure:"freq" yaml:"freq"`
	Alpha float64 `mapstructure:"alpha" yaml:"alpha"`
	Dim   int     `mapstructure:"dim" yaml:"dim"`
	Sigma float64 `mapstructure:"sigma" yaml:"sigma"`
}

// Features selects phi.
type Features struct {
	Kind   string  `mapstructure:"kind" yaml:"kind"`
	Dim    int     `mapstructure:"dim" yaml:"dim"`
	Length float64 `mapstructure:"length" yaml:"length"`
	Seed   uint64  `mapstructure:"seed" yaml:"seed"`
}

// Reward is r(s) = Σ_k exp(−width·|s − c_k|²).
type Reward struct {
	Width   float64   `mapstructure:"width" yaml:"width"`
	Centers []float64 `mapstructure:"centers" yaml:"centers"`
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
//	W_k = {W : |vec(W − Ŵ_k)|_{V_k+λI} ≤ β_k}
//
// with β_k from the paper's theorem (Beta "theory", eq. conf-set) or the
// practical form β_k = Scale·sqrt(log det(V_k/λ + I) + 2 log(1/δ)).
type Confidence struct {
	Beta   string  `mapstructure:"beta" yaml:"beta"`     // "practical" or "theory"
	Scale  float64 `mapstructure:"scale" yaml:"scale"`   // c of the practical β
	Delta  float64 `mapstructure:"delta" yaml:"delta"`   // δ, in (0, 1)
	BPsi   float64 `mapstructure:"b_psi" yaml:"b_psi"`   // theory: ξ(s') is B_psi-subgaussian
	BC     float64 `mapstructure:"b_c" yaml:"b_c"`       // theory: C(s')W0 phi is B_c-subgaussian
	Alpha1 float64 `mapstructure:"alpha1" yaml:"alpha1"` // theory: C(s') ⪰ α₁ I
	// BStar bounds |W0|_F: it enters the theory β as sqrt(λ)·B_star, and
	// candidate and posterior parameters are kept in the ball |W|_F ≤
	// B_star (0: no ball).
	BStar      float64 `mapstructure:"b_star" yaml:"b_star"`
	Candidates int     `mapstructure:"candidates" yaml:"candidates"` // M, boundary draws per episode (-ucb)
	Choice     string  `mapstructure:"choice" yaml:"choice"`         // "episode" or "step" (-ucb)
	// PosteriorScale is ν of the -ps agents: W ~ N(Ŵ, ν² (V + λI)⁻¹).
	PosteriorScale float64 `mapstructure:"posterior_scale" yaml:"posterior_scale"`
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
}

// Load resolves a config. Every error wraps errs.ErrInvalidInput.
func Load(opt Options) (*Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(defaultYAML)); err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	source := "embedded defaults"
	if opt.Path != "" {
		data, err := os.ReadFile(opt.Path)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("reading config: %w", err))
		}
		if err := checkKnownKeys(opt.Path, data); err != nil {
			return nil, err
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %w", opt.Path, err))
		}
		source = opt.Path
	}
	// sources records which keys the environment and flags set, so that a
	// bad value is reported against the variable or flag, not the file.
	sources := map[string]string{}
	for _, kv := range opt.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "SMRL_") {
			continue
		}
		key := envKey(v, strings.TrimPrefix(name, "SMRL_"))
		if key == "" {
			continue // SMRL_SHARD_COUNT and the like belong to other code
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
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v.Set(key, sv.GetSlice())
		} else {
			v.Set(key, f.Value.String())
		}
		sources[key] = "--" + f.Name
	}
	var c Config
	if err := v.UnmarshalExact(&c); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %s", source, strings.Join(strings.Fields(err.Error()), " ")))
	}
	if err := c.Validate(); err != nil {
		return nil, errs.Invalid(attribute(err, source, sources))
	}
	return &c, nil
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
// comma-separated (SMRL_AGENTS=sm,lds).
func parseEnv(t reflect.Type, val string) (any, error) {
	val = strings.TrimSpace(val)
	if t == nil {
		return val, nil
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
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts, nil
	}
	return val, nil
}

// attribute prefixes each validation problem ("key: message") with where
// its key was set: a flag, an SMRL_* variable, or else the file.
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
		src := file
		if s, ok := sources[key]; ok {
			src = s
		}
		out[i] = fmt.Errorf("%s: %w", src, p)
	}
	return errors.Join(out...)
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

var yamlFieldRE = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)

// checkKnownKeys decodes data strictly so that an unknown key is reported
// with its line: "x.yaml line 3: unknown key "episods"".
func checkKnownKeys(path string, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	err := dec.Decode(&c)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		if m := yamlFieldRE.FindStringSubmatch(msg); m != nil {
			return errs.Invalid(fmt.Errorf("%s line %s: unknown key %q in %s", path, m[1], m[2], sectionOf(m[3])))
		}
		return errs.Invalid(fmt.Errorf("%s %s%s", path, strings.TrimPrefix(msg, "yaml: "), lineText(data, msg)))
	}
	return errs.Invalid(fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "yaml: ")))
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
