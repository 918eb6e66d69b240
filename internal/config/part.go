package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// This file is the registry of parts: the environments, planners,
// families, feature maps and agents that a config selects. config knows
// no part by name. Each part declares, next to its code and with one
// Register call, the keys it owns: its own section (a typed struct with
// its defaults) and the keys of the shared sections only it reads. From
// the registry config assembles the schema: the keys and their defaults,
// which keys a config uses (Uses), the snapshot (YAML holds exactly those),
// and the documentation of smrl list.
//
// A key is used when every group that owns it (through a part that lists
// it, or one of its sections) has one of its owners selected; a key no
// part owns is always used. A part is selected when its group key is used
// and names it (a list key such as agents: when it lists it).

// Bad reports a problem with a config key: bad("env.cartpole.dt", "must
// be > 0, got %v", x). Validation collects them all.
type Bad func(key, format string, args ...any)

// Alias is another name of a part (a Gymnasium id): a config that names it
// selects the part, with the keys of Set taking these values unless the
// config sets them itself.
type Alias struct {
	Name string
	Set  map[string]any
}

// Part is a registered part of an experiment.
type Part struct {
	// Group is the config key that selects the part: env.kind,
	// planner.kind, env.family.kind, env.features.kind,
	// model.features.kind, agents, ... (see Groups).
	Group string
	// Name is the value of Group that selects the part.
	Name    string
	Aliases []Alias
	// Doc is a one-line description (smrl list).
	Doc string
	// Section is the path of the part's own section ("env.cartpole"), or
	// "" when it has none. Defaults points to a struct holding its
	// defaults; its fields carry mapstructure and yaml tags with the key
	// names, and a doc tag with a one-line description each.
	Section  string
	Defaults any
	// Uses lists the keys or sections outside Section that the part reads
	// and that not every config uses ("env.family.freq", "model").
	Uses []string
	// Dim is d_s when the part (an environment) fixes it; 0 otherwise
	// (env.family.dim gives it); DimFromEnv when only the built
	// environment knows it (env.kind external asks its process).
	Dim int
	// PhiDim, of a feature map, returns d_phi for d_s state and d_a
	// action coordinates, reading the part's keys in section
	// (env.features or model.features) of c; ok is false when c does not
	// determine it. SizeKey names the key that sets d_phi when it is not
	// d_s ("dim", relative to the section, or a full key: "env.actions"),
	// for the messages of the memory checks.
	PhiDim  func(c *Config, section string, ds, da int) (dphi int, ok bool)
	SizeKey string
	// Stats, of a family, is the number of sufficient statistics per
	// coordinate of s' (0: one). ConstantC marks a family whose C(s')
	// does not depend on s' (the Gaussian): score matching keeps one
	// d_phi² block, and the theory β's constants can be derived. C
	// describes C(s') for the message that α₁ = inf C(s') = 0.
	Stats     int
	ConstantC bool
	C         func(c *Config) string
	// StatsOf, of a family whose statistics are given by the config (the
	// expression families: the length of each psi list), returns d_psi
	// for ds coordinates of s' (for one coordinate: the largest number of
	// statistics of a coordinate). nil: ds·max(Stats, 1).
	StatsOf func(c *Config, ds int) int
	// DimOf, of a family whose own keys fix d_s (the rows of
	// gaussian-coupled's precision, the largest x_i of a joint
	// expression), returns it; ok is false when they do not. Load sets
	// env.family.dim to it when no source sets dim.
	DimOf func(c *Config) (d int, ok bool)
	// LambdaCV, of an agent, marks one that can choose its λ by
	// cross-validation at every refit (lambda: cv; see cv.grid, cv.folds).
	LambdaCV bool
	// FitFloats, of a learning agent, returns the float64s of the largest
	// matrices it holds for a family of nblocks blocks of m statistics
	// each and d_phi features, constC when C(s') is constant: the memory
	// bound of validation (MaxTrialFloats). nil: it fits nothing.
	FitFloats func(nblocks, m, dphi int, constC bool) float64
	// GaussianModel, of an agent, marks one whose model is Gaussian
	// whatever the family (lds and its variants), so the theory β's
	// constants are derived for it.
	GaussianModel bool
	// Baseline, of an agent, marks the regret baseline: the agent whose
	// reward on a seed every other agent's regret on that seed is paired
	// against, and the reference of the optimality gap (the oracle).
	// Readers of results files ask IsBaseline, so they need no agent name.
	Baseline bool
	// Look, of an agent, is how the figures draw it (nil: a style chosen
	// from a hash of its name).
	Look *Look
	// Confidence, of a learning agent, is how it plans with the confidence
	// set of its estimate: "ucb" (optimistic: the best candidate on the
	// set's boundary), "ps" (posterior sampling); "" for an agent that
	// plans with Ŵ alone or fits nothing. UsesConfidence and Optimistic
	// read it, so no code keys on an agent's name.
	Confidence string
	// BindsData, of a learning agent, marks one that binds a data-bound
	// family of model.family (DataBound) to its transitions at its refits
	// (the greedy sm agent and the kernel family); validateDataBound
	// refuses the other learners with such a family.
	BindsData bool
	// DataBound, of a family in model.family, marks one whose statistics
	// are chosen from the data when a fit binds them (the kernel family's
	// centres, bandwidth and base scale): smrl estimate --data binds it,
	// and of the learning agents only those that declare BindsData refit
	// it, so a run with another learner is refused at validation
	// (model.family), before anything is written. Its text ends the
	// refusal: what to use instead.
	DataBound string
	// BoundValidate, of a DataBound family, checks what a run whose
	// agents bind it requires of the config (the kernel family: no joint
	// graph of d > 1, no standard errors, no init_model); it runs when an
	// agent that binds it is listed.
	BoundValidate func(c *Config, bad Bad)
	// LDSUsable, of a feature map (model.features.kind), marks one that
	// model.lds_features may name as the lds agent's own features: a map
	// linear in (s, a) (LDSFeatureNames).
	LDSUsable bool
	// Keys declares the keys the part reads in sections it shares with
	// the core and other parts (a family's parameters in env.family, a
	// feature map's in env.features): see KeySet. Read them with Shared.
	Keys []KeySet
	// Validate checks the part's keys (Section's value is Section(c,
	// p.Section)) and what it requires of the rest of c. It runs only when
	// the part is selected.
	Validate func(c *Config, bad Bad)
}

