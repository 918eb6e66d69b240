package config

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:embed default.yaml
var defaultYAML []byte

// Default returns the embedded default config file (the paper's settings).
func Default() []byte { return slices.Clone(defaultYAML) }

// Config is a fully resolved experiment.
type Config struct {
	Name     string   `mapstructure:"name" yaml:"name"`
	Seed     uint64   `mapstructure:"seed" yaml:"seed"`
	Seeds    int      `mapstructure:"seeds" yaml:"seeds"`
	Episodes int      `mapstructure:"episodes" yaml:"episodes"`
	Workers  int      `mapstructure:"workers" yaml:"workers"`
	Lambda   float64  `mapstructure:"lambda" yaml:"lambda"`
	Agents   []string `mapstructure:"agents" yaml:"agents"`
	// InitModel is a model file (smrl estimate --save-model, smrl run
	// --save-models) whose Ŵ each learner plans with until its first refit
	// (smrl run --init-model); empty: they start from W = 0.
	InitModel string   `mapstructure:"init_model" yaml:"init_model,omitempty"`
	Env       Env      `mapstructure:"env" yaml:"env"`
	Model     Model    `mapstructure:"model" yaml:"model"`
	Planner   Planner  `mapstructure:"planner" yaml:"planner"`
	Estimate  Estimate `mapstructure:"estimate" yaml:"estimate"`
	CV        CV       `mapstructure:"cv" yaml:"cv"`
	Stats     Stats    `mapstructure:"stats" yaml:"stats"`
	Plot      Plot     `mapstructure:"plot" yaml:"plot"`
	Sampler   Sampler  `mapstructure:"sampler" yaml:"sampler"`
	// LambdaCV is true when lambda is the word cv (validate_stats.go);
	// Lambda is then 0 and not used.
	LambdaCV bool `mapstructure:"-" yaml:"-"`
	// LengthCV is true when model.features.length is the word cv
	// (validate_stats.go); the key then holds the placeholder 1 and smrl
	// estimate chooses it on cv.lengths.
	LengthCV bool `mapstructure:"-" yaml:"-"`

	// parts holds the values of the registered parts' sections, by path
	// ("env.cartpole"): see Section.
	parts map[string]any
	// origins maps each key set by a source to where (Origin); rank to
	// the precedence of that source (see Load).
	origins map[string]string
	rank    map[string]int
	// allAgents treats every agent as selected (smrl estimate, which
	// runs no agent but fits with every method); checkAgents is the
	// validation under way's agents flag (ChecksAgents).
	allAgents, checkAgents bool
	// noTrueW allows an empty env.w0 (Options.NoTrueW).
	noTrueW bool
	// memo remembers the answers of Uses (uses.go); nil in a Config
	// built by hand, which answers afresh.
	memo *usesCache
}

// Env describes the MDP. Kind "expfam" is an exponential-family transition
// with a known reward on states (the paper's); the other kinds are physical
// systems with their own sections.
type Env struct {
	Kind        string      `mapstructure:"kind" yaml:"kind"`
	Horizon     int         `mapstructure:"horizon" yaml:"horizon"`
	InitLow     float64     `mapstructure:"init_low" yaml:"init_low"`
	InitHigh    float64     `mapstructure:"init_high" yaml:"init_high" doc:"upper end of the initial states interval (see init_low)"`
	Family      Family      `mapstructure:"family" yaml:"family"`
	Features    Features    `mapstructure:"features" yaml:"features"`
	W0          [][]float64 `mapstructure:"w0" yaml:"w0"`
	ActionDim   int         `mapstructure:"action_dim" yaml:"action_dim" doc:"d_a, numbers per action"`
	ActionSpace string      `mapstructure:"action_space" yaml:"action_space"`
	Actions     []float64   `mapstructure:"actions" yaml:"actions"`
	ActionLow   []float64   `mapstructure:"action_low" yaml:"action_low"`
	ActionHigh  []float64   `mapstructure:"action_high" yaml:"action_high"`
	Reward      Reward      `mapstructure:"reward" yaml:"reward"`
	// Terminal is a boolean expression of s0, s1, …: the states that end
	// an episode ("" none), with TerminalReward collected on entering one
	// (see validate_expr.go).
	Terminal       string  `mapstructure:"terminal" yaml:"terminal,omitempty" doc:"a boolean expression of s0, s1, …: the states that end an episode (empty: none; docs/expressions.md)"`
	TerminalReward float64 `mapstructure:"terminal_reward" yaml:"terminal_reward,omitempty" doc:"reward collected on entering a terminal state, |value| <= 1e6 (needs env.terminal)"`
}

