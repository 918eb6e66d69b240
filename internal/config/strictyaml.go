package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"go.yaml.in/yaml/v3"
)

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

// firstDocument refuses a file of more than one YAML document: the rest
// of the file is read by nothing, and its keys would be ignored silently.
// It returns the first document's node, parsed once for the steps after
// (cutSection, checkKnownKeys); nil, and no error, when the first
// document does not parse (checkKnownKeys reports it) or the file holds
// none.
func firstDocument(path string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if err := dec.Decode(&first); err != nil {
		return nil, nil
	}
	err := dec.Decode(&second)
	switch {
	case errors.Is(err, io.EOF):
		return &first, nil
	case err != nil:
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			return nil, errs.Invalid(fmt.Errorf("%s line %s:%s (after the first YAML document; a config file holds one)", path, m[1], strings.TrimPrefix(msg, m[0])))
		}
		return nil, errs.Invalid(fmt.Errorf("%s: %s (after the first YAML document; a config file holds one)", path, msg))
	}
	return nil, errs.Invalid(fmt.Errorf("%s line %d: a second YAML document starts here; a config file holds one document", path, second.Line))
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
// into an integer). It returns the keys the file sets ("planner.tau") and,
// when the document is a mapping, its settings as viper's MergeConfig
// reads them (yaml into a map[string]any), to be merged with
// MergeConfigMap without parsing data again. doc is data's document when
// the caller parsed it (firstDocument); nil: parse data.
func checkKnownKeys(path string, data []byte, doc *yaml.Node) ([]keyLine, map[string]any, error) {
	if doc == nil {
		doc = new(yaml.Node)
		if err := yaml.Unmarshal(data, doc); err != nil {
			return nil, nil, errs.Invalid(fmt.Errorf("%s %s%s", path, plainTypeError(err.Error()), lineText(data, err.Error())))
		}
	}
	if len(doc.Content) == 0 {
		return nil, nil, nil
	}
	top := doc.Content[0]
	t := reflect.TypeOf(Config{})
	if err := checkNode(top, t, ""); err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("%s %w", path, err))
	}
	// A decoding that checks what the schema walk does not (duplicate
	// keys): the walk found no unknown key, so the decoding's errors are
	// of another kind.
	var m map[string]any
	if err := top.Decode(&m); err != nil && top.Kind == yaml.MappingNode {
		return nil, nil, errs.Invalid(fmt.Errorf("%s %s", path, strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if top.Kind != yaml.MappingNode || m == nil {
		m = nil // not what MergeConfig would read: the caller lets viper parse data
	}
	return fileKeys(top, t, ""), m, nil
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

// plainInt is a whole number in decimal notation: an optional sign and no
// leading zero; leadingZero is a number with one, which YAML reads as
// octal (010 is 8) or, past the octal digits, as a float (08).
var (
	plainInt    = regexp.MustCompile(`^[-+]?(0|[1-9][0-9]*)$`)
	leadingZero = regexp.MustCompile(`^[-+]?0[0-9]+$`)
)

// leadingZeroText says why a leading 0 is refused.
const leadingZeroText = "without a leading 0 (YAML reads 010 as octal 8)"

// nonDecimal says what a number key wants (a whole number when whole)
// when YAML read the scalar v (tag its resolved type) as a number written
// otherwise than in decimal notation, which --set and the SMRL_* variables
// refuse: 0x10, 0o20, 0b11, 1_000, and 010, which YAML reads as octal 8.
// It returns "" for any other scalar.
func nonDecimal(tag, v string, whole bool) string {
	what, example := "a number", "such as 0.5 or 1e-3"
	if whole {
		what, example = "a whole number", "such as 16"
	}
	switch {
	case tag == "!!int" && plainInt.MatchString(v):
		return ""
	case (tag == "!!int" || tag == "!!float") && leadingZero.MatchString(v):
		return what + " in decimal notation, " + leadingZeroText
	case tag == "!!int" || tag == "!!float" && strings.Contains(v, "_"):
		return what + " in decimal notation (" + example + ")"
	}
	return ""
}

// checkScalar checks one scalar against its field's type (see checkNode).
func checkScalar(n *yaml.Node, t reflect.Type, key string) error {
	tag := n.ShortTag()
	fail := func(want string) error {
		return &LineError{n.Line, key, fmt.Sprintf("want %s, got %q", want, n.Value)}
	}
	// A number key (Auto is a number or auto); a name may be any text.
	whole := t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Uint64
	if msg := nonDecimal(tag, n.Value, whole); msg != "" && (t.Kind() != reflect.String || t == reflect.TypeFor[Auto]()) {
		return fail(msg)
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
	if s := sharedAt(key); s != nil && s.field(name) >= 0 {
		return s.keys[s.field(name)].field.Type
	}
	if s := addedAt(joinKey(key, name)); s != nil {
		return s.typ
	}
	return sectionType(joinKey(key, name))
}

// didYouMean is a hint naming the known key closest to key, or "".
func didYouMean(key string) string {
	if strings.Contains(key, ".") && slices.Contains(schemaKeys(), key) {
		// "planner.tau: 3" written whole: the key exists, nested.
		parts := strings.Split(key, ".")
		nested := strings.Join(parts, ": {") + ": ..." + strings.Repeat("}", len(parts)-1)
		return fmt.Sprintf("; a dotted key is not nested in a YAML file: write it as %s", nested)
	}
	best := closest(key, schemaKeys())
	if best == "" || editDistance(key, best) > max(2, len(key)/3) {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}
