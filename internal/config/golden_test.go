package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden/*.yaml from the shipped configs, and the key table of docs/configuration.md from the registry")

// The snapshot (config.yaml) of every shipped config holds exactly the
// sections its run uses: testdata/golden/NAME.yaml, rewritten with
// go test ./internal/config -run TestShippedSnapshots -update. A change is
// a change of what smrl writes into every results directory: review it.
func TestShippedSnapshots(t *testing.T) {
	paths, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no shipped configs: %v", err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		t.Run(name, func(t *testing.T) {
			c, err := Load(Options{Path: p, Sweep: func(k, v *yaml.Node) error { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.YAML()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name+".yaml")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("the snapshot of %s differs from %s:\n%s", p, golden, got)
			}
			// Only the sections of the parts it selects.
			for _, part := range allParts() {
				if part.Section != "" && !c.Uses(part.Section) && strings.Contains(string(got), "\n  "+part.Section[strings.LastIndex(part.Section, ".")+1:]+":\n") {
					t.Errorf("the snapshot of %s holds %s, which its run does not use", p, part.Section)
				}
			}
		})
	}
}
