package config

import (
	"fmt"
	"maps"
	"reflect"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Every Load starts from the same defaults: default.yaml parsed as viper
// parses it (go.yaml.in/yaml/v3 into a map) and the registered sections'
// defaults (defaultSections). Parsing and re-marshalling them cost about
// 40% of a Load, so the first are parsed once and the second built once
// per registry (a Register adds a part and its defaults, as sharedSections
// rebuilds), and each Load merges deep copies: viper merges later files
// into the maps it is given.
var (
	embeddedTree = sync.OnceValues(func() (map[string]any, error) {
		m := map[string]any{}
		err := yaml.Unmarshal(defaultYAML, &m)
		return m, err
	})
	sectionTrees perRegistry[parsedTree]
)

// parsedTree is a tree of defaults and the error building it gave.
type parsedTree struct {
	m   map[string]any
	err error
}

// defaultMaps returns fresh copies of the parsed embedded defaults and of
// the registered sections' defaults, or the error parsing either gave.
func defaultMaps() (embedded, sections map[string]any, embeddedErr, sectionsErr error) {
	y, err := embeddedTree()
	if err != nil {
		return nil, nil, err, nil
	}
	secs := sectionTrees.get(func([]Part) parsedTree {
		m, err := defaultSections()
		return parsedTree{m, err}
	})
	if secs.err != nil {
		return nil, nil, nil, secs.err
	}
	return deepCopy(y).(map[string]any), deepCopy(secs.m).(map[string]any), nil, nil
}

// deepCopy copies the maps and slices of a parsed YAML tree; other values
// (numbers, strings, bools) are immutable and shared.
func deepCopy(x any) any {
	switch t := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			out[k] = deepCopy(v)
		}
		return out
	case map[any]any:
		out := make(map[any]any, len(t))
		for k, v := range t {
			out[k] = deepCopy(v)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = deepCopy(v)
		}
		return out
	case nil:
		return nil
	}
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return x
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			if e := deepCopy(v.Index(i).Interface()); e != nil { // a nil element stays the zero value
				out.Index(i).Set(reflect.ValueOf(e).Convert(v.Type().Elem()))
			}
		}
		return out.Interface()
	case reflect.Map, reflect.Pointer:
		panic(fmt.Sprintf("config: default of type %T cannot be copied", x))
	}
	return x
}

// defaultConfigs remembers Load(Options{}) per registry.
var defaultConfigs perRegistry[loaded]

// loaded is a Load's result.
type loaded struct {
	c   *Config
	err error
}

// Defaults returns a copy of the config of the embedded and registered
// defaults alone, Load(Options{}) (nil and its error when they do not
// validate), loaded once per registry: use cases compare a run's config
// with it (the paper's experiment) once per table and figure.
func Defaults() (*Config, error) {
	d := defaultConfigs.get(func([]Part) loaded {
		c, err := Load(Options{})
		return loaded{c, err}
	})
	if d.err != nil {
		return nil, d.err
	}
	return d.c.deepClone(), nil
}

// deepClone returns a copy of c that shares nothing a caller can change
// with c: its sections, lists and maps are copies.
func (c *Config) deepClone() *Config {
	d := c.clone()
	copyLists(reflect.ValueOf(d).Elem())
	for _, v := range d.parts {
		copyLists(reflect.ValueOf(v).Elem())
	}
	if s, ok := d.parts["planner."+d.Planner.Kind]; ok {
		d.Planner.Section = s
	}
	d.origins, d.rank = maps.Clone(c.origins), maps.Clone(c.rank)
	return d
}

// copyLists replaces every list in the exported fields of the struct v,
// nested structs included, by a copy (lists of lists copied through).
func copyLists(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Struct:
			copyLists(f)
		case reflect.Slice:
			f.Set(copyList(f))
		}
	}
}

func copyList(s reflect.Value) reflect.Value {
	if s.IsNil() {
		return s
	}
	out := reflect.MakeSlice(s.Type(), s.Len(), s.Len())
	reflect.Copy(out, s)
	switch s.Type().Elem().Kind() {
	case reflect.Slice:
		for i := range out.Len() {
			out.Index(i).Set(copyList(out.Index(i)))
		}
	case reflect.Struct:
		for i := range out.Len() {
			copyLists(out.Index(i))
		}
	}
	return out
}
