package experiment

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
)

// Merge combines the results directories of shards of one run into
// opt.OutDir. The shards must share one config (up to workers) and together
// hold every trial exactly once; the output is the same as a single-machine
// run's, rows in canonical order. Every shard is read and checked before
// opt.OutDir is touched. An opt.OutDir holding completed results (its
// episodes.csv) is refused unless opt.Overwrite, as by Run.
func Merge(_ context.Context, dirs []string, opt Options) error {
	start := time.Now()
	if err := checkMergeInputs(dirs, opt.OutDir); err != nil {
		return err
	}
	if grid.IsDir(opt.OutDir) {
		return errs.Invalid(fmt.Errorf("merge: --out %s is a sweep directory (smrl sweep): merge the run into another directory", opt.OutDir))
	}
	if parent := filepath.Dir(filepath.Clean(opt.OutDir)); grid.IsDir(parent) {
		return errs.Invalid(fmt.Errorf("merge: --out %s is inside the sweep directory %s (smrl sweep), whose points only smrl sweep writes: merge the run into another directory", opt.OutDir, parent))
	}
	if !opt.Overwrite {
		if err := refuseCompleted(opt.OutDir, results.EpisodesFile, false); err != nil {
			return fmt.Errorf("merge: --out: %w", err)
		}
	}
	m, err := readShards(dirs)
	if err != nil {
		return err
	}
	release, err := openOutDir(opt.OutDir, false)
	if err != nil {
		return fmt.Errorf("merge: --out: %w", err)
	}
	defer release()
	if !opt.Overwrite {
		if err := refuseJournal(opt.OutDir, false); err != nil {
			return fmt.Errorf("merge: --out: %w", err)
		}
	}
	return m.write(start, opt)
}

// mergedRun is the complete run the shards of one run make together.
type mergedRun struct {
	dirs    []string
	c       *config.Config
	mdp     *env.MDP
	cfgYAML []byte
	full    *record.Result
}

// readShards reads the shard directories dirs of one run and checks that
// they share one config and hold every trial exactly once. It writes
// nothing.
func readShards(dirs []string) (*mergedRun, error) {
	var c *config.Config
	var mdp *env.MDP
	var want *results.Expect
	owner := map[record.Trial]string{}
	done := map[record.Trial][]record.Episode{}
	for _, d := range dirs {
		cd, err := config.Load(config.Options{Path: filepath.Join(d, results.ConfigFile), Snapshot: true})
		if err != nil {
			return nil, err
		}
		if c == nil {
			c = cd
			if mdp, err = env.New(c); err != nil {
				return nil, errs.Invalid(fmt.Errorf("%s: %w", filepath.Join(d, results.ConfigFile), err))
			}
			want = expectFor(c, mdp)
		} else {
			key, va, vb, err := configDiff(c, cd)
			if err != nil {
				return nil, err
			}
			if key != "" {
				return nil, errs.Invalid(fmt.Errorf("merge: %s and %s were run with different configs: %s = %s vs %s", dirs[0], d, key, va, vb))
			}
		}
		trials, err := results.ReadJournal(d, want)
		if err != nil {
			return nil, err
		}
		for t, eps := range trials {
			if prev, dup := owner[t]; dup {
				return nil, errs.Invalid(fmt.Errorf("merge: trial agent %s seed %d is in both %s and %s", t.Agent, t.Seed, prev, d))
			}
			owner[t] = d
			done[t] = eps
		}
	}
	all := record.Trials(c)
	var missing []string
	full := &record.Result{}
	for _, t := range all {
		eps, ok := done[t]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s/seed %d", t.Agent, t.Seed))
			continue
		}
		full.Trials = append(full.Trials, t)
		full.Episodes = append(full.Episodes, eps)
		delete(done, t)
	}
	if len(missing) > 0 {
		return nil, errs.Invalid(fmt.Errorf("merge: %d of %d trials are missing (a shard not run, not finished, or not given): %s",
			len(missing), len(all), strings.Join(missing, ", ")))
	}
	for t := range done {
		return nil, errs.Invalid(fmt.Errorf("merge: %s holds trial agent %s seed %d, which the config does not have", owner[t], t.Agent, t.Seed))
	}
	cfgYAML, err := c.YAML()
	if err != nil {
		return nil, err
	}
	return &mergedRun{dirs: dirs, c: c, mdp: mdp, cfgYAML: cfgYAML, full: full}, nil
}

// write writes the merged run into opt.OutDir, which the caller has
// claimed and locked.
func (m *mergedRun) write(start time.Time, opt Options) error {
	// The merged directory gets the journal of a single-machine run, so it
	// can itself be merged or resumed. The files of an earlier run or merge
	// there are removed first, as for a fresh run: a merge killed midway
	// must not leave old figures and report.md beside the new CSV files.
	j, err := startFresh(opt.OutDir, m.cfgYAML)
	if err != nil {
		return err
	}
	for i, t := range m.full.Trials {
		if err := j.Append(t, m.full.Episodes[i]); err != nil {
			j.Close()
			return err
		}
	}
	if err := j.Close(); err != nil {
		return err
	}
	if err := metrics.Concat(opt.OutDir, m.dirs); err != nil {
		return err
	}
	meta := &results.Metadata{Version: opt.Version, GoVersion: runtime.Version(), GitCommit: opt.Commit,
		CommandLine: opt.CommandLine, Start: start.UTC(), Trials: len(m.full.Trials), MergedFrom: m.dirs}
	return finish(m.c, m.mdp, m.full, m.cfgYAML, meta, opt)
}

// sameDir reports whether paths a and b name the same directory, also
// through symbolic links or different spellings of the path.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(fa, fb)
	}
	x, err1 := filepath.Abs(a)
	y, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && x == y
}

// checkMergeInputs refuses an empty list of shard directories and an output
// directory that is one of them.
func checkMergeInputs(dirs []string, out string) error {
	if len(dirs) == 0 {
		return errs.Invalid(fmt.Errorf("merge: no shard directories given"))
	}
	for _, d := range dirs {
		if sameDir(d, out) {
			return errs.Invalid(fmt.Errorf("merge: --out %s is the shard directory %s; merge into a new directory", out, d))
		}
	}
	return nil
}
