package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// The interrupted message says "interrupted" once (it said
// "interrupted: interrupted: …").
func TestInterruptedMessageOnce(t *testing.T) {
	c := quick(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, c, Options{OutDir: t.TempDir(), ResumeHint: "smrl run --resume"})
	if !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if n := strings.Count(err.Error(), "interrupted"); n != 1 {
		t.Errorf("%q says interrupted %d times", err, n)
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
