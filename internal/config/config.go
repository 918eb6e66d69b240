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
	SM         SM         `mapstructure:"sm" yaml:"sm"`
	Confidence Confidence `mapstructure:"confidence" yaml:"confidence"`
	Estimate   Estimate   `mapstructure:"estimate" yaml:"estimate"`
	CV         CV         `mapstructure:"cv" yaml:"cv"`
	Stats      Stats      `mapstructure:"stats" yaml:"stats"`
	// LambdaCV is true when lambda is the word cv (validate_stats.go);
	// Lambda is then 0 and not used.
	LambdaCV bool `mapstructure:"-" yaml:"-"`
	// LengthCV is true when model.features.length is the word cv
	// (validate_stats.go); Model.Features.Length is then the placeholder
	// 1 and smrl estimate chooses it on cv.lengths.
	LengthCV bool `mapstructure:"-" yaml:"-"`

	// parts holds the values of the registered parts' sections, by path
	// ("env.cartpole"): see Section.
	parts map[string]any
	// origins maps each key set by a source to where (Origin); rank to
	// the precedence of that source (see Load).
	origins map[string]string
	rank    map[string]int
	// allAgents treats every agent as selected (smrl estimate, which
	// runs no agent but fits with every method).
	allAgents bool
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
	Terminal       string  `mapstructure:"terminal" yaml:"terminal,omitempty"`
	TerminalReward float64 `mapstructure:"terminal_reward" yaml:"terminal_reward,omitempty"`
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
	// Low and High are the support (low, high) of the truncated-gaussian
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

// LDS configures the LDS agent's model.
type LDS struct {
	Sigma float64 `mapstructure:"sigma" yaml:"sigma"`
}

// SM configures the score-matching estimate of the sm agents.
type SM struct {
	// Floor is the information floor of the estimate
	// (estimator.SM.SetFloor): a direction of V carrying less information
	// than Floor average transitions is shrunk to that floor; 0 is the
	// paper's plain estimator.
	Floor float64 `mapstructure:"floor" yaml:"floor"`
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
	// Paths are further config files, layered in order after Path: a
	// later file's keys override an earlier one's.
	Paths []string
	// Set sets keys above the SMRL_* variables and below the flags
	// (--set KEY=VALUE).
	Set []Setting
	// Snapshot reads a results directory's config.yaml: keys of parts
	// the run does not use are accepted (snapshots of earlier smrl
	// versions hold every section).
	Snapshot bool
}

// legacyDefaults gives the keys that a snapshot of an earlier smrl
// version lacks the value that version ran with, where a later version
// changed the default: a --resume or merge of such a run then continues
// (or is refused as) the run it was, not the new default's.
//   - sm.floor (default 5 since its introduction): earlier versions fit
//     the paper's plain score matching, sm.floor 0.
func legacyDefaults(c *Config, sources map[string]string) {
	if _, ok := sources["sm.floor"]; !ok {
		c.SM.Floor = 0
	}
}

