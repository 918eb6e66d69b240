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
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

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
	// NoTrueW loads a config for work that needs no true W (smrl estimate
	// --data, a saved model's config): env.w0, unless a source sets it,
	// is empty rather than the default, and an empty env.w0 is valid.
	NoTrueW bool
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

// NonConfigEnv are the SMRL_* variables that smrl (or its tests) reads
// other than config keys; they are not reported as misspelt keys.
var NonConfigEnv = []string{"SMRL_SHARD_COUNT", "SMRL_REPRODUCE", "SMRL_PLOTCHECK_DIR", "SMRL_CACHE_DIR", "SMRL_TABLE_SURVEY",
	"SMRL_NOSIMD", "SMRL_LONG", "SMRL_DOCS", "SMRL_TEST_ARGS"}

// noteOverride lists the keys for which a flag that overrides the file's or
// the environment's value is worth a note: the agents decide what runs.
var noteOverride = []string{"agents"}

// Load resolves a config. Every error wraps errs.ErrInvalidInput.
func Load(opt Options) (*Config, error) {
	l, err := newLayers(opt)
	if err != nil {
		return nil, err
	}
	for i, path := range l.paths {
		if err := l.mergeFile(i, path); err != nil {
			return nil, err
		}
	}
	if err := l.mergeEnviron(); err != nil {
		return nil, err
	}
	l.mergeSetsAndFlags()
	if err := l.mergePoint(); err != nil {
		return nil, err
	}
	lambdaCV := isLambdaCV(l.v.Get("lambda"))
	if lambdaCV {
		l.v.Set("lambda", 0.0)
	}
	lengthCV := isLambdaCV(l.v.Get(LengthCVKey))
	if lengthCV {
		l.v.Set(LengthCVKey, lengthPlaceholder)
	}
	c, err := decode(l.v, l.source)
	if err != nil {
		return nil, err
	}
	c.LambdaCV, c.LengthCV = lambdaCV, lengthCV
	adaptJointDims(c, l.sources)
	c.allAgents, c.rank = opt.IgnoreAgents, l.rank
	if opt.NoTrueW {
		c.noTrueW = true
		if _, set := l.sources["env.w0"]; !set {
			c.Env.W0 = nil
		}
	}
	if err := c.resolveAliases(l.sources, l.origins); err != nil {
		return nil, errs.Invalid(attribute(err, strings.Join(l.paths, ", "), l.sources))
	}
	c.origins = l.origins
	if opt.Snapshot {
		legacyDefaults(c, l.sources)
	}
	if opt.NoValidate {
		return c, nil
	}
	return c, l.check(c)
}

// layers is the state of one Load: viper with the sources merged so far,
// and where each key that is not a default was set.
type layers struct {
	opt   Options
	v     *viper.Viper
	paths []string // the config files, in order
	// source names the last file (for decode's messages); sources records
	// the file, SMRL_* variable or flag that set each key, so that a bad
	// value is reported against it; origins the same with the file's line
	// (smrl config --sources).
	source           string
	sources, origins map[string]string
	// rank is the precedence of the source that set each key: the files
	// in order, then SMRL_*, --set, flags and grid points.
	rank map[string]int
}

// newLayers starts a Load with the embedded and registered defaults.
func newLayers(opt Options) (*layers, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	// As v.ReadConfig(default.yaml) then v.MergeConfigMap(defaultSections()),
	// from trees parsed once (defaultscache.go).
	embedded, secs, embeddedErr, secsErr := defaultMaps()
	if embeddedErr != nil {
		return nil, fmt.Errorf("embedded defaults: While parsing config: %w", embeddedErr) // viper.ConfigParseError's wording
	}
	if secsErr != nil {
		return nil, fmt.Errorf("registered defaults: %w", secsErr)
	}
	if err := v.MergeConfigMap(embedded); err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	if err := v.MergeConfigMap(secs); err != nil {
		return nil, fmt.Errorf("registered defaults: %w", err)
	}
	l := &layers{opt: opt, v: v, paths: opt.Paths, source: "config",
		sources: map[string]string{}, origins: map[string]string{}, rank: map[string]int{}}
	if opt.Path != "" {
		l.paths = append([]string{opt.Path}, l.paths...)
	}
	return l, nil
}

// mergeFile merges the config file path, the i-th, after checking that it
// is one YAML document of known keys; its sweep: section goes to
// opt.Sweep (an error without one). A file read before with the same
// bytes (and registry) is not parsed or checked again (filecache.go).
func (l *layers) mergeFile(i int, path string) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	f, cached := cachedFile(data)
	var doc *yaml.Node
	if !cached {
		f = &parsedFile{}
		if doc, err = firstDocument(path, data); err != nil {
			return err
		}
		if f.rest, doc, f.sweepKey, f.sweep, err = cutSection(path, data, doc, SweepSection); err != nil {
			return err
		}
	}
	if f.sweepKey != nil && l.opt.Sweep == nil {
		return errs.Invalid(fmt.Errorf("%s line %d: the %s: section is a grid for smrl sweep: run it with smrl sweep --config %s", path, f.sweepKey.Line, SweepSection, path))
	}
	if f.sweepKey != nil {
		// The callback may change the nodes (smrl sweep cuts its
		// sample: entry): it gets copies, the cache keeps the tree.
		if err := l.opt.Sweep(copyNode(f.sweepKey), copyNode(f.sweep)); err != nil {
			return err
		}
	}
	if !cached {
		if f.keys, f.settings, err = checkKnownKeys(path, f.rest, doc); err != nil {
			return err
		}
		storeFile(data, f)
	}
	if f.settings != nil { // as MergeConfig reads data (yaml into a map), from the tree already parsed
		if err := l.v.MergeConfigMap(deepCopy(f.settings).(map[string]any)); err != nil {
			return errs.Invalid(fmt.Errorf("%s: %w", path, err))
		}
	} else if err := l.v.MergeConfig(bytes.NewReader(f.rest)); err != nil {
		return errs.Invalid(fmt.Errorf("%s: %w", path, err))
	}
	l.source = path
	for _, k := range f.keys {
		l.sources[k.key], l.rank[k.key] = path, i
		l.origins[k.key] = fmt.Sprintf("%s:%d", path, k.line)
	}
	return nil
}

