package experiment

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/results"
)

// A merged metadata.json records the Go version and git commit like a
// run's.
func TestMergedMetadata(t *testing.T) {
	shard := quickShardRun(t)
	out := t.TempDir()
	if err := Merge(context.Background(), []string{shard}, Options{OutDir: out, Version: "v9", Commit: "abc123"}); err != nil {
		t.Fatal(err)
	}
	var meta results.Metadata
	b, _ := os.ReadFile(filepath.Join(out, results.MetadataFile))
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.GoVersion == "" || meta.GitCommit != "abc123" || meta.Version != "v9" {
		t.Errorf("merged metadata %+v: want go_version, git_commit abc123 and smrl_version v9", meta)
	}
}

// Issue 19, item 4: a merge killed midway left the old report.md and
// plots/ beside the new CSV files. The derived files of an earlier merge
// are removed before the first new file is written, so at the moment the
// new CSV files are complete (where a kill before the figures would leave
// the directory) no old figure or report is left.
func TestMergeRemovesStaleFiguresFirst(t *testing.T) {
	shard := quickShardRun(t)
	out := filepath.Join(t.TempDir(), "merged")
	draw := func(dir string) error { _, err := Figures(dir, "svg"); return err }
	if err := Merge(context.Background(), []string{shard}, Options{OutDir: out, Plot: draw}); err != nil {
		t.Fatal(err)
	}
	derived := []string{plotting.ReportFile, filepath.Join(plotsDir, "cum_reward.svg")}
	for _, f := range derived {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatalf("the first merge did not write %s", f)
		}
	}
	checked := false
	killPoint := func(dir string) error {
		checked = true
		if _, err := os.Stat(filepath.Join(dir, results.SummaryFile)); err != nil {
			t.Errorf("the new CSV files are not written: %v", err)
		}
		for _, f := range derived {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s of the earlier merge is still there beside the new CSV files", f)
			}
		}
		return nil
	}
	if err := Merge(context.Background(), []string{shard}, Options{OutDir: out, Plot: killPoint, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if !checked {
		t.Fatal("the figure step did not run")
	}
}
