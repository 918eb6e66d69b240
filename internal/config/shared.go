package config

import (
	"fmt"
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
				s = &sharedSection{path: ks.At}
				secs[ks.At] = s
				paths = append(paths, ks.At)
			}
			s.keys = mergeKeys(s.keys, ks)
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
	if ct := coreType(ks.At); ct == nil || ct.Kind() != reflect.Struct {
		panic(fmt.Sprintf("config.Register(%s): Keys at %s: no such section of the Config", p.Name, ks.At))
	}
	v := reflect.ValueOf(ks.Defaults).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if name == "" || name == "-" || !f.IsExported() || f.Type.Kind() == reflect.Struct {
			panic(fmt.Sprintf("config.Register(%s): field %s of its keys at %s needs a yaml name and a non-struct type", p.Name, f.Name, ks.At))
		}
		if _, ok := fieldByTag(coreType(ks.At), name); ok {
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

// coreType returns the type of the Config's struct at path, nil if none.
func coreType(path string) reflect.Type {
	t := reflect.TypeOf(Config{})
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

// order returns the names of the keys at s's path in their order: the
// core's (of type core) and s's, placed by their after tags.
func (s *sharedSection) order(core reflect.Type) []string {
	var out []string
	for i := 0; i < core.NumField(); i++ {
		name := strings.Split(core.Field(i).Tag.Get("yaml"), ",")[0]
		if name != "-" && core.Field(i).IsExported() {
			out = append(out, name)
		}
	}
	// Runs of keys with the same anchor move together, in declaration
	// order: a run is a key with an after tag and the keys declared after
	// it in the same struct.
	for _, k := range s.keys {
		if k.after == "" {
			out = append(out, k.name)
			continue
		}
		at := slices.Index(out, k.after)
		if at < 0 {
			out = append(out, k.name)
			continue
		}
		out = slices.Insert(out, at+1, k.name)
	}
	return out
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
// YAML tree root (the encoding of the core's keys), each section's keys in
// their order (sharedSection.order).
func (c *Config) mergeSharedNodes(root *yaml.Node) error {
	secs, paths := sharedSections()
	for _, path := range paths {
		s := secs[path]
		at := root
		for _, k := range strings.Split(path, ".") {
			at = mappingValue(at, k)
		}
		if at == nil || at.Kind != yaml.MappingNode {
			continue
		}
		var n yaml.Node
		if err := n.Encode(c.sharedValue(s).Elem().Interface()); err != nil {
			return err
		}
		pairs := map[string][]*yaml.Node{}
		for _, m := range []*yaml.Node{at, &n} {
			for i := 0; i+1 < len(m.Content); i += 2 {
				pairs[m.Content[i].Value] = m.Content[i : i+2]
			}
		}
		var content []*yaml.Node
		for _, name := range s.order(coreType(path)) {
			content = append(content, pairs[name]...)
		}
		at.Content = content
	}
	return nil
}
