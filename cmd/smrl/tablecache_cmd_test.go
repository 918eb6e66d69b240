package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// The sampling-table cache changes how fast a run is, never what it
// computes: a cold run (building and saving the rows), a warm one (loading
// them), one after the cache files were damaged (ignored and rebuilt) and one
// with --no-cache write byte-identical episodes.csv files.
func TestTableCacheDoesNotChangeResults(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SMRL_CACHE_DIR", cache)
	base := t.TempDir()
	var outs []string
	for i, step := range []string{"cold", "warm", "damaged", "no-cache"} {
		expfam.DropSharedTables() // start each run as a new process would
		switch step {
		case "damaged":
			files, _ := filepath.Glob(filepath.Join(cache, "*.tbl"))
			if len(files) == 0 {
				t.Fatal("the cold run saved no table")
			}
			for _, f := range files {
				os.WriteFile(f, []byte("not a table"), 0o644)
			}
		}
		out := filepath.Join(base, fmt.Sprint(i))
		args := []string{"compare", "--config", quickConfig, "--seeds", "1", "--episodes", "2", "--out", out, "-q", "--no-plots", "--set", fewDraws}
		if step == "no-cache" {
			args = append(args, "--no-cache")
		}
		mustRun(t, args...)
		outs = append(outs, read(t, filepath.Join(out, "episodes.csv")))
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			t.Errorf("run %d's episodes.csv differs from the cold run's", i)
		}
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*.tbl"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); string(b) == "not a table" {
			t.Errorf("%s was not rebuilt after it was damaged", f)
		}
	}
}
