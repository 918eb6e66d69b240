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

// This file holds the keys that parts declare in sections they share: a
// family's parameters in env.family and model (custom-sin's freq and
// alpha), a feature map's in env.features and model.features (rff's dim,
// length and seed). Unlike a part's own Section, such a section also holds
// the core's keys (env.family.kind, .dim) and other parts' keys, so a
// part declares only its keys there (KeySet), and config merges the
// declarations of every part into one value per section, with the core's
// keys beside it in the Config struct. A part reads its keys back with
// Shared; the schema (Keys, KeyDocs, the snapshot, the strict reading of
// files, SMRL_* variables) sees them as any other key.

// KeySet declares keys a part reads in a shared section. At is the
// section's path ("env.family"), a struct of the Config (the core's).
// Defaults points to a struct whose exported fields are the keys: their
// mapstructure and yaml tags name them, a doc tag documents each (smrl
// list keys, docs/configuration.md), and the field values are the
// defaults. A field's `after:"key"` tag places it, and the fields that
// follow it in the struct, right after that key of the section; without
// one a key follows the keys declared before it, the core's first: that
// order is the order of the key table and of the snapshot, which old
// results directories hold, so a new key goes last and needs no tag.
//
// Several parts may declare one key (custom-sin, exp-sin and x-sin all
// read env.family.alpha): the first declaration in registration order
// gives its type, default, doc and place; a later one must give the same
// type and default (Register panics otherwise), and its doc may be empty.
type KeySet struct {
	At       string
	Defaults any
	// After, of keys at a path that is no struct of the Config (a
	// section the parts add: sm, lds, confidence), places that section
	// after this key of its parent ("planner"); "" puts it last.
	After string
	// Validate, when not nil, checks the keys: it runs once per
	// validation when the section is used (a part that reads it is
	// selected) or unused only because of the agents listed, however many
	// parts declare it.
	Validate func(c *Config, bad Bad)
	// Legacy gives keys of the set ("sm.floor") the value a snapshot of
	// an earlier smrl version that lacks them ran with, where a later
	// version changed the default: a --resume or merge of such a run
	// continues (or is refused as) the run it was.
	Legacy map[string]any
}

// sharedKey is one declared key of a shared section.
type sharedKey struct {
	name  string              // its yaml name
	field reflect.StructField // the first declaration's field (its tags)
	def   reflect.Value       // its default
	after string              // the key it follows ("" none)
}

// sharedSection is the merged declaration of a shared section: its keys,
// in declaration order, and the struct type that holds their values
// (fields K0, K1, … with the declarations' tags).
type sharedSection struct {
	path string
	keys []sharedKey
	typ  reflect.Type
	// added is true for a section the parts add (no struct of the
	// Config holds it), placed after the key after of its parent.
	added    bool
	after    string
	validate func(c *Config, bad Bad)
	legacy   map[string]any
}

var shared struct {
	sync.Mutex
	n     int // the registry's length when secs was built
	secs  map[string]*sharedSection
	paths []string
}

// sharedSections returns the shared sections of the registered parts, by
// path, and their paths in declaration order, rebuilt after a Register.
func sharedSections() (map[string]*sharedSection, []string) {
	parts := allParts()
	shared.Lock()
	defer shared.Unlock()
	if shared.secs != nil && shared.n == len(parts) {
		return shared.secs, shared.paths
	}
	secs := map[string]*sharedSection{}
	var paths []string
	for _, p := range parts {
		for _, ks := range p.Keys {
			s := secs[ks.At]
			if s == nil {
				s = &sharedSection{path: ks.At, added: coreType(ks.At) == nil, after: ks.After}
				secs[ks.At] = s
				paths = append(paths, ks.At)
			}
			s.keys = mergeKeys(s.keys, ks)
			if s.validate == nil {
				s.validate = ks.Validate
			}
			if s.legacy == nil {
				s.legacy = ks.Legacy
			}
		}
	}
	for _, s := range secs {
		fields := make([]reflect.StructField, len(s.keys))
		for i, k := range s.keys {
			fields[i] = reflect.StructField{Name: fmt.Sprintf("K%d", i), Type: k.field.Type,
				Tag: reflect.StructTag(fmt.Sprintf(`mapstructure:%q yaml:%q doc:%q`, k.name, k.field.Tag.Get("yaml"), k.field.Tag.Get("doc")))}
		}
		s.typ = reflect.StructOf(fields)
	}
	shared.secs, shared.paths, shared.n = secs, paths, len(parts)
	return secs, paths
}

