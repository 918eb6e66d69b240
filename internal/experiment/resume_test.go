package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func quick(t *testing.T) *config.Config {
	t.Helper()
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	c.Seeds, c.Episodes, c.Stats.BootstrapReps = 3, 4, fewDraws
	return c
}

// fewDraws is stats.bootstrap_reps for the runs of tests that read no
// interval's value: the default 10,000 draws made the aggregates a
// noticeable part of a small run's CPU, and 200 still write every
// aggregate file, deterministically (the draws come from the run's seed),
// so that the files a test compares are compared as before.
const fewDraws = 200

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func journalLines(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, results.JournalFile))
	return bytes.Count(b, []byte("\n"))
}

// cancelAfter returns a context cancelled as the n-th trial is journaled
// and the hook for Options.journaled that does it: synchronously, so that
// exactly n trials are journaled by one worker however loaded the machine
// is (a poller of the journal could let the whole run finish first).
func cancelAfter(n int) (context.Context, context.CancelFunc, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	return ctx, cancel, func() {
		if done.Add(1) == int64(n) {
			cancel()
		}
	}
}

func TestResumeAfterInterruptEqualsUninterruptedRun(t *testing.T) {
	c := quick(t)
	ref := quickRun(t)
	dir := t.TempDir()
	ctx, cancel, journaled := cancelAfter(2)
	defer cancel()
	err := Run(ctx, c, Options{OutDir: dir, Workers: 1, ResumeHint: "smrl run --resume", journaled: journaled})
	if !errors.Is(err, errs.ErrInterrupted) || !strings.Contains(err.Error(), "smrl run --resume") {
		t.Fatalf("interrupted run: err = %v, want ErrInterrupted with a resume hint", err)
	}
	total := len(record.Trials(c))
	if n := journalLines(dir); n < 2 || n >= total {
		t.Fatalf("journal holds %d of %d trials after the interrupt", n, total)
	}
	if _, err := os.Stat(filepath.Join(dir, results.EpisodesFile)); err == nil {
		t.Error("an interrupted run wrote episodes.csv")
	}
	// A kill in the middle of a journal write leaves a line without newline.
	f, _ := os.OpenFile(filepath.Join(dir, results.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"agent":"lds","seed":2,"episodes":[{"episode":1,"rew`)
	f.Close()
	c.Workers = 2 // workers do not change results, so a resume may use others
	if err := Run(context.Background(), c, Options{OutDir: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{results.EpisodesFile, results.SummaryFile, results.ConfigFile} {
		if !bytes.Equal(readFile(t, ref, name), readFile(t, dir, name)) && name != results.ConfigFile {
			t.Errorf("%s after resume differs from the uninterrupted run", name)
		}
	}
}

func TestResumeRefusesOtherConfig(t *testing.T) {
	c := quick(t)
	dir := quickRun(t)
	c.Planner.Tau = 4
	err := Run(context.Background(), c, Options{OutDir: dir, Resume: true})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "planner.tau = 5") {
		t.Errorf("err = %v, want a refusal naming planner.tau", err)
	}
	nowhere := filepath.Join(t.TempDir(), "never-ran")
	if err := Run(context.Background(), c, Options{OutDir: nowhere, Resume: true}); err == nil {
		t.Error("resumed a directory without a run")
	}
	if _, err := os.Stat(nowhere); err == nil {
		t.Error("a refused --resume created its --out")
	}
}

func TestShardsMergeToSingleRun(t *testing.T) {
	c := quick(t)
	ref := quickRun(t)
	var shards []string
	for i := 0; i < 3; i++ {
		d := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: d, Shard: runner.Shard{Index: i, Count: 3}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	out := t.TempDir()
	if err := Merge(context.Background(), []string{shards[2], shards[0], shards[1]}, Options{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{results.EpisodesFile, results.SummaryFile} {
		if !bytes.Equal(readFile(t, ref, name), readFile(t, out, name)) {
			t.Errorf("merged %s differs from the single run", name)
		}
	}
	// The merged directory has a complete journal: merging it again works.
	again := t.TempDir()
	if err := Merge(context.Background(), []string{out}, Options{OutDir: again}); err != nil {
		t.Fatalf("re-merging a merged directory: %v", err)
	}
	if !bytes.Equal(readFile(t, ref, results.EpisodesFile), readFile(t, again, results.EpisodesFile)) {
		t.Error("re-merged episodes.csv differs")
	}
	// Merging into one of the inputs is refused.
	if err := Merge(context.Background(), shards, Options{OutDir: shards[0]}); !errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("merge into an input: err = %v", err)
	}
	// A missing shard is named.
	err := Merge(context.Background(), shards[:2], Options{OutDir: t.TempDir()})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing shard: err = %v", err)
	}
	// The same shard twice is a duplicate.
	err = Merge(context.Background(), []string{shards[0], shards[0], shards[1], shards[2]}, Options{OutDir: t.TempDir()})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "in both") {
		t.Errorf("duplicate shard: err = %v", err)
	}
	// A shard of another config is refused, naming the key.
	other := *c
	other.Episodes = 3
	d := t.TempDir()
	if err := Run(context.Background(), &other, Options{OutDir: d, Shard: runner.Shard{Index: 2, Count: 3}}); err != nil {
		t.Fatal(err)
	}
	err = Merge(context.Background(), []string{shards[0], shards[1], d}, Options{OutDir: t.TempDir()})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "episodes = 4 vs 3") {
		t.Errorf("different configs: err = %v", err)
	}
}

func TestConfigDiffNamesAKeyMissingFromOneSide(t *testing.T) {
	a := testutil.LoadConfig(t, "")
	b := testutil.LoadConfig(t, "")
	b.Stats.SaveSE = true
	key, va, vb, err := configDiff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if key != "stats.save_se" || va == "" || vb == "" {
		t.Errorf("configDiff = %q, %q, %q; want stats.save_se with both sides named", key, va, vb)
	}
}
