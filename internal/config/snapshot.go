package config

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// YAML renders the resolved config as its snapshot: exactly the keys the
// run uses (Uses), each registered section in its place, a negative zero
// written as 0.
func (c *Config) YAML() ([]byte, error) {
	root, err := c.yamlNode(c)
	if err != nil {
		return nil, err
	}
	return encodeYAML(root)
}

// YAMLFor is YAML with the keys that any of users uses (the points of a
// sweep whose base c is): the base of a sweep's manifest.
func (c *Config) YAMLFor(users ...*Config) ([]byte, error) {
	root, err := c.yamlNode(append([]*Config{c}, users...)...)
	if err != nil {
		return nil, err
	}
	return encodeYAML(root)
}

// YAMLSources is YAML with a comment after every key naming where its
// value comes from (Origin): smrl config --sources.
func (c *Config) YAMLSources() ([]byte, error) {
	root, err := c.yamlNode(c)
	if err != nil {
		return nil, err
	}
	var walk func(n *yaml.Node, key string)
	walk = func(n *yaml.Node, key string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := joinKey(key, n.Content[i].Value)
			if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
				walk(v, k)
			} else {
				n.Content[i].LineComment = c.Origin(k)
			}
		}
	}
	walk(root, "")
	return encodeYAML(root)
}

func encodeYAML(root *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// yamlNode is the snapshot's YAML tree (see YAML): the keys of c that one
// of users uses.
func (c *Config) yamlNode(users ...*Config) (*yaml.Node, error) {
	uses := make([]func(string) bool, len(users))
	for i, u := range users {
		uses[i] = u.usesMemo() // the snapshot asks of every key and section
	}
	used := func(key string) bool {
		return slices.ContainsFunc(uses, func(u func(string) bool) bool { return u(key) })
	}
	rootp, err := encodeNode(c)
	if err != nil {
		return nil, err
	}
	root := *rootp
	if err := c.mergeSharedNodes(&root); err != nil {
		return nil, err
	}
	if c.LambdaCV {
		// lambda holds the placeholder 0: write the word, so that the
		// snapshot loads as the config the run had.
		if n := mappingValue(&root, "lambda"); n != nil {
			n.Tag, n.Value, n.Style = "!!str", LambdaCVWord, 0
		}
	}
	// Keys off by default are left out of the snapshot when off, so that
	// the snapshots of configs that do not use them stay as they were.
	if !c.Stats.SaveSE {
		dropKey(mappingValue(&root, "stats"), "save_se")
	}
	if !c.Stats.SaveW {
		dropKey(mappingValue(&root, "stats"), "save_w")
	}
	if c.Plot == DefaultPlot {
		dropKey(&root, "plot")
	}
	if !c.LengthCV {
		// cv.lengths serves model.features.length: cv only: keep the
		// snapshots of configs that do not use it as they were.
		if n := mappingValue(&root, "cv"); n != nil {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "lengths" {
					n.Content = append(n.Content[:i], n.Content[i+2:]...)
					break
				}
			}
		}
	} else {
		if n := mappingValue(mappingValue(mappingValue(&root, "model"), "features"), "length"); n != nil {
			n.Tag, n.Value, n.Style = "!!str", LambdaCVWord, 0
		}
	}
	for _, path := range sectionPaths() {
		v, ok := c.parts[path]
		if !ok || !used(path) {
			continue
		}
		n, err := encodeNode(v)
		if err != nil {
			return nil, err
		}
		parts := strings.Split(path, ".")
		at := &root
		for _, k := range parts[:len(parts)-1] {
			at = mappingValue(at, k)
			if at == nil {
				return nil, fmt.Errorf("internal error: section %s has no parent", path)
			}
		}
		at.Content = append(at.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[len(parts)-1]}, n)
	}
	prune(&root, "", used)
	return &root, nil
}

// mappingValue returns the value node of key k in the mapping n, nil if
// none.
func mappingValue(n *yaml.Node, k string) *yaml.Node {
	if n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}

// prune drops the keys of the mapping n (at key) that c does not use and
// writes −0 as 0.
func prune(n *yaml.Node, key string, used func(string) bool) {
	switch n.Kind {
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := joinKey(key, n.Content[i].Value)
			if !used(k) {
				// An unused section may hold keys a selected part owns
				// (model.kink of env.family.kind relu in env.kind expfam).
				if v := n.Content[i+1]; v.Kind == yaml.MappingNode {
					prune(v, k, used)
					if len(v.Content) > 0 {
						kept = append(kept, n.Content[i], v)
					}
				}
				continue
			}
			prune(n.Content[i+1], k, used)
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	case yaml.SequenceNode:
		for _, e := range n.Content {
			prune(e, key, used)
		}
	case yaml.ScalarNode:
		if (n.Tag == "!!float" || n.Tag == "!!int") && (n.Value == "-0" || n.Value == "-0.0") {
			n.Value = "0"
		}
	}
}

// dropKey removes key and its value from the mapping node n (nil: none).
func dropKey(n *yaml.Node, key string) {
	if n == nil {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return
		}
	}
}