// Group is a config key whose value selects parts.
type Group struct {
	Key  string // "env.kind"
	Noun string // "environment": unknown environment "x"
	List string // the argument of smrl list: "envs"
}

// Groups are the keys that select parts, in the order smrl list shows them.
var Groups = []Group{
	{"env.kind", "environment", "envs"},
	{"env.action_space", "action space", "action-spaces"},
	{"env.family.kind", "family", "families"},
	{"env.features.kind", "features", "features"},
	{"model.family", "family", "model-families"},
	{"model.features.kind", "features", "model-features"},
	{"planner.kind", "planner", "planners"},
	{"planner.mode", "mode", "planner-modes"},
	{"agents", "agent", "agents"},
}

var registry struct {
	sync.Mutex
	parts []Part
}

// Register adds a part. It panics on a programming error: an unknown
// group, a name registered twice, or a section without defaults.
func Register(p Part) {
	registry.Lock()
	defer registry.Unlock()
	if !slices.ContainsFunc(Groups, func(g Group) bool { return g.Key == p.Group }) {
		panic(fmt.Sprintf("config.Register(%s): unknown group %q", p.Name, p.Group))
	}
	for _, q := range registry.parts {
		if q.Group == p.Group && (q.Name == p.Name || slices.ContainsFunc(q.Aliases, func(a Alias) bool { return a.Name == p.Name })) {
			panic(fmt.Sprintf("config.Register: %s %q registered twice", p.Group, p.Name))
		}
	}
	if p.Section != "" {
		if p.Defaults == nil || reflect.TypeOf(p.Defaults).Kind() != reflect.Pointer || reflect.TypeOf(p.Defaults).Elem().Kind() != reflect.Struct {
			panic(fmt.Sprintf("config.Register(%s): section %s needs Defaults, a pointer to a struct", p.Name, p.Section))
		}
	}
	for _, ks := range p.Keys {
		if p.Section != "" && p.Section == ks.At {
			panic(fmt.Sprintf("config.Register(%s): %s is its own section and a shared one", p.Name, ks.At))
		}
		checkKeySet(p, ks, registry.parts)
	}
	registry.parts = append(registry.parts, p)
}

