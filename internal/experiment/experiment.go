// Package experiment runs a configured experiment end to end:
// config → MDP → trials on a worker pool → results files → table → figures.
package experiment

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// Options controls one run.
type Options struct {
	OutDir      string // results directory; created if missing
	Workers     int    // parallel trials; <= 0 means all cores
	Stdout      io.Writer
	CommandLine []string
	Version     string
	Commit      string
	// Resume continues the run in OutDir: completed trials of its journal
	// are kept, the config must be the same.
	Resume bool
	// Shard restricts the run to a subset of the trials (Count 0: all).
	Shard runner.Shard
	// Log receives progress and status records; nil for none.
	Log *slog.Logger
	// Bar, when not nil, shows a progress bar there (a terminal) instead of
	// progress log records.
	Bar io.Writer
	// Plot, when not nil, draws the figures of the finished directory.
	Plot func(dir string) error
	// ResumeHint is the command line that resumes this run, printed when it
	// is interrupted.
	ResumeHint string
}

// DefaultOutDir is results/<config name>/.
func DefaultOutDir(c *config.Config) string { return filepath.Join("results", c.Name) }

// IsPaper reports whether c is the paper's experiment (the embedded
// defaults), up to settings that do not change results.
func IsPaper(c *config.Config) bool {
	d, err := config.Load(config.Options{})
	if err != nil {
		return false
	}
	a, b := *c, *d
	a.Name, b.Name = "", ""
	a.Workers, b.Workers = 0, 0
	a.Agents, b.Agents = nil, nil
	a.Estimate, b.Estimate = config.Estimate{}, config.Estimate{}
	return reflect.DeepEqual(a, b)
}

// checkWritable creates dir and proves that files can be created in it,
// so that a bad --out fails before any trial runs.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".smrl-write-check-*")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Run executes the trials of c (all, or the shard's) and writes the
// results directory. Completed trials go to the journal as they finish; on
// cancellation (SIGINT/SIGTERM) the trials in flight finish, the journal
// keeps them, and Run returns an error wrapping errs.ErrInterrupted.
func Run(ctx context.Context, c *config.Config, opt Options) error {
	start := time.Now()
	if opt.Resume {
		// Before anything is created: a wrong --out must stay untouched.
		if err := sameConfig(filepath.Join(opt.OutDir, results.ConfigFile), c); err != nil {
			return err
		}
	}
	mdp, cfgYAML, err := prepare(c, opt.OutDir)
	if err != nil {
		return err
	}
	all := runner.Trials(c)
	selected := opt.Shard.Select(len(all))
	done := map[runner.Trial][]runner.Episode{}
	var journal *results.Journal
	if opt.Resume {
		if done, err = results.ReadJournal(opt.OutDir); err != nil {
			return err
		}
		journal, err = results.AppendJournal(opt.OutDir)
	} else {
		// A fresh run: old results must not outlive it half-replaced.
		for _, f := range []string{results.EpisodesFile, results.SummaryFile, results.MetadataFile, plotting.ReportFile} {
			os.Remove(filepath.Join(opt.OutDir, f))
		}
		for _, ext := range []string{"png", "svg", "pdf"} {
			old, _ := filepath.Glob(filepath.Join(opt.OutDir, "plots", "*."+ext))
			for _, f := range old {
				os.Remove(f)
			}
		}
		if err := fsutil.WriteAtomic(filepath.Join(opt.OutDir, results.ConfigFile), func(w io.Writer) error {
			_, err := w.Write(cfgYAML)
			return err
		}); err != nil {
			return err
		}
		journal, err = results.CreateJournal(opt.OutDir)
	}
	if err != nil {
		return err
	}
	defer journal.Close()

	var todo []runner.Trial
	for _, k := range selected {
		if _, ok := done[all[k]]; !ok {
			todo = append(todo, all[k])
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if opt.Log != nil {
		opt.Log.Info("run started", "config", c.Name, "out", opt.OutDir, "trials", len(selected),
			"already_done", len(selected)-len(todo), "shard", opt.Shard.String(), "workers", workers)
	}
	var counter atomic.Int64
	stop := startProgress(&counter, len(todo), c.Episodes, opt.Log, opt.Bar)
	res, runErr := runner.Run(ctx, c, mdp, todo, runner.Options{
		Workers: workers,
		Done:    &counter,
		OnTrial: func(i int, eps []runner.Episode) error { return journal.Append(todo[i], eps) },
	})
	stop()
	if res != nil {
		for i, t := range res.Trials {
			if res.Episodes[i] != nil {
				done[t] = res.Episodes[i]
			}
		}
	}
	if runErr != nil {
		if ctx.Err() != nil {
			n := 0
			for _, k := range selected {
				if _, ok := done[all[k]]; ok {
					n++
				}
			}
			msg := fmt.Sprintf("interrupted: %d of %d trials are complete and kept in %s", n, len(selected), filepath.Join(opt.OutDir, results.JournalFile))
			if opt.ResumeHint != "" {
				msg += "; resume with: " + opt.ResumeHint
			}
			return fmt.Errorf("%w: %s", errs.ErrInterrupted, msg)
		}
		return runErr
	}
	full := &runner.Result{}
	for _, k := range selected {
		full.Trials = append(full.Trials, all[k])
		full.Episodes = append(full.Episodes, done[all[k]])
	}
	meta := &results.Metadata{Version: opt.Version, GoVersion: runtime.Version(), GitCommit: opt.Commit,
		CommandLine: opt.CommandLine, Start: start.UTC(), Workers: workers, Trials: len(selected),
		Shard: opt.Shard.String(), Resumed: opt.Resume}
	return finish(c, mdp, full, cfgYAML, meta, opt)
}

// prepare builds the MDP of c, checks that outDir can be written before any
// trial runs, and renders the resolved config.
func prepare(c *config.Config, outDir string) (*env.MDP, []byte, error) {
	mdp, err := env.New(c)
	if err != nil {
		return nil, nil, errs.Invalid(err)
	}
	if err := checkWritable(outDir); err != nil {
		return nil, nil, err
	}
	cfgYAML, err := c.YAML()
	return mdp, cfgYAML, err
}

// finish writes the results files of a complete result, prints the table
// and draws the figures.
func finish(c *config.Config, mdp *env.MDP, res *runner.Result, cfgYAML []byte, meta *results.Metadata, opt Options) error {
	rows := results.Rows(res)
	end := time.Now()
	meta.End = end.UTC()
	meta.WallSeconds = end.Sub(meta.Start).Seconds()
	dphi := mdp.Model.Features.Dim()
	dpsi := results.WDims(rows, dphi)
	sums := results.Summarise(rows, c.Env.Horizon)
	if err := results.WriteDir(opt.OutDir, rows, sums, dpsi, dphi, cfgYAML, meta); err != nil {
		return err
	}
	if opt.Log != nil {
		opt.Log.Info("run finished", "out", opt.OutDir, "trials", len(res.Trials), "seconds", meta.WallSeconds)
	}
	if opt.Stdout != nil {
		if err := results.Table(opt.Stdout, sums, IsPaper(c), mdp.Task.Terminates()); err != nil {
			return err
		}
		fmt.Fprintf(opt.Stdout, "\nwrote %s (%d trials in %.2fs)\n", opt.OutDir, len(res.Trials), meta.WallSeconds)
	}
	if opt.Plot != nil {
		if err := opt.Plot(opt.OutDir); err != nil {
			return fmt.Errorf("drawing figures: %w", err)
		}
	}
	return nil
}