// NonConfigEnv are the SMRL_* variables that smrl (or its tests) reads
// other than config keys; they are not reported as misspelt keys.
var NonConfigEnv = []string{"SMRL_SHARD_COUNT", "SMRL_REPRODUCE", "SMRL_PLOTCHECK_DIR", "SMRL_CACHE_DIR", "SMRL_TABLE_SURVEY",
	"SMRL_NOSIMD", "SMRL_LONG", "SMRL_DOCS", "SMRL_TEST_ARGS"}

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
	secs, err := defaultSections()
	if err != nil {
		return nil, fmt.Errorf("registered defaults: %w", err)
	}
	if err := v.MergeConfigMap(secs); err != nil {
		return nil, fmt.Errorf("registered defaults: %w", err)
	}
	source := "config"
	// sources records where each key that is not a default was set: the
	// file, an SMRL_* variable or a flag, so that a bad value is reported
	// against it; origins the same with the file's line (smrl config
	// --sources).
	sources := map[string]string{}
	origins := map[string]string{}
	// rank is the precedence of the source that set each key: the files
	// in order, then SMRL_*, --set, flags and grid points.
	rank := map[string]int{}
	paths := opt.Paths
	if opt.Path != "" {
		paths = append([]string{opt.Path}, paths...)
	}
	for i, path := range paths {
		data, err := readFile(path)
		if err != nil {
			return nil, err
		}
		if err := oneDocument(path, data); err != nil {
			return nil, err
		}
		data, sk, sv, err := cutSection(path, data, SweepSection)
		if err != nil {
			return nil, err
		}
		if sk != nil && opt.Sweep == nil {
			return nil, errs.Invalid(fmt.Errorf("%s line %d: the %s: section is a grid for smrl sweep: run it with smrl sweep --config %s", path, sk.Line, SweepSection, path))
		}
		if sk != nil {
			if err := opt.Sweep(sk, sv); err != nil {
				return nil, err
			}
		}
		keys, err := checkKnownKeys(path, data)
		if err != nil {
			return nil, err
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %w", path, err))
		}
		source = path
		for _, k := range keys {
			sources[k.key], rank[k.key] = path, i
			origins[k.key] = fmt.Sprintf("%s:%d", path, k.line)
		}
	}
	for _, kv := range opt.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "SMRL_") {
			continue
		}
		key := ""
		if suffix := strings.TrimPrefix(name, "SMRL_"); envSuffixCase(suffix) {
			key = envKey(v, suffix)
		}
		if key == "" {
			if opt.Warn != nil && !slices.Contains(NonConfigEnv, name) {
				opt.Warn(misspeltEnv(v, name))
			}
			continue
		}
		x, err := parseEnv(fieldType(key), val)
		if cvWordKey(key) && strings.TrimSpace(val) == LambdaCVWord {
			x, err = LambdaCVWord, nil
		}
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s=%q: %s %v", name, val, key, err))
		}
		v.Set(key, x)
		sources[key], origins[key], rank[key] = name, name, len(paths)
	}
	for _, s := range opt.Set {
		v.Set(s.Key, s.Value)
		sources[s.Key], origins[s.Key], rank[s.Key] = s.Source, s.Source, len(paths)+1
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
		sources[key], origins[key], rank[key] = "--"+f.Name, "--"+f.Name, len(paths)+2
	}
	for _, s := range opt.Point {
		if prev, ok := sources[s.Key]; ok && !slices.Contains(paths, prev) {
			return nil, errs.Invalid(fmt.Errorf("%s sweeps %s, which %s also sets: give it in one place", s.Source, s.Key, prev))
		}
		v.Set(s.Key, s.Value)
		sources[s.Key], origins[s.Key], rank[s.Key] = s.Source, s.Source, len(paths)+3
	}
	lambdaCV := isLambdaCV(v.Get("lambda"))
	if lambdaCV {
		v.Set("lambda", 0.0)
	}
	lengthCV := isLambdaCV(v.Get(LengthCVKey))
	if lengthCV {
		v.Set(LengthCVKey, lengthPlaceholder)
	}
	c, err := decode(v, source)
	if err != nil {
		return nil, err
	}
	c.LambdaCV, c.LengthCV = lambdaCV, lengthCV
	c.allAgents, c.rank = opt.IgnoreAgents, rank
	if err := c.resolveAliases(sources, origins); err != nil {
		return nil, errs.Invalid(attribute(err, strings.Join(paths, ", "), sources))
	}
	c.origins = origins
	if opt.Snapshot {
		legacyDefaults(c, sources)
	}
	if opt.NoValidate {
		return c, nil
	}
	var problems []error
	if !opt.Snapshot {
		// A key of an unselected part is an error, unless a source above
		// the key's changed the selection (as a Hydra group override
		// drops the options of the part it replaces: SMRL_PLANNER_KIND=cem
		// over a file with a planner.mppi section), or a config file sets
		// a key only agents it does not list read (the confidence
		// settings of the -ucb agents, which --agents may select).
		set := map[string]string{}
		for k, src := range sources {
			file := slices.Contains(paths, src)
			if c.Uses(k) || c.overridden(k, rank) || (file && c.onlyAgentsUnselect(k)) || c.replacedAtDefault(k) {
				continue
			}
			set[k] = src
		}
		problems = append(problems, c.checkSetUnused(set)...)
	}
	if err := c.validate(!opt.IgnoreAgents); err != nil {
		problems = append(problems, err)
	}
	if err := errors.Join(problems...); err != nil {
		return nil, errs.Invalid(attribute(err, strings.Join(paths, ", "), sources))
	}
	return c, nil
}

