package config

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// KeyDoc documents one config key for smrl list keys.
type KeyDoc struct {
	Key     string
	Default string // the default value as YAML flow text
	// Part names the part that owns the key ("env.kind cartpole"), empty
	// for a key every run reads.
	Part string
	Doc  string
}

// KeyDocs documents every config key in the order of Keys: the keys of
// the embedded defaults by their comments there, a registered section's
// keys by the doc tags of its struct.
func KeyDocs() ([]KeyDoc, error) {
	docs := map[string]string{}
	var doc yaml.Node
	if err := yaml.Unmarshal(defaultYAML, &doc); err != nil {
		return nil, err
	}
	lines := strings.Split(string(defaultYAML), "\n")
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := joinKey(key, n.Content[i].Value)
			docs[k] = keyComment(lines, n.Content[i].Line)
			walk(n.Content[i+1], k)
		}
	}
	walk(doc.Content[0], "")
	for _, path := range sectionPaths() {
		t := sectionType(path)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			docs[joinKey(path, strings.Split(f.Tag.Get("yaml"), ",")[0])] = f.Tag.Get("doc")
		}
	}
	secs, _ := sharedSections()
	for path, sec := range secs {
		for _, k := range sec.keys {
			docs[joinKey(path, k.name)] = k.field.Tag.Get("doc")
		}
	}
	def, err := Load(Options{NoValidate: true})
	if err != nil {
		return nil, err
	}
	var out []KeyDoc
	for _, k := range Keys() {
		d := KeyDoc{Key: k, Doc: docs[k]}
		if d.Doc == "" {
			d.Doc = fieldDoc(k)
		}
		if v, err := def.value(k); err == nil {
			d.Default = flowText(v)
		}
		var owners []string
		for _, p := range allParts() {
			if owns(p, k) {
				owners = append(owners, p.Group+" "+p.Name)
			}
		}
		if len(owners) > 3 {
			owners = append(owners[:3], "...")
		}
		d.Part = strings.Join(owners, ", ")
		out = append(out, d)
	}
	return out, nil
}

// fieldDoc is the doc tag of the Config field of key, for the keys that
// default.yaml leaves out (optional ones whose default is empty) or
// lists without a comment; "" when there is none.
func fieldDoc(key string) string {
	t := reflect.TypeOf(Config{})
	var f reflect.StructField
	for _, name := range strings.Split(key, ".") {
		for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return ""
		}
		var ok bool
		if f, ok = fieldByTag(t, name); !ok {
			return ""
		}
		t = f.Type
	}
	return f.Tag.Get("doc")
}

// keyComment is the comment of the key on line (1-based) of lines: the
// text after the line's '#', joined with the comment-only lines below it
// whose '#' stands in the same column (a comment continued under itself).
// yaml.v3 attaches such continuation lines to the next key, or drops them.
func keyComment(lines []string, line int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	col := commentColumn(lines[line-1])
	if col < 0 {
		return ""
	}
	parts := []string{strings.TrimSpace(lines[line-1][col+1:])}
	for _, l := range lines[line:] {
		if strings.TrimSpace(l[:min(col, len(l))]) != "" || commentColumn(l) != col {
			break
		}
		parts = append(parts, strings.TrimSpace(l[col+1:]))
	}
	return strings.Join(parts, " ")
}

// commentColumn is the byte offset of the '#' that starts l's comment,
// -1 when it has none. The defaults quote no '#', so the first one is it.
func commentColumn(l string) int { return strings.IndexByte(l, '#') }

// flowText renders v as YAML flow text: [1, -1], "auto", 0.5.
func flowText(v any) string {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	var setFlow func(n *yaml.Node)
	setFlow = func(n *yaml.Node) {
		n.Style |= yaml.FlowStyle
		for _, c := range n.Content {
			setFlow(c)
		}
	}
	setFlow(&n)
	b, err := yaml.Marshal(&n)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}

// Value returns c's value of key (a leaf key) with its Go type.
func (c *Config) Value(key string) (any, error) {
	v, err := c.value(key)
	if err != nil {
		return nil, err
	}
	if reflect.TypeOf(v).Kind() == reflect.Struct {
		return nil, fmt.Errorf("%s is a section, not a key", key)
	}
	return v, nil
}