// Parts returns the parts of group key, in registration order.
func Parts(group string) []Part {
	var out []Part
	for _, p := range allParts() {
		if p.Group == group {
			out = append(out, p)
		}
	}
	return out
}

// Names returns the names of the parts of group key.
func Names(group string) []string {
	var out []string
	for _, p := range Parts(group) {
		out = append(out, p.Name)
	}
	return out
}

// allParts returns the registered parts. The slice is shared: Register
// only appends, so a caller's view never changes; callers must not modify
// it.
func allParts() []Part {
	registry.Lock()
	defer registry.Unlock()
	return registry.parts[:len(registry.parts):len(registry.parts)]
}

// lookup returns the part of group named name (or one of its aliases).
func lookup(group, name string) (Part, bool) {
	// The registry's slice itself, not Parts' copy of the group: validation
	// looks an agent up once per listed agent (100 000 duplicates in a test).
	all := allParts()
	for i := range all {
		p := &all[i]
		if p.Group != group {
			continue
		}
		if p.Name == name || slices.ContainsFunc(p.Aliases, func(a Alias) bool { return a.Name == name }) {
			return *p, true
		}
	}
	return Part{}, false
}

// IsBaseline reports whether the named agent's registration declares it
// the regret baseline (Part.Baseline); false for an unknown name.
func IsBaseline(agent string) bool {
	p, ok := lookup("agents", agent)
	return ok && p.Baseline
}

// InTrueFamily reports whether the Ŵ of agent in c's run lives in the
// family of the truth, so that |Ŵ − W0|_F is an estimation error: every
// agent but one whose model is Gaussian whatever the family (lds and its
// variants, Part.GaussianModel), which does only when the true family is
// env.family.kind gaussian (one family for all coordinates) with its
// sigma equal to lds.sigma. Otherwise the lds agent's W holds the natural
// parameters of another family, and its distance to W0 compares two
// different things (issue 38: it looked best).
func InTrueFamily(c *Config, agent string) bool {
	p, ok := lookup("agents", agent)
	if !ok || !p.GaussianModel {
		return true
	}
	sigma := Shared[struct {
		Sigma float64 `yaml:"sigma"`
	}](c, "env.family").Sigma // the gaussian family's key (package env)
	return c.Env.Family.Kind == "gaussian" && sigma == Shared[struct {
		Sigma float64 `yaml:"sigma"`
	}](c, "lds").Sigma // lds.sigma, the lds estimator's key (package agent)
}

// Look is how the figures draw an agent, the same in every figure: Color
// its line, marker and band colour (sRGB), Marker its marker (circle, ring,
// square, box, triangle, pyramid, plus or cross), Dashes its line's dash
// pattern in points (nil: solid), and Rank its place in legends and tables
// (ascending; agents without a Look follow, by name). It is plain data so
// that the figures, which link no agent, read it from the registry.
type Look struct {
	Color  [3]uint8
	Marker string
	Dashes []float64
	Rank   int
}

// AgentLook returns the Look the named agent's registration declares; ok
// is false for an unknown agent or one without a Look.
func AgentLook(agent string) (look Look, ok bool) {
	p, found := lookup("agents", agent)
	if !found || p.Look == nil {
		return Look{}, false
	}
	return *p.Look, true
}

// sectionType returns the type of the registered section at path, nil if
// none.
func sectionType(path string) reflect.Type {
	for _, p := range allParts() {
		if p.Section == path {
			return reflect.TypeOf(p.Defaults).Elem()
		}
	}
	return nil
}

// sectionPaths returns the registered sections' paths, each once, in
// registration order.
func sectionPaths() []string {
	var out []string
	for _, p := range allParts() {
		if p.Section != "" && !slices.Contains(out, p.Section) {
			out = append(out, p.Section)
		}
	}
	return out
}