// Model configures the learners' model in the physical environments (in
// env.kind expfam the learners use the true family and features): a product
// of per-coordinate families for s' with features phi(s, a). The families
// declare their own keys here (model.alpha, model.kink, …: config.KeySet).
type Model struct {
	Family   []string  `mapstructure:"family" yaml:"family"` // per coordinate, or one for all: a name of Families
	Sigma    []float64 `mapstructure:"sigma" yaml:"sigma"`   // per-coordinate base scale; empty: the environment's noise scales
	Features Features  `mapstructure:"features" yaml:"features"`
	// Target is what the learners model: "next", s', or "delta", s' − s.
	Target string `mapstructure:"target" yaml:"target"`
	// InputScale divides each coordinate of (s, a) before rff features
	// (empty: the environment's scales), so one length fits every input.
	InputScale []float64 `mapstructure:"input_scale" yaml:"input_scale"`
	// LDSFeatures are the LDS agent's features: "linear" [s, a], "affine"
	// [s, a, 1], or "model", the other learners' model.features.
	LDSFeatures string `mapstructure:"lds_features" yaml:"lds_features"`
}

// Family selects the transition family (env.kind expfam): its kind and
// d_s. The families declare their own keys here (env.family.freq,
// env.family.sigma, …: config.KeySet).
type Family struct {
	Kind string `mapstructure:"kind" yaml:"kind"`
	Dim  int    `mapstructure:"dim" yaml:"dim"`
}

// ExprFamily is a one-dimensional family written as expressions of x:
// q(x) = exp(log_q), statistics psi, support [lo, hi] (empty: the real line).
type ExprFamily struct {
	LogQ    string    `mapstructure:"log_q" yaml:"log_q"`
	Psi     []string  `mapstructure:"psi" yaml:"psi"`
	Support []float64 `mapstructure:"support" yaml:"support,omitempty"`
}

// Features selects phi. The feature maps declare their own keys here
// (rff's dim, length and seed: config.KeySet).
type Features struct {
	Kind string `mapstructure:"kind" yaml:"kind"`
}

// Reward is r(s) = Σ_k exp(−width·|s − c_k|²).
type Reward struct {
	Width   float64   `mapstructure:"width" yaml:"width" doc:"width of each bump exp(−width·|s − c_k|²)"`
	Centers []float64 `mapstructure:"centers" yaml:"centers"`
	// Expression, when set, is r(s, a) as an expression of s0, s1, … and
	// a0, a1, … instead of the bumps.
	Expression string `mapstructure:"expression" yaml:"expression,omitempty" doc:"the reward as an expression of s0, s1, …, a0, … instead of the bumps (docs/expressions.md)"`
}

// Planner configures the planner every agent plans with: Kind selects the
// method (rss, cem, mppi); Tau, NRollouts, CRN and Rollout define the
// objective all methods share, the mean return of a rollout of τ states.
type Planner struct {
	Kind       string `mapstructure:"kind" yaml:"kind"`
	Mode       string `mapstructure:"mode" yaml:"mode"`
	NRollouts  int    `mapstructure:"n_rollouts" yaml:"n_rollouts" doc:"rollouts per candidate action or sequence; their mean return is its value"`
	Tau        int    `mapstructure:"tau" yaml:"tau"`
	NSequences int    `mapstructure:"n_sequences" yaml:"n_sequences"`
	CRN        bool   `mapstructure:"common_random_numbers" yaml:"common_random_numbers"`
	// Rollout is how rollouts draw next states: "sample" from the model, or
	// "mean", the model's mean next state (the authors' "deterministic").
	Rollout string `mapstructure:"rollout" yaml:"rollout"`
	// TieBreak is how rss random mode over a discrete action set chooses
	// among sequences of equal value: "first" (the sequence drawn first,
	// the SMRL authors'), "vote" (the first action most common among the
	// best-valued sequences) or "mean" (the first action whose sequences
	// have the highest mean value). Part rss owns it.
	TieBreak string `mapstructure:"tie_break" yaml:"tie_break"`
	// Section is the selected kind's own section (planner.<kind>, a
	// pointer to the struct its part registers), nil when it has none.
	Section any `mapstructure:"-" yaml:"-"`
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
	N       int   `mapstructure:"n" yaml:"n" doc:"transitions drawn for one estimate (smrl estimate without --data)"`
	Repeats int   `mapstructure:"repeats" yaml:"repeats" doc:"data sets drawn per size in the estimation sweep (smrl estimate --out)"`
	SweepN  []int `mapstructure:"sweep_n" yaml:"sweep_n" doc:"the sizes n of the estimation sweep (smrl estimate --out)"`
}
