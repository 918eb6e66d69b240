package config

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoadSynthetic resolves and validates the paper's synthetic
// config (configs/synthetic.yaml) as smrl run --config does, environment
// and flags empty: the cost each Load of a command pays.
func BenchmarkLoadSynthetic(b *testing.B) {
	path := filepath.Join("..", "..", "configs", "synthetic.yaml")
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, err := Load(Options{Path: path}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkYAMLSynthetic renders the synthetic config's snapshot
// (config.yaml of a run, and the comparison of two configs).
func BenchmarkYAMLSynthetic(b *testing.B) {
	path := filepath.Join("..", "..", "configs", "synthetic.yaml")
	c, err := Load(Options{Path: path})
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, err := c.YAML(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadSyntheticUncached is BenchmarkLoadSynthetic with the file
// read afresh each time (filecache.go emptied): a command's first Load of
// its config.
func BenchmarkLoadSyntheticUncached(b *testing.B) {
	path := filepath.Join("..", "..", "configs", "synthetic.yaml")
	if _, err := os.Stat(path); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		parsedFiles.Lock()
		parsedFiles.m, parsedFiles.order = nil, nil
		parsedFiles.Unlock()
		if _, err := Load(Options{Path: path}); err != nil {
			b.Fatal(err)
		}
	}
}
