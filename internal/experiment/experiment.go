// Package experiment runs a configured experiment end to end:
// config → MDP → trials on a worker pool → results files → table → figures.
package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// Options controls one run.
type Options struct {
	OutDir      string // results directory; created if missing
	Workers     int    // parallel trials; <= 0 means all cores
	Stdout      io.Writer
	Log         io.Writer // progress lines; nil for none
	CommandLine []string
	Version     string
	Commit      string
	// Plot, when not nil, draws the figures of the finished directory.
	Plot func(dir string) error
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

// Run executes every trial of c and writes the results directory.
func Run(ctx context.Context, c *config.Config, opt Options) error {
	start := time.Now()
	mdp, err := env.New(c)
	if err != nil {
		return errs.Invalid(err)
	}
	if err := checkWritable(opt.OutDir); err != nil {
		return err
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	trials := runner.Trials(c)
	var progress func(done, total int)
	if opt.Log != nil {
		last := time.Now()
		progress = func(done, total int) {
			if done == total || time.Since(last) > 2*time.Second {
				last = time.Now()
				fmt.Fprintf(opt.Log, "smrl: %d/%d trials done (%.1fs)\n", done, total, time.Since(start).Seconds())
			}
		}
	}
	res, err := runner.Run(ctx, c, mdp, trials, runner.Options{Workers: workers, Progress: progress})
	if err != nil {
		return err
	}
	rows := results.Rows(res)
	cfgYAML, err := c.YAML()
	if err != nil {
		return err
	}
	end := time.Now()
	meta := &results.Metadata{Version: opt.Version, GoVersion: runtime.Version(), GitCommit: opt.Commit,
		CommandLine: opt.CommandLine, Start: start.UTC(), End: end.UTC(),
		WallSeconds: end.Sub(start).Seconds(), Workers: workers, Trials: len(trials)}
	dpsi, dphi := mdp.True.Dist.StatDim(), mdp.True.Feat.Dim()
	if err := results.WriteDir(opt.OutDir, rows, dpsi, dphi, cfgYAML, meta); err != nil {
		return err
	}
	if opt.Stdout != nil {
		if err := results.Table(opt.Stdout, results.Summarise(rows), IsPaper(c)); err != nil {
			return err
		}
		fmt.Fprintf(opt.Stdout, "\nwrote %s (%d trials in %.2fs)\n", opt.OutDir, len(trials), end.Sub(start).Seconds())
	}
	if opt.Plot != nil {
		if err := opt.Plot(opt.OutDir); err != nil {
			return fmt.Errorf("drawing figures: %w", err)
		}
	}
	return nil
}