// Section returns c's value of the registered section at path (a pointer
// to the part's struct type T); the part's defaults when c has none (a
// Config built by hand). It panics when T is not the section's type.
func Section[T any](c *Config, path string) *T {
	if v, ok := c.parts[path]; ok {
		return v.(*T)
	}
	for _, p := range allParts() {
		if p.Section == path {
			d := *(p.Defaults.(*T))
			if c.parts == nil {
				c.parts = map[string]any{}
			}
			c.parts[path] = &d
			return &d
		}
	}
	panic(fmt.Sprintf("config.Section: no part registers section %s", path))
}

// clone returns a copy of c whose sections are copies too.
func (c *Config) clone() *Config {
	d := *c
	d.memo = &usesCache{}
	d.parts = make(map[string]any, len(c.parts))
	for k, v := range c.parts {
		x := reflect.New(reflect.TypeOf(v).Elem())
		x.Elem().Set(reflect.ValueOf(v).Elem())
		d.parts[k] = x.Interface()
	}
	return &d
}

// defaultSections returns the registered sections' defaults as a nested
// map (env → cartpole → gravity → 9.8), for viper.
func defaultSections() (map[string]any, error) {
	root := map[string]any{}
	for _, p := range allParts() {
		if p.Section == "" {
			continue
		}
		b, err := yaml.Marshal(p.Defaults)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		parts := strings.Split(p.Section, ".")
		at := root
		for _, k := range parts[:len(parts)-1] {
			next, ok := at[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				at[k] = next
			}
			at = next
		}
		at[parts[len(parts)-1]] = m
	}
	sharedDefaults(root)
	return root, nil
}

// groupValues returns the value(s) of group key in c.
func (c *Config) groupValues(key string) []string {
	v, err := c.value(key)
	if err != nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	}
	return nil
}

// value returns the value of key in c (a core key or a section's).
func (c *Config) value(key string) (any, error) {
	rv, err := c.keyValue(key)
	if err != nil {
		return nil, err
	}
	return rv.Interface(), nil
}

// keyValue returns the settable value of key in c: a field of Config, a
// key a part declares in a shared section, a section a part adds to a
// shared one, or a key of a part's own section.
func (c *Config) keyValue(key string) (reflect.Value, error) {
	rv := reflect.ValueOf(c).Elem()
	if path := corePath(key); path != nil {
		return rv.FieldByIndex(path), nil // as the loop below finds it
	}
	var prefix string
	for _, part := range strings.Split(key, ".") {
		parent := prefix
		prefix = joinKey(prefix, part)
		if rv.Kind() != reflect.Struct {
			return reflect.Value{}, fmt.Errorf("no key %s", key)
		}
		if f, ok := fieldByTag(rv.Type(), part); ok {
			rv = rv.FieldByIndex(f.Index)
			continue
		}
		if s := sharedAt(parent); s != nil && s.field(part) >= 0 {
			rv = c.sharedValue(s).Elem().Field(s.field(part))
			continue
		}
		if s := addedAt(prefix); s != nil {
			rv = c.sharedValue(s).Elem()
			continue
		}
		if v, ok := c.parts[prefix]; ok {
			rv = reflect.ValueOf(v).Elem()
			continue
		}
		if sectionType(prefix) != nil {
			return reflect.Value{}, fmt.Errorf("no section %s", prefix)
		}
		return reflect.Value{}, fmt.Errorf("no key %s", key)
	}
	return rv, nil
}

// fieldByTag returns the field of struct type t whose yaml name is name.
// Config.value asks it for every part of every key Uses looks at, so the
// fields of a type are indexed by yaml name once (tagIndex).
func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	idx, ok := tagIndex(t)[name]
	if !ok {
		return reflect.StructField{}, false
	}
	return t.Field(idx), true
}

// tagFields caches tagIndex per struct type: types are few and fixed.
var tagFields sync.Map // reflect.Type → map[string]int

// tagIndex maps the yaml names of struct type t's fields to their index;
// the first field of a name wins, "-" names none.
func tagIndex(t reflect.Type) map[string]int {
	if m, ok := tagFields.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if _, seen := m[tag]; !seen && tag != "-" {
			m[tag] = i
		}
	}
	tagFields.Store(t, m)
	return m
}

// owns reports whether part p owns key: key is, or lies in, its section or
// one of the keys it uses.
func owns(p Part, key string) bool {
	in := func(s string) bool { return s != "" && within(key, s) }
	return in(p.Section) || slices.ContainsFunc(p.Uses, in)
}