// mergeEnviron sets the keys of the SMRL_* variables of opt.Environ,
// warning of a variable that names no key.
func (l *layers) mergeEnviron() error {
	for _, kv := range l.opt.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "SMRL_") {
			continue
		}
		key := ""
		if suffix := strings.TrimPrefix(name, "SMRL_"); envSuffixCase(suffix) {
			key = envKey(l.v, suffix)
		}
		if key == "" {
			if l.opt.Warn != nil && !slices.Contains(NonConfigEnv, name) {
				l.opt.Warn(misspeltEnv(l.v, name))
			}
			continue
		}
		x, err := parseEnv(fieldType(key), val)
		if cvWordKey(key) && strings.TrimSpace(val) == LambdaCVWord {
			x, err = LambdaCVWord, nil
		}
		if err != nil {
			return errs.Invalid(fmt.Errorf("%s=%q: %s %v", name, val, key, err))
		}
		l.v.Set(key, x)
		l.sources[key], l.origins[key], l.rank[key] = name, name, len(l.paths)
	}
	return nil
}

// mergeSetsAndFlags sets the keys of --set, then of the flags changed on
// the command line (viper's Set has the highest precedence, so later Sets
// win), noting a flag that overrides a list (noteOverride).
func (l *layers) mergeSetsAndFlags() {
	for _, s := range l.opt.Set {
		l.v.Set(s.Key, s.Value)
		l.sources[s.Key], l.origins[s.Key], l.rank[s.Key] = s.Source, s.Source, len(l.paths)+1
	}
	for key, f := range l.opt.Flags {
		if f == nil || !f.Changed {
			continue
		}
		var x any = f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			x = sv.GetSlice()
		}
		if prev, ok := l.sources[key]; ok && l.opt.Warn != nil && slices.Contains(noteOverride, key) {
			if old := fmt.Sprint(l.v.Get(key)); old != fmt.Sprint(x) {
				l.opt.Warn(fmt.Sprintf("note: --%s %s overrides %s = %s from %s", f.Name, strings.Join(toStrings(x), ","), key, old, prev))
			}
		}
		l.v.Set(key, x)
		l.sources[key], l.origins[key], l.rank[key] = "--"+f.Name, "--"+f.Name, len(l.paths)+2
	}
}

// mergePoint sets the keys of a sweep's grid point; a key the point sweeps
// may be set by a file only.
func (l *layers) mergePoint() error {
	for _, s := range l.opt.Point {
		if prev, ok := l.sources[s.Key]; ok && !slices.Contains(l.paths, prev) {
			return errs.Invalid(fmt.Errorf("%s sweeps %s, which %s also sets: give it in one place", s.Source, s.Key, prev))
		}
		l.v.Set(s.Key, s.Value)
		l.sources[s.Key], l.origins[s.Key], l.rank[s.Key] = s.Source, s.Source, len(l.paths)+3
	}
	return nil
}

// check validates the decoded c: the keys set for parts c does not select
// (not for a snapshot) and every value, all problems in one error.
func (l *layers) check(c *Config) error {
	var problems []error
	if !l.opt.Snapshot {
		// A key of an unselected part is an error, unless a source above
		// the key's changed the selection (as a Hydra group override
		// drops the options of the part it replaces: SMRL_PLANNER_KIND=cem
		// over a file with a planner.mppi section), or a config file sets
		// a key only agents it does not list read (the confidence
		// settings of the -ucb agents, which --agents may select).
		set := map[string]string{}
		for k, src := range l.sources {
			file := slices.Contains(l.paths, src)
			if c.Uses(k) || c.overridden(k, l.rank) || (file && c.onlyAgentsUnselect(k)) || c.replacedAtDefault(k) {
				continue
			}
			set[k] = src
		}
		problems = append(problems, c.checkSetUnused(set)...)
	}
	if err := c.validate(!l.opt.IgnoreAgents); err != nil {
		problems = append(problems, err)
	}
	if err := errors.Join(problems...); err != nil {
		return errs.Invalid(attribute(err, strings.Join(l.paths, ", "), l.sources))
	}
	return nil
}

// decode decodes the settings of v into a Config: the core keys into its
// fields, each registered section into a value of its part's type.
func decode(v *viper.Viper, source string) (*Config, error) {
	all := v.AllSettings()
	c := &Config{parts: map[string]any{}, memo: &usesCache{}}
	for _, path := range sectionPaths() {
		x := reflect.New(sectionType(path))
		if err := unmarshalExact(cutPath(all, path), x.Interface()); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %s: %s", source, path, strings.Join(strings.Fields(err.Error()), " ")))
		}
		c.parts[path] = x.Interface()
	}
	for path, sub := range cutShared(all) {
		x := reflect.New(sharedAt(path).typ)
		if err := unmarshalExact(sub, x.Interface()); err != nil {
			return nil, errs.Invalid(fmt.Errorf("%s: %s: %s", source, path, strings.Join(strings.Fields(err.Error()), " ")))
		}
		c.parts[path] = x.Interface()
	}
	if err := unmarshalExact(all, c); err != nil {
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
	rv, err := c.keyValue(key)
	if err != nil {
		return fmt.Errorf("internal error: %w", err)
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
