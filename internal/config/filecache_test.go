package config

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A file read again with the same bytes is taken from the cache: its keys'
// origins name the path of this Load, a sweep: callback that changes the
// nodes it is given does not change what the next Load gets, a changed
// file is read afresh, and a refused file is refused again with the same
// message.
func TestFileCache(t *testing.T) {
	dir := t.TempDir()
	text := "episodes: 7 # x\nsweep:\n  sample: 2\n  planner.tau: [1, 2]\nseeds: 3\n"
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var entries []int
	sweep := func(k, v *yaml.Node) error {
		entries = append(entries, len(v.Content))
		v.Content = v.Content[2:] // as smrl sweep cuts sample:
		return nil
	}
	for _, p := range []string{a, b, a} {
		c, err := Load(Options{Path: p, Sweep: sweep})
		if err != nil {
			t.Fatal(err)
		}
		if c.Episodes != 7 || c.Seeds != 3 || c.Origin("episodes") != p+":1" || c.Origin("seeds") != p+":5" {
			t.Errorf("%s: episodes %d from %s, seeds %d from %s", p, c.Episodes, c.Origin("episodes"), c.Seeds, c.Origin("seeds"))
		}
	}
	if len(entries) != 3 || entries[0] != 4 || entries[1] != 4 || entries[2] != 4 {
		t.Errorf("the sweep: callbacks got mappings of %v nodes, want 4 each time", entries)
	}
	if err := os.WriteFile(a, []byte("episodes: 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(Options{Path: a}); err != nil || c.Episodes != 8 {
		t.Errorf("a changed file: episodes %v, %v", c, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("episods: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err1 := Load(Options{Path: bad})
	_, err2 := Load(Options{Path: bad})
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("a refused file: %v, then %v", err1, err2)
	}
}
