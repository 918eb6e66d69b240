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
	Planner    Planner    `mapstructure:"planner" yaml:"planner"`
	LDS        LDS        `mapstructure:"lds" yaml:"lds"`
	Confidence Confidence `mapstructure:"confidence" yaml:"confidence"`
	Estimate   Estimate   `mapstructure:"estimate" yaml:"estimate"`
}

// Env describes the MDP: an exponential-family transition with a known
// reward on states.
type Env struct {
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

// Planner configures random sampling shooting.
type Planner struct {
	Mode       string `mapstructure:"mode" yaml:"mode"`
	NRollouts  int    `mapstructure:"n_rollouts" yaml:"n_rollouts"`
	Tau        int    `mapstructure:"tau" yaml:"tau"`
	NSequences int    `mapstructure:"n_sequences" yaml:"n_sequences"`
	CRN        bool   `mapstructure:"common_random_numbers" yaml:"common_random_numbers"`
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
		return "env.features"
	case "config.Reward":
		return "env.reward"
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