// within reports whether key is section or lies in it (section + "." + …),
// without building the prefix: Uses asks it of every part for every key.
func within(key, section string) bool {
	return strings.HasPrefix(key, section) && (len(key) == len(section) || key[len(section)] == '.')
}

// replacement is a key whose value, when set, replaces keys beside it in
// the same part: a choice within a part that no group key makes.
type replacement struct {
	by   string   // the key that replaces, when not empty
	keys []string // the keys (or sections) it replaces
	what string   // what by gives instead, for messages
}

// replacements are the choices made by a key's value. The reward is the
// bumps of width and centers, or the expression.
var replacements = []replacement{
	{"env.reward.expression", []string{"env.reward.width", "env.reward.centers"}, "the reward is that expression, not the bumps of env.reward.width and env.reward.centers"},
}

// replaces reports whether key is, or lies in, one of the keys r replaces.
func (r replacement) replaces(key string) bool {
	return slices.ContainsFunc(r.keys, func(k string) bool { return within(key, k) })
}

// replacedBy returns the key whose set value replaces key in c, or "".
func (c *Config) replacedBy(key string) string {
	for _, r := range replacements {
		if !r.replaces(key) {
			continue
		}
		if v, err := c.value(r.by); err == nil && !reflect.ValueOf(v).IsZero() {
			return r.by
		}
	}
	return ""
}

// replacedAtDefault reports whether key is replaced (replacedBy) yet holds
// its embedded default: the snapshots of earlier versions recorded the
// bumps' default width and centers beside an expression reward, and
// smrl run --config DIR/config.yaml must still repeat such a run. A
// replaced key set to anything else is refused as unused.
func (c *Config) replacedAtDefault(key string) bool {
	if c.replacedBy(key) == "" {
		return false
	}
	d, err := embeddedDefaults()
	if err != nil {
		return false
	}
	v, err1 := c.value(key)
	dv, err2 := d.value(key)
	return err1 == nil && err2 == nil && reflect.DeepEqual(v, dv)
}

// embeddedDefaults returns the config of the embedded defaults alone,
// loaded once (set in init: Load refers to it).
var embeddedDefaults func() (*Config, error)

func init() {
	embeddedDefaults = sync.OnceValues(func() (*Config, error) { return Load(Options{NoValidate: true}) })
}

// familyStats returns d_psi of family part p for ds coordinates (see
// Part.StatsOf).
func familyStats(c *Config, p Part, ds int) int {
	if p.StatsOf != nil {
		return p.StatsOf(c, ds)
	}
	return ds * max(p.Stats, 1)
}

// whyUnused says why key is not used: the group whose value selects none
// of key's owners ("env.kind is expfam").
func (c *Config) whyUnused(key string) string {
	if by := c.replacedBy(key); by != "" {
		i := slices.IndexFunc(replacements, func(r replacement) bool { return r.by == by })
		return fmt.Sprintf("%s is set: %s", by, replacements[i].what)
	}
	groups := map[string][]string{}
	for _, p := range allParts() {
		if owns(p, key) {
			groups[p.Group] = append(groups[p.Group], p.Name)
		}
	}
	// A used group that selects none of the owners explains it best; an
	// unused group only when no owning group is used.
	order := slices.Sorted(maps.Keys(groups))
	slices.SortStableFunc(order, func(a, b string) int {
		ua, ub := c.Uses(a), c.Uses(b)
		switch {
		case ua && !ub:
			return -1
		case ub && !ua:
			return 1
		}
		return 0
	})
	for _, g := range order {
		names := groups[g]
		if slices.ContainsFunc(names, func(n string) bool { p, _ := lookup(g, n); return c.selectedPart(&p) }) {
			continue
		}
		if !c.Uses(g) {
			return fmt.Sprintf("%s (which selects %s) is not used: %s", g, strings.Join(names, ", "), c.whyUnused(g))
		}
		vals := c.groupValues(g)
		if len(names) == 1 {
			return fmt.Sprintf("%s is %s (it is used by %s %s only)", g, strings.Join(vals, ", "), g, names[0])
		}
		return fmt.Sprintf("%s is %s (it is used by %s %s)", g, strings.Join(vals, ", "), g, orList(names))
	}
	return "it is not used"
}

