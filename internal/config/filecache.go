package config

import (
	"sync"

	"go.yaml.in/yaml/v3"
)

// A command loads one config file several times (smrl sweep once per grid
// point, a run's snapshot by each step that reads it), and each Load
// parsed and checked it again. What mergeFile reads of a file depends on
// its bytes and on the registry alone (the schema that checkKnownKeys
// holds it to), so a file that parsed and checked without error is
// remembered by its bytes: a later Load of the same bytes reads the file
// (a changed file is a new entry: nothing goes stale), and takes the rest,
// the sweep: section's nodes, the keys with their lines and the settings
// from here. Only small files are kept, and only the last few.
const (
	maxCachedFiles    = 32
	maxCachedFileSize = 256 << 10
)

// parsedFile is what mergeFile reads of a file: the file less its sweep:
// section (rest), that section's key and value nodes (nil without one),
// the keys it sets with their lines, and its settings as viper's
// MergeConfig reads rest (nil: let viper parse rest).
type parsedFile struct {
	rest            []byte
	sweepKey, sweep *yaml.Node
	keys            []keyLine
	settings        map[string]any
}

var parsedFiles struct {
	sync.Mutex
	n     int // the registry's length when the entries were parsed
	m     map[string]*parsedFile
	order []string // oldest first
}

// cachedFile returns the remembered reading of a file of these bytes.
// Its fields are shared: callers copy the nodes and settings they hand on.
func cachedFile(data []byte) (*parsedFile, bool) {
	if len(data) > maxCachedFileSize {
		return nil, false
	}
	n := len(allParts())
	parsedFiles.Lock()
	defer parsedFiles.Unlock()
	if parsedFiles.n != n {
		return nil, false
	}
	f, ok := parsedFiles.m[string(data)]
	return f, ok
}

// storeFile remembers f, the reading of a file of these bytes that passed
// every check. mergeFile hands on copies of its nodes and settings only.
func storeFile(data []byte, f *parsedFile) {
	if len(data) > maxCachedFileSize {
		return
	}
	n := len(allParts())
	parsedFiles.Lock()
	defer parsedFiles.Unlock()
	if parsedFiles.n != n || parsedFiles.m == nil {
		parsedFiles.n, parsedFiles.m, parsedFiles.order = n, map[string]*parsedFile{}, nil
	}
	key := string(data)
	if _, ok := parsedFiles.m[key]; ok {
		return
	}
	if len(parsedFiles.order) >= maxCachedFiles {
		delete(parsedFiles.m, parsedFiles.order[0])
		parsedFiles.order = parsedFiles.order[1:]
	}
	parsedFiles.m[key] = f
	parsedFiles.order = append(parsedFiles.order, key)
}

// copyNode returns a deep copy of the YAML tree n (nil for nil). An alias
// in the tree points to the copy of its anchor when the anchor is in the
// tree too, else to the original.
func copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	copies := map[*yaml.Node]*yaml.Node{}
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		c := *n
		copies[n] = &c
		if n.Content != nil {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, e := range n.Content {
				c.Content[i] = walk(e)
			}
		}
		return &c
	}
	root := walk(n)
	for _, c := range copies {
		if c.Alias != nil {
			if a, ok := copies[c.Alias]; ok {
				c.Alias = a
			}
		}
	}
	return root
}
