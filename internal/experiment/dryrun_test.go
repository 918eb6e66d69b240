package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// --dry-run refuses what the run refuses, with the same error, and writes
// nothing: an --out that is a regular file or a non-empty directory smrl
// did not make, a --resume of a missing directory or with another config.
// The same for a sweep.
func TestDryRunRefusesWhatRunRefuses(t *testing.T) {
	base := t.TempDir()
	file, foreign, done := filepath.Join(base, "file"), filepath.Join(base, "foreign"), filepath.Join(base, "done")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := quick(t)
	quickRunIn(t, done)
	other := quick(t)
	other.Episodes++
	cases := []struct {
		name string
		run  func(dry bool) error
	}{
		{"out is a file", func(dry bool) error { return Run(context.Background(), c, Options{OutDir: file, DryRun: dry}) }},
		{"out is foreign", func(dry bool) error { return Run(context.Background(), c, Options{OutDir: foreign, DryRun: dry}) }},
		{"resume missing", func(dry bool) error {
			return Run(context.Background(), c, Options{OutDir: filepath.Join(base, "missing"), Resume: true, DryRun: dry})
		}},
		{"resume other config", func(dry bool) error {
			return Run(context.Background(), other, Options{OutDir: done, Resume: true, DryRun: dry})
		}},
	}
	sw := filepath.Join(base, "sweep")
	s, _ := tinySweepRunIn(t, sw)
	s3 := tinySweep(t, "episodes=4")
	cases = append(cases, []struct {
		name string
		run  func(dry bool) error
	}{
		{"sweep out is a file", func(dry bool) error {
			return RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: file, DryRun: dry}})
		}},
		{"sweep resume missing", func(dry bool) error {
			return RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: filepath.Join(base, "missing-sweep"), Resume: true, DryRun: dry}})
		}},
		{"sweep resume other grid", func(dry bool) error {
			return RunSweep(context.Background(), s3, SweepOptions{Options: Options{OutDir: sw, Resume: true, DryRun: dry}})
		}},
	}...)
	for _, tc := range cases {
		before := snapshot(t, base)
		dryErr := tc.run(true)
		sameTree(t, base, before, tc.name+", dry run")
		runErr := tc.run(false)
		if !errors.Is(runErr, errs.ErrInvalidInput) {
			t.Fatalf("%s: the run: err = %v, want invalid input", tc.name, runErr)
		}
		if dryErr == nil || dryErr.Error() != runErr.Error() || !errors.Is(dryErr, errs.ErrInvalidInput) {
			t.Errorf("%s: the dry run: err = %v, want the run's %v", tc.name, dryErr, runErr)
		}
	}
}