// mergeKeys adds the keys of ks to keys (their section's so far), checked
// by checkKeySet at registration.
func mergeKeys(keys []sharedKey, ks KeySet) []sharedKey {
	v := reflect.ValueOf(ks.Defaults).Elem()
	after := ""
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if a := f.Tag.Get("after"); a != "" {
			after = a
		}
		if !slices.ContainsFunc(keys, func(k sharedKey) bool { return k.name == name }) {
			keys = append(keys, sharedKey{name: name, field: f, def: v.Field(i), after: after})
		}
		if after != "" {
			after = name // the struct's next field follows this one
		}
	}
	return keys
}

// checkKeySet panics on a programming error in p's declaration ks: no
// struct, a field without a yaml name or of a struct type, or a key
// declared before with another type or default.
func checkKeySet(p Part, ks KeySet, parts []Part) {
	t := reflect.TypeOf(ks.Defaults)
	if ks.At == "" || t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("config.Register(%s): Keys at %q need Defaults, a pointer to a struct", p.Name, ks.At))
	}
	ct := coreType(ks.At)
	if ct == nil {
		// A section the parts add: its parent must be the Config's.
		parent, _ := splitKey(ks.At)
		own := slices.ContainsFunc(parts, func(q Part) bool { return q.Section == ks.At }) // not sectionType: Register holds the registry's lock
		if pt := coreType(parent); pt == nil || pt.Kind() != reflect.Struct || own {
			panic(fmt.Sprintf("config.Register(%s): Keys at %s: its parent is no section of the Config, or it is a part's own section", p.Name, ks.At))
		}
		ct = reflect.TypeOf(struct{}{})
	}
	if ct.Kind() != reflect.Struct {
		panic(fmt.Sprintf("config.Register(%s): Keys at %s: no section of the Config", p.Name, ks.At))
	}
	v := reflect.ValueOf(ks.Defaults).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		// Maps and pointers are refused too: Defaults hands out deep
		// copies of the default config, which cannot copy them.
		if k := f.Type.Kind(); name == "" || name == "-" || !f.IsExported() || k == reflect.Struct || k == reflect.Map || k == reflect.Pointer {
			panic(fmt.Sprintf("config.Register(%s): field %s of its keys at %s needs a yaml name and a type that is not a struct, map or pointer", p.Name, f.Name, ks.At))
		}
		if _, ok := fieldByTag(ct, name); ok {
			panic(fmt.Sprintf("config.Register(%s): %s.%s is a core key", p.Name, ks.At, name))
		}
		for _, q := range parts {
			for _, qs := range q.Keys {
				if qs.At != ks.At {
					continue
				}
				qf, ok := fieldByTag(reflect.TypeOf(qs.Defaults).Elem(), name)
				if !ok {
					continue
				}
				qv := reflect.ValueOf(qs.Defaults).Elem().FieldByIndex(qf.Index)
				if qf.Type != f.Type || !reflect.DeepEqual(qv.Interface(), v.Field(i).Interface()) {
					panic(fmt.Sprintf("config.Register(%s): %s.%s is declared by %s %s with another type or default", p.Name, ks.At, name, q.Group, q.Name))
				}
			}
		}
	}
}

// coreType returns the type of the Config's struct at path (the Config's
// at ""), nil if none.
func coreType(path string) reflect.Type {
	t := reflect.TypeOf(Config{})
	if path == "" {
		return t
	}
	for _, name := range strings.Split(path, ".") {
		if t.Kind() != reflect.Struct {
			return nil
		}
		f, ok := fieldByTag(t, name)
		if !ok {
			return nil
		}
		t = f.Type
	}
	return t
}

// sharedAt returns the shared section at path, nil if none.
func sharedAt(path string) *sharedSection {
	secs, _ := sharedSections()
	return secs[path]
}

// field returns the index of key name in s, -1 if none.
func (s *sharedSection) field(name string) int {
	return slices.IndexFunc(s.keys, func(k sharedKey) bool { return k.name == name })
}

