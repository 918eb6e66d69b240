package config

import (
	"os"
	"path/filepath"
	"testing"
)

// A results directory's config.yaml written before sm.floor existed has
// no sm section: read as a snapshot (--resume, merge) it is the run it
// was, plain score matching (sm.floor 0), not the new default; one that
// records the key keeps its value, and a config file (not a snapshot)
// without it takes the default.
func TestSnapshotWithoutFloorIsPlain(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(old, []byte("name: old\nagents: [sm, oracle]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recorded := filepath.Join(dir, "new.yaml")
	if err := os.WriteFile(recorded, []byte("name: new\nagents: [sm, oracle]\nsm:\n  floor: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path     string
		snapshot bool
		want     float64
	}{
		{old, true, 0},
		{recorded, true, 3},
		{old, false, 5},
	} {
		c, err := Load(Options{Path: tc.path, Snapshot: tc.snapshot})
		if err != nil {
			t.Fatal(err)
		}
		if f, _ := c.Value("sm.floor"); f != tc.want {
			t.Errorf("%s (snapshot %v): sm.floor = %v, want %v", filepath.Base(tc.path), tc.snapshot, f, tc.want)
		}
	}
}
