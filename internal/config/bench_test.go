package config

import "testing"

// Resolving a config (defaults, the registry's sections, a file-less
// override) and rendering its snapshot: once per run, per sweep point.
func BenchmarkLoad(b *testing.B) {
	set := []Setting{{Key: "planner.kind", Value: "cem", Source: "--set"}}
	for b.Loop() {
		if _, err := Load(Options{Set: set}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkYAML(b *testing.B) {
	c, err := Load(Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.YAML(); err != nil {
			b.Fatal(err)
		}
	}
}
