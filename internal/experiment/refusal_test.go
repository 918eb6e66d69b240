package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// snapshot reads every regular file below dir (path → content; a symbolic
// link, which it does not follow, → "-> " and its target).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[p] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails unless dir holds exactly the files of before, unchanged.
func sameTree(t *testing.T, dir string, before map[string]string, what string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s: %s was removed", what, p)
		} else if a != b {
			t.Errorf("%s: %s was changed", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s was created", what, p)
		}
	}
}

// A sweep merge that fails (a shard missing) changes nothing in an existing
// merged sweep and creates nothing in a new --out: every point is read and
// checked before the root is touched.
func TestSweepMergeFailureChangesNothing(t *testing.T) {
	s := tinySweep(t)
	base := t.TempDir()
	var shards []string
	for i := range 3 {
		d := filepath.Join(base, "shard-"+string(rune('0'+i)))
		if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: d, Shard: runner.Shard{Index: i, Count: 3}}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	if err := MergeSweep(context.Background(), shards, SweepOptions{Options: Options{OutDir: merged}}); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, merged)
	err := MergeSweep(context.Background(), shards[:2], SweepOptions{Options: Options{OutDir: merged, Overwrite: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("merge with a shard missing: err = %v", err)
	}
	sameTree(t, merged, before, "failed merge into a merged sweep")
	fresh := filepath.Join(base, "fresh")
	if err := MergeSweep(context.Background(), shards[:2], SweepOptions{Options: Options{OutDir: fresh}}); err == nil {
		t.Fatal("merge with a shard missing succeeded")
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a failed merge created %s", fresh)
	}
}

// A fresh sweep over an earlier one that cannot take one of its points
// (another smrl process holds it) fails before it removes or truncates
// anything of the earlier sweep.
func TestSweepBlockedPointChangesNothing(t *testing.T) {
	s, root := tinySweepRun(t)
	release, err := outdir.Lock(filepath.Join(root, s.Points[3].Name))
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(root, s.Points[3].Name, outdir.LockFile)
	before := snapshot(t, root)
	err = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Overwrite: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "in use by another smrl process") {
		t.Fatalf("sweep into a locked point: err = %v", err)
	}
	sameTree(t, root, before, "sweep refused at its last point")
	release()
	if _, err := os.Stat(lock); err == nil {
		t.Fatal("the lock file outlived its release")
	}
}

// A resume with another --shard than the directory was made with is
// refused (it would mix two shards in one directory), for runs and
// sweeps; the same shard resumes.
func TestResumeRefusesOtherShard(t *testing.T) {
	c := quick(t)
	dir := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: dir, Shard: runner.Shard{Index: 0, Count: 2}}); err != nil {
		t.Fatal(err)
	}
	journal := readFile(t, dir, results.JournalFile)
	err := Run(context.Background(), c, Options{OutDir: dir, Resume: true, Shard: runner.Shard{Index: 1, Count: 2}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "but this run is shard 1/2") {
		t.Errorf("run resumed with another shard: err = %v", err)
	}
	if !bytes.Equal(journal, readFile(t, dir, results.JournalFile)) {
		t.Error("the refused resume changed the journal")
	}
	if err := Run(context.Background(), c, Options{OutDir: dir, Resume: true, Shard: runner.Shard{Index: 0, Count: 2}}); err != nil {
		t.Errorf("resume with the same shard: %v", err)
	}

	s := tinySweep(t)
	root := filepath.Join(t.TempDir(), "sweep")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Shard: runner.Shard{Index: 0, Count: 3}}}); err != nil {
		t.Fatal(err)
	}
	err = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Resume: true, Shard: runner.Shard{Index: 2, Count: 3}}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "but this run is shard 2/3") {
		t.Errorf("sweep resumed with another shard: err = %v", err)
	}
}

// A sweep resumes only with the base config its sweep.yaml records: a
// sweep.yaml edited since (or a different --config) is refused, naming the
// key.
func TestSweepResumeRefusesOtherBase(t *testing.T) {
	s, root := tinySweepRun(t)
	manifest := filepath.Join(root, grid.ManifestFile)
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte("\nseeds: 2\n"), []byte("\nseeds: 3\n"), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("%s has no line seeds: 2", manifest)
	}
	if err := os.WriteFile(manifest, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	err = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Resume: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "seeds = 3, this sweep 2") {
		t.Errorf("resume against an edited sweep.yaml: err = %v", err)
	}
}

// A merge into a directory that holds completed results (a run's, or an
// earlier merge's) is refused, as a fresh run there is, and leaves it
// unchanged; --overwrite replaces them. The same holds for a sweep merge
// into a completed sweep.
func TestMergeRefusesCompletedResults(t *testing.T) {
	base := t.TempDir()
	shard, out := quickShardRun(t), filepath.Join(base, "out")
	quickRunIn(t, out)
	before := snapshot(t, out)
	err := Merge(context.Background(), []string{shard}, Options{OutDir: out})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds completed results (episodes.csv)") {
		t.Fatalf("merge into a completed run: err = %v", err)
	}
	sameTree(t, out, before, "merge refused over a completed run")
	if err := Merge(context.Background(), []string{shard}, Options{OutDir: out, Overwrite: true}); err != nil {
		t.Fatalf("merge --overwrite: %v", err)
	}

	_, sweepShard := tinySweepShardRun(t)
	sweepOut := filepath.Join(base, "sweep")
	if err := MergeSweep(context.Background(), []string{sweepShard}, SweepOptions{Options: Options{OutDir: sweepOut}}); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, sweepOut)
	err = MergeSweep(context.Background(), []string{sweepShard}, SweepOptions{Options: Options{OutDir: sweepOut}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds completed results (sweep.csv)") {
		t.Fatalf("sweep merge into a completed sweep: err = %v", err)
	}
	sameTree(t, sweepOut, before, "sweep merge refused over a completed sweep")
	if err := MergeSweep(context.Background(), []string{sweepShard}, SweepOptions{Options: Options{OutDir: sweepOut, Overwrite: true}}); err != nil {
		t.Fatalf("sweep merge --overwrite: %v", err)
	}
}

// An interrupted run's journal holds results too: a fresh run or a merge
// into its directory is refused (exit 2) unless --overwrite, and the
// journal is left as it was; --resume continues it.
func TestInterruptedRunIsNotReplaced(t *testing.T) {
	c := quick(t)
	base := t.TempDir()
	shard, out := quickShardRun(t), filepath.Join(base, "out")
	ctx, cancel, journaled := cancelAfter(2)
	defer cancel()
	if err := Run(ctx, c, Options{OutDir: out, Workers: 1, journaled: journaled}); !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	before := snapshot(t, out)
	err := Run(context.Background(), c, Options{OutDir: out})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds 2 completed trials of an interrupted run (journal.jsonl)") ||
		!strings.Contains(err.Error(), "--resume continues") {
		t.Fatalf("fresh run into an interrupted one: err = %v", err)
	}
	err = Merge(context.Background(), []string{shard}, Options{OutDir: out})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds 2 completed trials") || strings.Contains(err.Error(), "--resume") {
		t.Fatalf("merge into an interrupted run: err = %v", err)
	}
	sameTree(t, out, before, "run and merge refused over an interrupted run")
	if err := Run(context.Background(), c, Options{OutDir: out, Resume: true}); err != nil {
		t.Fatalf("resume: %v", err)
	}
}
