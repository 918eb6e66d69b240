package experiment

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/runner"
)

// The finished runs several tests start from, run once per test binary
// (under fixtureRoot, which TestMain removes) and copied into each test's
// own directory: a run is deterministic, so a copy is byte for byte what
// the test's own run would have written, at a copy's cost instead of a
// run's. A test of how a run or a sweep writes its files runs its own.
var fixtures struct {
	once       sync.Once
	root       string
	err        error
	quick      sync.Once
	shard      sync.Once
	sweep      sync.Once
	sweepShard sync.Once
	qErr       error
	hErr       error
	sErr       error
	wErr       error
}

// fixtureRoot is the directory of the shared runs, made on first use.
func fixtureRoot(t *testing.T) string {
	t.Helper()
	fixtures.once.Do(func() {
		fixtures.root, fixtures.err = os.MkdirTemp("", "smrl-experiment-fixtures-*")
	})
	if fixtures.err != nil {
		t.Fatal(fixtures.err)
	}
	return fixtures.root
}

// removeFixtures removes the shared runs (TestMain, after the tests).
func removeFixtures() {
	if fixtures.root != "" {
		os.RemoveAll(fixtures.root)
	}
}

// copyShared copies the finished run src to dst (a new directory of t
// when dst is "") and returns dst.
func copyShared(t *testing.T, src, dst string) string {
	t.Helper()
	if dst == "" {
		dst = filepath.Join(t.TempDir(), "run")
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// quickRun returns a copy of the finished run of quick(t) without figures:
// what Run(ctx, quick(t), Options{OutDir: dir}) leaves in dir.
func quickRun(t *testing.T) string {
	t.Helper()
	return quickRunIn(t, "")
}

// quickRunIn is quickRun copying to dst (which must not exist).
func quickRunIn(t *testing.T, dst string) string {
	t.Helper()
	src := filepath.Join(fixtureRoot(t), "quick")
	fixtures.quick.Do(func() {
		fixtures.qErr = Run(context.Background(), quick(t), Options{OutDir: src})
	})
	if fixtures.qErr != nil {
		t.Fatalf("the shared quick run: %v", fixtures.qErr)
	}
	return copyShared(t, src, dst)
}

// quickShardRun returns a copy of the finished run of quick(t) as the one
// shard of one, without figures: what Run(ctx, quick(t), Options{OutDir:
// dir, Shard: runner.Shard{Index: 0, Count: 1}}) leaves in dir, the input
// of a merge.
func quickShardRun(t *testing.T) string {
	t.Helper()
	src := filepath.Join(fixtureRoot(t), "quick-shard")
	fixtures.shard.Do(func() {
		fixtures.hErr = Run(context.Background(), quick(t), Options{OutDir: src, Shard: runner.Shard{Index: 0, Count: 1}})
	})
	if fixtures.hErr != nil {
		t.Fatalf("the shared quick shard: %v", fixtures.hErr)
	}
	return copyShared(t, src, "")
}

// tinySweepRun returns tinySweep(t) and a copy of its finished sweep
// without figures, run by one worker: what RunSweep(ctx, s,
// SweepOptions{Options: Options{OutDir: root}}) leaves in root, with any
// workers.
func tinySweepRun(t *testing.T) (*grid.Sweep, string) {
	t.Helper()
	return tinySweepRunIn(t, "")
}

// tinySweepRunIn is tinySweepRun copying to dst (which must not exist).
func tinySweepRunIn(t *testing.T, dst string) (*grid.Sweep, string) {
	t.Helper()
	s := tinySweep(t)
	src := filepath.Join(fixtureRoot(t), "sweep")
	fixtures.sweep.Do(func() {
		fixtures.sErr = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: src, Workers: 1}})
	})
	if fixtures.sErr != nil {
		t.Fatalf("the shared tiny sweep: %v", fixtures.sErr)
	}
	return s, copyShared(t, src, dst)
}

// tinySweepShardRun returns tinySweep(t) and a copy of its finished sweep
// as the one shard of one, without figures: what RunSweep(ctx, s,
// SweepOptions{Options: Options{OutDir: dir, Shard: runner.Shard{Index: 0,
// Count: 1}}}) leaves in dir, the input of a sweep merge.
func tinySweepShardRun(t *testing.T) (*grid.Sweep, string) {
	t.Helper()
	s := tinySweep(t)
	src := filepath.Join(fixtureRoot(t), "sweep-shard")
	fixtures.sweepShard.Do(func() {
		fixtures.wErr = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: src, Shard: runner.Shard{Index: 0, Count: 1}}})
	})
	if fixtures.wErr != nil {
		t.Fatalf("the shared tiny sweep's shard: %v", fixtures.wErr)
	}
	return s, copyShared(t, src, "")
}
