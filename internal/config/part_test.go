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
