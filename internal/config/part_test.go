package config

import (
	"strings"
	"testing"
)

// within is key == section or a prefix "section." of key.
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		key, section string
		want         bool
	}{
		{"model", "model", true}, {"model.sigma", "model", true}, {"model.features.dim", "model.features", true},
		{"modelx", "model", false}, {"model", "model.sigma", false}, {"mod", "model", false}, {"env.kind", "model", false},
	} {
		if got, want := within(c.key, c.section), c.key == c.section || strings.HasPrefix(c.key, c.section+"."); got != c.want || want != c.want {
			t.Errorf("within(%q, %q) = %v, want %v", c.key, c.section, got, c.want)
		}
	}
}

// The snapshot's memoised Uses answers as Uses for every key, section and
// group of configs selecting different parts; the registry has no cycle
// of ownership, so the snapshot does take the memoised path.
func TestUsesMemoIsUses(t *testing.T) {
	if !ownershipAcyclic() {
		t.Error("the registry has a cycle of ownership: usesMemo falls back to Uses")
	}
	var keys []string
	for _, k := range Keys() {
		for i := range k {
			if k[i] == '.' {
				keys = append(keys, k[:i]) // the sections holding k
			}
		}
		keys = append(keys, k)
	}
	for _, g := range Groups {
		keys = append(keys, g.Key)
	}
	for _, set := range [][]Setting{
		nil,
		{{Key: "planner.kind", Value: "cem", Source: "--set"}},
		{{Key: "planner.kind", Value: "mppi", Source: "--set"}, {Key: "agents", Value: []string{"sm", "oracle"}, Source: "--set"}},
		{{Key: "env.kind", Value: "cartpole", Source: "--set"}},
	} {
		c, err := Load(Options{Set: set, NoValidate: true})
		if err != nil {
			t.Fatal(err)
		}
		memo := c.usesMemo()
		for _, k := range keys {
			if got, want := memo(k), c.Uses(k); got != want {
				t.Errorf("%v: memoised Uses(%s) = %v, Uses %v", set, k, got, want)
			}
		}
	}
}

// ownershipAcyclic reports whether the registry's ownership graph has no
// cycle (see acyclic): only then may the answers of uses be remembered,
// since uses never meets a key it is already answering and so answers
// independently of the path that asked.
func ownershipAcyclic() bool { return registryIndex().acyclic }