func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// validateParts checks every used group key's value against its parts and
// runs the Validate of every selected part.
func (c *Config) validateParts(bad Bad, agents bool) {
	for _, g := range Groups {
		if !agents && agentsOnly(g.Key) {
			continue
		}
		if !c.Uses(g.Key) {
			continue
		}
		names := Names(g.Key)
		// The first unknown name, with how many more there are: a list
		// of 100 000 made a 5 MB error line.
		var unknown []string
		seen := map[string]bool{}
		for _, v := range c.groupValues(g.Key) {
			if !slices.Contains(names, v) && !seen[v] {
				unknown = append(unknown, v)
			}
			seen[v] = true
		}
		if len(unknown) > 0 {
			bad(g.Key, "unknown %s %q%s (known: %v)", g.Noun, clip(unknown[0]), andMore(len(unknown)), names)
		}
	}
	for _, p := range allParts() {
		if p.Validate == nil || (!agents && agentsOnly(p.Group)) {
			continue
		}
		if c.selectedPart(&p) {
			p.Validate(c, bad)
		}
	}
}

// DimFromEnv is Part.Dim of an environment whose d_s only the built
// environment knows: the checks of keys sized by d_s (model.sigma,
// model.family, model.input_scale, expressions of s0, s1, …) wait for it.
const DimFromEnv = -1

// agentsOnly reports whether the parts of group are read by agents alone
// (the agents and their planners), so work that runs no agent (smrl
// estimate) neither checks nor needs them.
func agentsOnly(group string) bool {
	return group == "agents" || strings.HasPrefix(group, "planner.")
}

// EnvDim returns d_s as the selected environment fixes it (0: from the
// config's env.family.dim; DimFromEnv: known once the environment is
// built).
func (c *Config) EnvDim() int {
	if p, ok := lookup("env.kind", c.Env.Kind); ok {
		return p.Dim
	}
	return 0
}

// Origin says where c's value of key comes from: "default", a file and
// line ("a.yaml:12"), an SMRL_* variable, "--set" or a flag ("--seeds").
func (c *Config) Origin(key string) string {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return "default"
}

// Equal reports whether c and d run the same experiment with the same
// settings: their snapshots (YAML) are equal.
func (c *Config) Equal(d *Config) bool {
	a, err := c.YAML()
	if err != nil {
		return false
	}
	b, err := d.YAML()
	return err == nil && string(a) == string(b)
}

// onlyAgentsUnselect reports whether key is unused only because the
// agents listed do not read it.
func (c *Config) onlyAgentsUnselect(key string) bool {
	if c.Uses(key) || c.replacedBy(key) != "" {
		return false
	}
	for _, p := range allParts() {
		if owns(p, key) && p.Group != "agents" && !c.selectedPart(&p) {
			return false
		}
	}
	return true
}

// overridden reports whether key is unused only because of selections
// that a source of higher precedence than key's made (rank, see Load; a
// default has none): a group whose value such a source set, or a group
// that is itself unused for that reason.
func (c *Config) overridden(key string, rank map[string]int) bool {
	r, ok := rank[key]
	if by := c.replacedBy(key); by != "" {
		// A source above key's set the replacing key (an expression
		// reward by --set over a file's bumps).
		rb, set := rank[by]
		return ok && set && rb > r
	}
	return ok && c.overriddenAbove(key, r, map[string]bool{})
}

func (c *Config) overriddenAbove(key string, r int, seen map[string]bool) bool {
	if seen[key] {
		return false
	}
	seen[key] = true
	groups := map[string]bool{}
	for _, p := range allParts() {
		if owns(p, key) {
			groups[p.Group] = groups[p.Group] || c.selectedPart(&p)
		}
	}
	found := false
	for g, sel := range groups {
		if sel {
			continue
		}
		if gr, ok := c.rank[g]; ok && gr > r && c.Uses(g) {
			found = true
			continue
		}
		if !c.Uses(g) && c.overriddenAbove(g, r, seen) {
			found = true
			continue
		}
		return false
	}
	return found
}