// decode decodes the settings of v into a Config: the core keys into its
// fields, each registered section into a value of its part's type.
func decode(v *viper.Viper, source string) (*Config, error) {
	all := v.AllSettings()
	c := &Config{parts: map[string]any{}}
	for _, path := range sectionPaths() {
		sub := cutPath(all, path)
		sv := viper.New()
		if err := sv.MergeConfigMap(sub); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %s: %w", source, path, err))
		}
		x := reflect.New(sectionType(path))
		if err := sv.UnmarshalExact(x.Interface()); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %s: %s", source, path, strings.Join(strings.Fields(err.Error()), " ")))
		}
		c.parts[path] = x.Interface()
	}
	rest := viper.New()
	if err := rest.MergeConfigMap(all); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %w", source, err))
	}
	if err := rest.UnmarshalExact(c); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %s", source, strings.Join(strings.Fields(err.Error()), " ")))
	}
	if s, ok := c.parts["planner."+c.Planner.Kind]; ok {
		c.Planner.Section = s
	}
	return c, nil
}

// cutPath removes the sub-map at the dotted path from the nested map m and
// returns it (an empty map when there is none).
func cutPath(m map[string]any, path string) map[string]any {
	parts := strings.Split(path, ".")
	at := m
	for _, k := range parts[:len(parts)-1] {
		next, ok := at[k].(map[string]any)
		if !ok {
			return map[string]any{}
		}
		at = next
	}
	last := parts[len(parts)-1]
	sub, _ := at[last].(map[string]any)
	delete(at, last)
	if sub == nil {
		sub = map[string]any{}
	}
	return sub
}

// resolveAliases replaces a group value that is a part's alias (env.kind
// Pendulum-v1) by the part's name and sets the alias's keys that no source
// sets.
func (c *Config) resolveAliases(sources, origins map[string]string) error {
	for _, g := range Groups {
		val, err := c.value(g.Key)
		if err != nil {
			continue
		}
		name, ok := val.(string)
		if !ok {
			continue
		}
		p, ok := lookup(g.Key, name)
		if !ok || p.Name == name {
			continue
		}
		var alias Alias
		for _, a := range p.Aliases {
			if a.Name == name {
				alias = a
			}
		}
		if err := c.set(g.Key, p.Name); err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(alias.Set)) {
			if _, ok := sources[k]; ok {
				continue
			}
			if err := c.set(k, alias.Set[k]); err != nil {
				return err
			}
			origins[k] = g.Key + " " + name
		}
	}
	if s, ok := c.parts["planner."+c.Planner.Kind]; ok {
		c.Planner.Section = s
	}
	return nil
}

// set sets key of c to x (converted to the key's type).
func (c *Config) set(key string, x any) error {
	rv := reflect.ValueOf(c).Elem()
	var prefix string
	for _, part := range strings.Split(key, ".") {
		prefix = joinKey(prefix, part)
		if f, ok := fieldByTag(rv.Type(), part); ok {
			rv = rv.FieldByIndex(f.Index)
			continue
		}
		s, ok := c.parts[prefix]
		if !ok {
			return fmt.Errorf("internal error: no config key %s", key)
		}
		rv = reflect.ValueOf(s).Elem()
	}
	xv := reflect.ValueOf(x)
	if !xv.Type().ConvertibleTo(rv.Type()) {
		return fmt.Errorf("internal error: %s cannot hold %T", key, x)
	}
	rv.Set(xv.Convert(rv.Type()))
	return nil
}

// checkSetUnused returns a problem for every key a source sets that the
// run does not use: "env.cartpole.dt: is set but env.kind is expfam".
func (c *Config) checkSetUnused(sources map[string]string) []error {
	var out []error
	for _, k := range slices.Sorted(maps.Keys(sources)) {
		if !c.Uses(k) {
			out = append(out, fmt.Errorf("%s: is set but %s; remove it, or select the part that uses it", k, c.whyUnused(k)))
		}
	}
	return out
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
	cands := slices.Clone(NonConfigEnv)
	for _, k := range v.AllKeys() {
		cands = append(cands, "SMRL_"+strings.ToUpper(strings.ReplaceAll(k, ".", "_")))
	}
	return fmt.Sprintf("warning: %s is not a config key and is ignored; did you mean %s?", name, closest(strings.ToUpper(name), cands))
}