// defaults returns a new value of s's type holding the declared defaults.
func (s *sharedSection) defaults() reflect.Value {
	v := reflect.New(s.typ)
	for i, k := range s.keys {
		v.Elem().Field(i).Set(k.def)
	}
	return v
}

// layout returns the names of the keys and sections at prefix in their
// order: the core's (the fields of core, the Config's struct at prefix;
// nil for a section the parts add), then the keys the parts declare there
// and the sections they add there, in declaration order, each placed
// right after the key its after tag names once that key is placed.
func layout(prefix string, core reflect.Type) []string {
	var out []string
	if core != nil {
		for i := 0; i < core.NumField(); i++ {
			name := strings.Split(core.Field(i).Tag.Get("yaml"), ",")[0]
			if name != "-" && core.Field(i).IsExported() {
				out = append(out, name)
			}
		}
	}
	type item struct{ name, after string }
	var items []item
	secs, paths := sharedSections()
	if s := secs[prefix]; s != nil {
		for _, k := range s.keys {
			items = append(items, item{k.name, k.after})
		}
	}
	for _, p := range paths {
		if parent, name := splitKey(p); secs[p].added && parent == prefix {
			items = append(items, item{name, secs[p].after})
		}
	}
	for len(items) > 0 {
		var rest []item
		for _, it := range items {
			at := slices.Index(out, it.after)
			switch {
			case it.after == "":
				out = append(out, it.name)
			case at >= 0:
				out = slices.Insert(out, at+1, it.name)
			default:
				rest = append(rest, it) // its anchor comes later
			}
		}
		if len(rest) == len(items) { // anchors no key: last
			for _, it := range rest {
				out = append(out, it.name)
			}
			break
		}
		items = rest
	}
	return out
}

