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
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := joinKey(key, n.Content[i].Value)
			c := n.Content[i].LineComment
			if c == "" {
				c = n.Content[i+1].LineComment
			}
			docs[k] = strings.TrimSpace(strings.TrimPrefix(c, "#"))
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
	def, err := Load(Options{NoValidate: true})
	if err != nil {
		return nil, err
	}
	var out []KeyDoc
	for _, k := range Keys() {
		d := KeyDoc{Key: k, Doc: docs[k]}
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