// closest returns the candidate nearest to name in edit distance (the
// first of equals), for "did you mean" hints.
func closest(name string, cands []string) string {
	best, dist := "", -1
	for _, c := range cands {
		// Case does not count: PLANNER.TAU is planner.tau mistyped.
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); dist < 0 || d < dist {
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

// fieldType returns the Go type of the config key at a dotted path
// ("planner.tau"), through the Config struct and the registered sections;
// nil if none.
func fieldType(key string) reflect.Type {
	t := reflect.TypeOf(Config{})
	var prefix string
	for _, part := range strings.Split(key, ".") {
		t = childType(t, prefix, part)
		if t == nil {
			return nil
		}
		prefix = joinKey(prefix, part)
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
		if msg := outOfRange(val); msg != "" {
			return nil, errors.New(msg)
		}
		x, err := strconv.ParseFloat(val, 64)
		if err != nil || !decimal(val) && !math.IsNaN(x) && !math.IsInf(x, 0) {
			return nil, fmt.Errorf("must be a number in decimal notation (such as 0.5 or 1e-3)")
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
			out[i] = fmt.Errorf("%w (%s keeps its embedded default; set it in a config file, with --set %s=... or with %s)", p, key, key,
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

// keyLine is a key a config file sets and its line.
type keyLine struct {
	key  string
	line int
}

// checkKnownKeys checks data against the schema (the Config struct and
// the registered sections) so that an unknown key is reported with its
// line: "x.yaml line 3: unknown key "episods" in the top level", and so is
// a value that YAML would silently coerce into its field ("episodes: 1.5"
// into an integer). It returns the keys the file sets ("planner.tau").
func checkKnownKeys(path string, data []byte) ([]keyLine, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s %s%s", path, plainTypeError(err.Error()), lineText(data, err.Error())))
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	t := reflect.TypeOf(Config{})
	if err := checkNode(top, t, ""); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s %w", path, err))
	}
	// A decoding that checks what the schema walk does not (duplicate
	// keys): the walk found no unknown key, so the decoding's errors are
	// of another kind.
	var m map[string]any
	if err := top.Decode(&m); err != nil && top.Kind == yaml.MappingNode {
		return nil, errs.Invalid(fmt.Errorf("%s %s", path, strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	return fileKeys(top, t, ""), nil
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
			ft := childType(t, key, name)
			if ft == nil {
				where := "the top level"
				if key != "" {
					where = key
				}
				return &LineError{n.Content[i].Line, "", fmt.Sprintf("unknown key %q in %s%s", name, where, didYouMean(joinKey(key, name)))}
			}
			if err := checkNode(n.Content[i+1], ft, joinKey(key, name)); err != nil {
				return err
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
		if msg := outOfRange(n.Value); msg != "" && (tag == "!!str" || tag == "!!float") {
			return &LineError{n.Line, key, n.Value + " " + msg}
		}
		if cvWordKey(key) && tag == "!!str" && n.Value != LambdaCVWord {
			return &LineError{n.Line, key, lambdaCVText(n.Value)}
		}
		if tag != "!!int" && tag != "!!float" && !(cvWordKey(key) && n.Value == LambdaCVWord) {
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
		if tag != "!!str" && !numberAsText(tag, n.Value) {
			return fail(fmt.Sprintf("text (quote it if you mean it: \"%s\")", n.Value))
		}
	}
	return nil
}

// fileKeys lists the leaf keys a config document sets, with their lines,
// through the schema (t and the registered sections).
func fileKeys(n *yaml.Node, t reflect.Type, key string) []keyLine {
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return []keyLine{{key, n.Line}}
	}
	var out []keyLine
	for i := 0; i+1 < len(n.Content); i += 2 {
		name := n.Content[i].Value
		if ft := childType(t, key, name); ft != nil {
			kl := fileKeys(n.Content[i+1], ft, joinKey(key, name))
			if len(kl) == 1 && kl[0].key == joinKey(key, name) {
				kl[0].line = n.Content[i].Line
			}
			out = append(out, kl...)
		}
	}
	return out
}

// childType returns the type of key name in the section key of type t: a
// field of t, or a registered section; nil when there is none.
func childType(t reflect.Type, key, name string) reflect.Type {
	if t.Kind() != reflect.Struct {
		return nil
	}
	if f, ok := fieldByTag(t, name); ok {
		return f.Type
	}
	return sectionType(joinKey(key, name))
}

// didYouMean is a hint naming the known key closest to key, or "".
func didYouMean(key string) string {
	best := closest(key, Keys())
	if best == "" || editDistance(key, best) > max(2, len(key)/3) {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// YAML renders the resolved config as its snapshot: exactly the keys the
// run uses (Uses), each registered section in its place, a negative zero
// written as 0.
func (c *Config) YAML() ([]byte, error) {
	root, err := c.yamlNode(c)
	if err != nil {
		return nil, err
	}
	return encodeYAML(root)
}

// YAMLFor is YAML with the keys that any of users uses (the points of a
// sweep whose base c is): the base of a sweep's manifest.
func (c *Config) YAMLFor(users ...*Config) ([]byte, error) {
	root, err := c.yamlNode(append([]*Config{c}, users...)...)
	if err != nil {
		return nil, err
	}
	return encodeYAML(root)
}

// YAMLSources is YAML with a comment after every key naming where its
// value comes from (Origin): smrl config --sources.
func (c *Config) YAMLSources() ([]byte, error) {
	root, err := c.yamlNode(c)
	if err != nil {
		return nil, err
	}
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := joinKey(key, n.Content[i].Value)
			if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
				walk(v, k)
			} else {
				n.Content[i].LineComment = c.Origin(k)
			}
		}
	}
	walk(root, "")
	return encodeYAML(root)
}

func encodeYAML(root *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// yamlNode is the snapshot's YAML tree (see YAML): the keys of c that one
// of users uses.
func (c *Config) yamlNode(users ...*Config) (*yaml.Node, error) {
	used := func(key string) bool {
		return slices.ContainsFunc(users, func(u *Config) bool { return u.Uses(key) })
	}
	var root yaml.Node
	if err := root.Encode(c); err != nil {
		return nil, err
	}
	if c.LambdaCV {
		// lambda holds the placeholder 0: write the word, so that the
		// snapshot loads as the config the run had.
		if n := mappingValue(&root, "lambda"); n != nil {
			n.Tag, n.Value, n.Style = "!!str", LambdaCVWord, 0
		}
	}
	if !c.Stats.SaveSE {
		// stats.save_se is off by default: keep the snapshots as they were.
		if n := mappingValue(&root, "stats"); n != nil {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "save_se" {
					n.Content = append(n.Content[:i], n.Content[i+2:]...)
					break
				}
			}
		}
	}
	if !c.LengthCV {
		// cv.lengths serves model.features.length: cv only: keep the
		// snapshots of configs that do not use it as they were.
		if n := mappingValue(&root, "cv"); n != nil {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "lengths" {
					n.Content = append(n.Content[:i], n.Content[i+2:]...)
					break
				}
			}
		}
	} else {
		if n := mappingValue(mappingValue(mappingValue(&root, "model"), "features"), "length"); n != nil {
			n.Tag, n.Value, n.Style = "!!str", LambdaCVWord, 0
		}
	}
	for _, path := range sectionPaths() {
		v, ok := c.parts[path]
		if !ok || !used(path) {
			continue
		}
		var n yaml.Node
		if err := n.Encode(v); err != nil {
			return nil, err
		}
		parts := strings.Split(path, ".")
		at := &root
		for _, k := range parts[:len(parts)-1] {
			at = mappingValue(at, k)
			if at == nil {
				return nil, fmt.Errorf("internal error: section %s has no parent", path)
			}
		}
		at.Content = append(at.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[len(parts)-1]}, &n)
	}
	prune(&root, "", used)
	return &root, nil
}

// mappingValue returns the value node of key k in the mapping n, nil if
// none.
func mappingValue(n *yaml.Node, k string) *yaml.Node {
	if n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}

// prune drops the keys of the mapping n (at key) that c does not use and
// writes −0 as 0.
func prune(n *yaml.Node, key string, used func(string) bool) {
	switch n.Kind {
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := joinKey(key, n.Content[i].Value)
			if !used(k) {
				// An unused section may hold keys a selected part owns
				// (model.kink of env.family.kind relu in env.kind expfam).
				if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
					prune(v, k, used)
					if len(v.Content) > 0 {
						kept = append(kept, n.Content[i], v)
					}
				}
				continue
			}
			prune(n.Content[i+1], k, used)
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	case yaml.SequenceNode:
		for _, e := range n.Content {
			prune(e, key, used)
		}
	case yaml.ScalarNode:
		if (n.Tag == "!!float" || n.Tag == "!!int") && (n.Value == "-0" || n.Value == "-0.0") {
			n.Value = "0"
		}
	}
}
