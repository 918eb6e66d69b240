package config

import (
	"encoding"
	"math"
	"reflect"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// encodeNode returns the YAML tree of v that (*yaml.Node).Encode gives,
// without its cost: Encode marshals v to text and parses the text back, so
// that each scalar carries the tag the parser resolves and the style the
// emitter chose (a string such as "n" or "1e3" double-quoted, an empty
// list written [] and read back in flow style). The snapshot encodes the
// whole Config and every section per call, and a run, a sweep's points and
// the comparisons of configs ask for many snapshots. So this walks v as
// yaml's encoder does (pointers, interfaces, structs by their yaml tags
// with omitempty, lists in block style), takes each scalar's node from
// Encode of that scalar alone (remembered by type and value: the emitter's
// choice for a block value depends on nothing else), each mapping key's
// from Encode of a one-key map, and leaves to Encode itself whatever it
// does not know (maps, marshalers of non-scalar kinds, inline or flow
// fields). TestEncodeNodeIsEncode holds it to Encode.
func encodeNode(v any) (*yaml.Node, error) {
	n, err := encodeValue(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	return n, nil
}

// yamlEncode is (*yaml.Node).Encode returning the node.
func yamlEncode(v any) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

var (
	marshalerType     = reflect.TypeFor[yaml.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	nodeType          = reflect.TypeFor[yaml.Node]()
)

// encodeValue is encodeNode of the value in.
func encodeValue(in reflect.Value) (*yaml.Node, error) {
	if !in.IsValid() || (in.Kind() == reflect.Pointer || in.Kind() == reflect.Interface) && in.IsNil() {
		return scalarNode(reflect.Value{})
	}
	t := in.Type()
	if t.Implements(marshalerType) || t.Implements(textMarshalerType) || t == nodeType || t == reflect.PointerTo(nodeType) {
		if isScalarKind(t.Kind()) {
			return scalarNode(in)
		}
		return yamlEncode(in.Interface())
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		return encodeValue(in.Elem())
	case reflect.Struct:
		return encodeStruct(in)
	case reflect.Slice, reflect.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := range in.Len() {
			e, err := encodeValue(in.Index(i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, e)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle // written [], read back in flow style
		}
		return n, nil
	}
	if isScalarKind(t.Kind()) {
		return scalarNode(in)
	}
	return yamlEncode(in.Interface())
}

func isScalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// encodeStruct encodes the struct in as yaml's encoder does: a mapping of
// its exported fields in order, by their yaml names (the lower-cased field
// name without one), less "-" and the omitempty fields that are zero.
func encodeStruct(in reflect.Value) (*yaml.Node, error) {
	fields, ok := structFields(in.Type())
	if !ok {
		return yamlEncode(in.Interface())
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, f := range fields {
		v := in.Field(f.index)
		if f.omitEmpty && yamlIsZero(v) {
			continue
		}
		k, err := keyNode(f.key)
		if err != nil {
			return nil, err
		}
		e, err := encodeValue(v)
		if err != nil {
			return nil, atKey(f.key, err)
		}
		n.Content = append(n.Content, k, e)
	}
	if len(n.Content) == 0 {
		n.Style = yaml.FlowStyle // written {}, read back in flow style
	}
	return n, nil
}

// snapshotError is a value at key (dotted, from the config's root) that
// yaml's encoder refuses: for example a multi-line string holding a tab,
// which the emitter writes but its own parser then rejects.
type snapshotError struct {
	key string
	err error
}

func (e *snapshotError) Error() string { return e.key + ": " + e.err.Error() }
func (e *snapshotError) Unwrap() error { return e.err }

// atKey returns err as the error of the value at key within the struct
// being encoded (key prefixed to the key of a nested snapshotError).
func atKey(key string, err error) error {
	if se, ok := err.(*snapshotError); ok {
		return &snapshotError{key: joinKey(key, se.key), err: se.err}
	}
	return &snapshotError{key: key, err: err}
}

// structField is a field of a struct as yaml's encoder writes it.
type structField struct {
	index     int
	key       string
	omitEmpty bool
}

type structInfo struct {
	fields []structField
	ok     bool
}

var structInfos sync.Map // reflect.Type → structInfo

// structFields returns the fields of struct type t as yaml's encoder
// (getStructInfo) lists them; ok is false for a struct this file leaves to
// Encode: an embedded field, an inline or flow field, an unknown flag or a
// name given twice.
func structFields(t reflect.Type) ([]structField, bool) {
	if si, ok := structInfos.Load(t); ok {
		return si.(structInfo).fields, si.(structInfo).ok
	}
	si := structInfo{ok: true}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			si.ok = false
			break
		}
		if f.PkgPath != "" {
			continue // unexported
		}
		tag := f.Tag.Get("yaml")
		if tag == "" && !strings.Contains(string(f.Tag), ":") {
			tag = string(f.Tag)
		}
		if tag == "-" {
			continue
		}
		sf := structField{index: i}
		name, flags, _ := strings.Cut(tag, ",")
		for flag := range strings.SplitSeq(flags, ",") {
			switch flag {
			case "":
			case "omitempty":
				sf.omitEmpty = true
			default:
				si.ok = false
			}
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if seen[name] {
			si.ok = false
		}
		seen[name] = true
		sf.key = name
		si.fields = append(si.fields, sf)
	}
	structInfos.Store(t, si)
	return si.fields, si.ok
}

// yamlIsZero is yaml's isZero: whether omitempty leaves v out.
func yamlIsZero(v reflect.Value) bool {
	kind := v.Kind()
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		if (kind == reflect.Pointer || kind == reflect.Interface) && v.IsNil() {
			return true
		}
		return z.IsZero()
	}
	switch kind {
	case reflect.String:
		return len(v.String()) == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Struct:
		vt := v.Type()
		for i := v.NumField() - 1; i >= 0; i-- {
			if vt.Field(i).PkgPath != "" {
				continue
			}
			if !yamlIsZero(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// scalarKey identifies a scalar by type and value (a float by its bits:
// -0 is not 0, and NaN is NaN); t nil is null.
type scalarKey struct {
	t    reflect.Type
	s    string
	bits uint64
	key  bool // a mapping key (s)
}

// scalars remembers the nodes Encode gives scalars; it is emptied when it
// grows past maxScalars (names and expressions of many configs).
var scalars struct {
	sync.Mutex
	m map[scalarKey]yaml.Node
}

const maxScalars = 1 << 14

// scalarNode returns a new node of the scalar in (null when in is not
// valid) as Encode gives it.
func scalarNode(in reflect.Value) (*yaml.Node, error) {
	var k scalarKey
	if in.IsValid() {
		k.t = in.Type()
		switch in.Kind() {
		case reflect.String:
			k.s = in.String()
		case reflect.Bool:
			if in.Bool() {
				k.bits = 1
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			k.bits = uint64(in.Int())
		case reflect.Float32, reflect.Float64:
			k.bits = math.Float64bits(in.Float())
		default:
			k.bits = in.Uint()
		}
	}
	return remembered(k, func() (*yaml.Node, error) {
		if !in.IsValid() {
			return yamlEncode(nil)
		}
		return yamlEncode(in.Interface())
	})
}

// keyNode returns a new node of the mapping key name as Encode gives it
// (a key is written in the emitter's simple-key context).
func keyNode(name string) (*yaml.Node, error) {
	return remembered(scalarKey{s: name, key: true}, func() (*yaml.Node, error) {
		m, err := yamlEncode(map[string]int{name: 0})
		if err != nil {
			return nil, err
		}
		return m.Content[0], nil
	})
}

// remembered returns a copy of the node of k, encoding it once.
func remembered(k scalarKey, encode func() (*yaml.Node, error)) (*yaml.Node, error) {
	scalars.Lock()
	n, ok := scalars.m[k]
	scalars.Unlock()
	if !ok {
		e, err := encode()
		if err != nil {
			return nil, err
		}
		n = yaml.Node{Kind: e.Kind, Style: e.Style, Tag: e.Tag, Value: e.Value}
		scalars.Lock()
		if scalars.m == nil || len(scalars.m) >= maxScalars {
			scalars.m = map[scalarKey]yaml.Node{}
		}
		scalars.m[k] = n
		scalars.Unlock()
	}
	return &n, nil
}
