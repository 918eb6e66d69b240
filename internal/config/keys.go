package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"go.yaml.in/yaml/v3"
)

// This file serves smrl sweep: config keys and their typed values outside
// a config file, a file's sweep: section, and the settings of a grid point.

// SweepSection is the top-level key of a config file's grid (smrl sweep).
// It is not a config key: Load hands the section to Options.Sweep.
const SweepSection = "sweep"

// Setting sets one key above every other source: a coordinate of a grid
// point of smrl sweep. Value has the key's type as ParseValue and
// DecodeValue return it. Source names where the setting comes from ("--set",
// "a.yaml line 12"): validation errors of Key are reported against it.
type Setting struct {
	Key    string
	Value  any
	Source string
}

// Keys lists every config key (leaf keys, as written in YAML with dots:
// "planner.tau"): those of the Config struct in its order, then those of
// the registered sections in registration order.
func Keys() []string { return slices.Clone(schemaKeys()) }

// keyLists remembers the list of Keys per registry: the schema changes
// only with the registry, and the checks of SMRL_* variables, --set and
// sweep axes ask for it per key.
var keyLists perRegistry[[]string]

// schemaKeys returns Keys' list, shared: callers must not change it.
func schemaKeys() []string {
	return keyLists.get(func([]Part) []string { return walkKeys() })
}

// walkKeys lists the keys of the schema (Keys).
func walkKeys() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		names := layout(prefix, t)
		if t != nil && t != coreType(prefix) {
			names = layout("\x00", t) // a part's own section: its fields
		}
		for _, name := range names {
			k := joinKey(prefix, name)
			if f, ok := fieldByTag(orEmpty(t), name); ok && f.Type.Kind() == reflect.Struct {
				walk(f.Type, k)
			} else if addedAt(k) != nil {
				walk(nil, k)
			} else {
				out = append(out, k)
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	for _, path := range sectionPaths() {
		walk(sectionType(path), path)
	}
	return out
}

// KeyType returns the Go type of the value of config key ("planner.tau":
// int). An unknown key is an error naming the closest key, a section
// ("planner") an error naming one of its keys; both wrap
// errs.ErrInvalidInput.
func KeyType(key string) (reflect.Type, error) {
	keys := schemaKeys()
	if slices.Contains(keys, key) {
		return fieldType(key), nil
	}
	for _, k := range keys {
		if strings.HasPrefix(k, key+".") {
			return nil, errs.Invalid(fmt.Errorf("%s is a section, not a key: name one of its keys, such as %s", key, k))
		}
	}
	return nil, errs.Invalid(fmt.Errorf("unknown config key %q; did you mean %s?", key, closest(key, keys)))
}

// ParseValue parses text as a value of key, as an SMRL_* variable is
// parsed: an integer key needs an integer, a list key a comma-separated
// list or a YAML flow sequence ("[[1, -1]]"); lambda may be the word cv.
// The value is an int64, uint64, float64, bool, string or a slice of the
// key's element type.
func ParseValue(key, text string) (any, error) {
	t, err := KeyType(key)
	if err != nil {
		return nil, err
	}
	if cvWordKey(key) && strings.TrimSpace(text) == LambdaCVWord {
		return LambdaCVWord, nil // --set lambda=cv, a sweep's lambda=1e-4,cv
	}
	v, err := parseEnv(t, text)
	if err != nil {
		if msg := outOfRange(strings.TrimSpace(text)); msg != "" {
			return nil, errs.Invalid(fmt.Errorf("%s: %q %s", key, strings.TrimSpace(text), msg))
		}
	}
	if err != nil && cvWordKey(key) {
		return nil, errs.Invalid(fmt.Errorf("%s: %s", key, lambdaCVText(strings.TrimSpace(text))))
	}
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %q %v", key, strings.TrimSpace(text), err))
	}
	return Plain(reflect.ValueOf(v)), nil
}

// DecodeValue decodes the YAML node n as a value of key with the checks
// of a config file (a float is no integer, a string no number); errors
// are *LineError (wrapped), naming the line. The value has the types of
// ParseValue.
func DecodeValue(key string, n *yaml.Node) (any, error) {
	t, err := KeyType(key)
	if err != nil {
		return nil, err
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias // decoded as what it names
	}
	if err := checkNode(n, t, key); err != nil {
		return nil, errs.Invalid(err)
	}
	if t.Kind() == reflect.Slice && n.Kind != yaml.SequenceNode { // a null
		return nil, errs.Invalid(&LineError{n.Line, key, fmt.Sprintf("want %s, got %q", listWant(key, t), n.Value)})
	}
	out := reflect.New(t)
	if err := n.Decode(out.Interface()); err != nil {
		msg := err.Error()
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			msg = te.Errors[0]
		}
		msg = plainTypeError(msg)
		if m := yamlLineRE.FindString(msg); m != "" {
			msg = strings.TrimSpace(strings.TrimPrefix(msg, m))
		}
		return nil, errs.Invalid(&LineError{n.Line, key, msg})
	}
	return Plain(out.Elem()), nil
}

// Plain converts a value of a Config field to the plain types ParseValue
// returns: int64 for integers, string for named string types (Auto).
func Plain(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return v.Int()
	case reflect.Uint64:
		return v.Uint()
	case reflect.Float64:
		return v.Float()
	case reflect.Bool:
		return v.Bool()
	case reflect.String:
		return v.String()
	}
	return v.Interface()
}

// cutSection blanks the top-level section key of a YAML config file and
// returns the rest, with every other line where it was (so that errors
// keep their line numbers), and the section's key and value nodes (nil
// when the file has none). A file that does not parse is returned as it is
// (the strict decoding reports it). doc is data's parsed document (nil:
// none, or it did not parse); restDoc is the rest's, doc itself when
// nothing was cut and nil when the rest must be parsed again.
func cutSection(path string, data []byte, doc *yaml.Node, key string) (rest []byte, restDoc, k, v *yaml.Node, err error) {
	if doc == nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return data, nil, nil, nil, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return data, doc, nil, nil, nil
	}
	at := -1
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value != key {
			continue
		}
		if at >= 0 {
			return nil, nil, nil, nil, errs.Invalid(fmt.Errorf("%s line %d: a second %s: section (the first is at line %d)", path, top.Content[i].Line, key, top.Content[at].Line))
		}
		at = i
	}
	if at < 0 {
		return data, doc, nil, nil, nil
	}
	k, v = top.Content[at], top.Content[at+1]
	if top.Style&yaml.FlowStyle != 0 {
		return nil, nil, nil, nil, errs.Invalid(fmt.Errorf("%s line %d: write a config with a %s: section in block style (one key per line)", path, k.Line, key))
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	end := len(lines) // the section runs to the next top-level key, or to the end
	if at+2 < len(top.Content) {
		end = top.Content[at+2].Line - 1
	}
	for i := k.Line - 1; i < end && i < len(lines); i++ {
		if bytes.HasSuffix(lines[i], []byte("\n")) {
			lines[i] = []byte("\n")
		} else {
			lines[i] = nil
		}
	}
	return bytes.Join(lines, nil), nil, k, v, nil
}

// orEmpty is t, or the empty struct's type for nil.
func orEmpty(t reflect.Type) reflect.Type {
	if t == nil {
		return reflect.TypeOf(struct{}{})
	}
	return t
}
