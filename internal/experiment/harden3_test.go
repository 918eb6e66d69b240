package experiment

import (
	"context"
	"errors"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// Issue 19, item 4: a merge killed midway left the old report.md and
// plots/ beside the new CSV files. The derived files of an earlier merge
// are removed before the first new file is written, so at the moment the
// new CSV files are complete (where a kill before the figures would leave
// the directory) no old figure or report is left.
func TestMergeRemovesStaleFiguresFirst(t *testing.T) {
	c := quick(t)
	shard := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: shard, Shard: runner.Shard{Index: 0, Count: 1}}); err != nil {
		t.Fatal(err)
	}
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

// Item 8, interrupted: a shard stopped after its first trial has no
// summary yet, but its metadata.json (written when the trials start)
// already records the shard, so a resume without it is refused.
func TestInterruptedShardRecordsShard(t *testing.T) {
	c := quick(t)
	c.Seeds = 40
	dir := t.TempDir()
	ctx, cancel, journaled := cancelAfter(1) // as the first trial ends
	defer cancel()
	if err := Run(ctx, c, Options{OutDir: dir, Workers: 1, Shard: runner.Shard{Index: 1, Count: 3}, journaled: journaled}); !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("Run = %v, want interrupted", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.SummaryFile)); err == nil {
		t.Fatal("the run finished before it was interrupted")
	}
	err := Run(context.Background(), c, Options{OutDir: dir, Resume: true})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds shard 1/3, but this run is the whole run") {
		t.Fatalf("resume without the shard: %v", err)
	}
	if err := Run(context.Background(), c, Options{OutDir: dir, Resume: true, Shard: runner.Shard{Index: 1, Count: 3}}); err != nil {
		t.Fatalf("resume with the shard: %v", err)
	}
}

// Item 11: a signal during the validation of a large grid was noticed only
// after every point directory had been created. A sweep (and a run)
// cancelled before its trials start returns interrupted having written
// nothing.
func TestInterruptedBeforeTrialsWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	root := filepath.Join(t.TempDir(), "sweep")
	err := RunSweep(ctx, tinySweep(t), SweepOptions{Options: Options{OutDir: root}})
	if !errors.Is(err, errs.ErrInterrupted) || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("sweep: err = %v", err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if err := Run(ctx, quick(t), Options{OutDir: out}); !errors.Is(err, errs.ErrInterrupted) {
		t.Errorf("run: err = %v", err)
	}
	for _, d := range []string{root, out} {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s was created", d)
		}
	}
}