// splitKey splits a key into its parent and its last name ("", "sm" for
// "sm").
func splitKey(key string) (parent, name string) {
	if i := strings.LastIndex(key, "."); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// addedAt returns the section the parts add at path, nil if none.
func addedAt(path string) *sharedSection {
	if s := sharedAt(path); s != nil && s.added {
		return s
	}
	return nil
}

// sharedValue returns c's value of the shared section s (a pointer to a
// struct of s.typ), its defaults when c has none (a Config built by hand).
func (c *Config) sharedValue(s *sharedSection) reflect.Value {
	if v, ok := c.parts[s.path]; ok && reflect.TypeOf(v).Elem() == s.typ {
		return reflect.ValueOf(v)
	}
	v := s.defaults()
	if c.parts == nil {
		c.parts = map[string]any{}
	}
	c.parts[s.path] = v.Interface()
	return v
}

// Shared returns c's values of the keys that T declares at path (a
// KeySet's Defaults type): a part reads its keys of a shared section with
// it. A key of T that no part declares at path keeps T's zero value.
func Shared[T any](c *Config, path string) T {
	var out T
	s := sharedAt(path)
	if s == nil {
		return out
	}
	v := c.sharedValue(s).Elem()
	o := reflect.ValueOf(&out).Elem()
	for i := 0; i < o.NumField(); i++ {
		name := strings.Split(o.Type().Field(i).Tag.Get("yaml"), ",")[0]
		if j := s.field(name); j >= 0 && o.Field(i).CanSet() {
			o.Field(i).Set(v.Field(j))
		}
	}
	return out
}

// Set sets key of c to x, converted to the key's type (a number to a
// float64 key, a string to a named string type): a use case that tries
// several values of a key (smrl estimate's length cross-validation) sets
// them on a copy (With). An unknown key or a value of another kind is an
// error.
func (c *Config) Set(key string, x any) error { return c.set(key, x) }

// With returns a copy of c (its sections copied too) with key set to x.
func (c *Config) With(key string, x any) (*Config, error) {
	d := c.clone()
	if err := d.set(key, x); err != nil {
		return nil, err
	}
	return d, nil
}

// sharedDefaults adds the shared sections' defaults to the nested map root
// (env → family → freq → 4), for viper.
func sharedDefaults(root map[string]any) {
	secs, paths := sharedSections()
	for _, path := range paths {
		s := secs[path]
		at := root
		for _, k := range strings.Split(path, ".") {
			next, ok := at[k].(map[string]any)
			if !ok {
				next = map[string]any{}
				at[k] = next
			}
			at = next
		}
		for _, k := range s.keys {
			if strings.Contains(k.field.Tag.Get("yaml"), ",omitempty") && k.def.IsZero() {
				continue // as yaml.Marshal leaves it out of a section's defaults
			}
			at[k.name] = plainDefault(k.def)
		}
	}
}

// plainDefault converts a default to what viper holds for a key read from
// YAML: slices as []any.
func plainDefault(v reflect.Value) any {
	if v.Kind() == reflect.Slice {
		out := make([]any, v.Len())
		for i := range out {
			out[i] = v.Index(i).Interface()
		}
		return out
	}
	return v.Interface()
}

// cutShared removes the shared sections' keys from the nested settings all
// and returns them by path, to decode apart from the core's keys.
func cutShared(all map[string]any) map[string]map[string]any {
	secs, paths := sharedSections()
	out := map[string]map[string]any{}
	for _, path := range paths {
		if secs[path].added {
			parent, name := splitKey(path)
			at := all
			for _, k := range strings.Split(parent, ".") {
				if k != "" {
					at, _ = at[k].(map[string]any)
				}
			}
			sub, _ := at[name].(map[string]any)
			delete(at, name)
			if sub == nil {
				sub = map[string]any{}
			}
			out[path] = sub
			continue
		}
		at := all
		for _, k := range strings.Split(path, ".") {
			next, _ := at[k].(map[string]any)
			at = next
		}
		sub := map[string]any{}
		for _, k := range secs[path].keys {
			if v, ok := at[k.name]; ok {
				sub[k.name] = v
				delete(at, k.name)
			}
		}
		out[path] = sub
	}
	return out
}

// mergeSharedNodes adds c's values of the shared sections' keys to the
// YAML tree root (the encoding of the core's keys): the keys at their
// sections, the sections the parts add at their parents, each mapping then
// in the order of layout.
func (c *Config) mergeSharedNodes(root *yaml.Node) error {
	secs, paths := sharedSections()
	touched := map[string]bool{}
	for _, path := range paths {
		s := secs[path]
		n, err := encodeNode(c.sharedValue(s).Elem().Interface())
		if err != nil {
			return atKey(path, err)
		}
		at, name := path, ""
		if s.added {
			at, name = splitKey(path)
		}
		m := nodeAt(root, at)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		if s.added {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, n)
		} else {
			m.Content = append(m.Content, n.Content...)
		}
		touched[at] = true
	}
	for at := range touched {
		m := nodeAt(root, at)
		pairs := map[string][]*yaml.Node{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			pairs[m.Content[i].Value] = m.Content[i : i+2]
		}
		core := coreType(at)
		if s := addedAt(at); s != nil {
			core = nil
		}
		var content []*yaml.Node
		for _, name := range layout(at, core) {
			content = append(content, pairs[name]...)
		}
		m.Content = content
	}
	return nil
}

// nodeAt returns the mapping of the YAML tree root at path (root at "").
func nodeAt(root *yaml.Node, path string) *yaml.Node {
	at := root
	if path == "" {
		return at
	}
	for _, k := range strings.Split(path, ".") {
		at = mappingValue(at, k)
	}
	return at
}

// validateShared runs the Validate of every shared section c uses, or
// would use but for the agents it lists: a config file's settings for
// agents that --agents may select (the confidence section) are checked
// too.
func (c *Config) validateShared(bad Bad) {
	secs, paths := sharedSections()
	for _, path := range paths {
		if s := secs[path]; s.validate != nil && (c.Uses(path) || c.onlyAgentsUnselect(path)) {
			s.validate(c, bad)
		}
	}
}

// legacyDefaults sets the keys that a snapshot of an earlier smrl version
// lacks to the value that version ran with (KeySet.Legacy), where a later
// version changed the default (sources: the keys the snapshot sets).
func legacyDefaults(c *Config, sources map[string]string) {
	secs, paths := sharedSections()
	for _, path := range paths {
		for _, k := range slices.Sorted(maps.Keys(secs[path].legacy)) {
			if _, ok := sources[k]; !ok {
				_ = c.set(k, secs[path].legacy[k]) // a registration's key and value: checked by its tests
			}
		}
	}
}
