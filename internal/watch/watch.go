// Package watch is the smrl watch use case: the learning curves of a run
// (or of every point of a sweep) while it goes on, drawn from the
// metrics.jsonl files of its results directories as a text chart in the
// terminal or as figures, with the state and an ETA of the run.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// Options controls smrl watch.
type Options struct {
	// Interval between redraws (> 0 unless Once).
	Interval time.Duration
	// Once draws once and returns.
	Once bool
	// Out receives the text chart; nil draws none.
	Out io.Writer
	// Clear redraws in place (Out is a terminal): the screen is cleared
	// before each drawing.
	Clear bool
	// Width and Height are the chart's plotting area in characters (0:
	// 64 × 12).
	Width, Height int
	// Figures, when not nil, is called with every snapshot (smrl watch
	// --png DIR draws the live figure).
	Figures func(*Snapshot) error
	// Now is the clock (nil: time.Now); tests fix it.
	Now func() time.Time
}

// State is where a run stands.
type State int

// The states of a run, read from metadata.json (its running flag) and the
// lock of the directory.
const (
	Starting State = iota // no metadata.json yet
	Running
	Stopped // metadata says running, but no process holds the directory: interrupted or killed
	Done
)

func (s State) String() string {
	return [...]string{"starting", "running", "stopped before the end (resume it with --resume)", "done"}[s]
}

// Run is one results directory's live view: its curves and counts.
type Run struct {
	Name     string // the point's name in a sweep, "" for a run
	Agents   []string
	Episodes int // per trial (the x axis)
	Curves   []metrics.Curve
}

// Snapshot is what smrl watch shows at one moment.
type Snapshot struct {
	Dir   string
	State State
	Runs  []Run
	// Done and Total count the episodes finished and to run (of the
	// trials of the shard, if the run is one).
	Done, Total int
	Elapsed     time.Duration
	// ETA is the estimate of the time left (metrics.ETA from the measured
	// episode times, less the time since the last episode ended); HasETA
	// is false before the first episode or when done.
	ETA    time.Duration
	HasETA bool
}

// target is a results directory to read: its name, config and path.
type target struct {
	name string
	c    *config.Config
	dir  string
}

// Take reads the snapshot of dir (a results directory or a sweep
// directory) at now.
func Take(dir string, now time.Time) (*Snapshot, error) {
	targets, err := targetsOf(dir)
	if err != nil {
		return nil, err
	}
	return take(dir, targets, now)
}

// take is Take with dir's run or points already loaded (targetsOf), which
// a watch does once: the configs do not change while it redraws.
func take(dir string, targets []target, now time.Time) (*Snapshot, error) {
	meta, metaDir, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Dir: dir, State: state(meta, metaDir)}
	workers := 1
	shard := runner.Shard{}
	if meta != nil {
		workers = max(meta.Workers, 1)
		s.Elapsed = now.Sub(meta.Start)
		if s.State == Done {
			s.Elapsed = meta.End.Sub(meta.Start)
		}
		if meta.Shard != "" {
			if shard, err = runner.ParseShard(meta.Shard); err != nil {
				return nil, errs.Invalid(fmt.Errorf("%s: shard: %w", filepath.Join(metaDir, results.MetadataFile), err))
			}
		}
	}
	eta := metrics.NewETA(workers)
	var all []record.Trial
	var episodes []int
	for _, t := range targets {
		for _, tr := range record.Trials(t.c) {
			all = append(all, tr)
			episodes = append(episodes, t.c.Episodes)
		}
	}
	for _, k := range shard.Select(len(all)) {
		eta.AddTrial(all[k].Agent, episodes[k])
		s.Total += episodes[k]
	}
	var last time.Time
	for _, t := range targets {
		lines, mtime, err := readLines(t.dir)
		if err != nil {
			return nil, err
		}
		if err := checkLines(filepath.Join(t.dir, metrics.File), lines, t.c); err != nil {
			return nil, err
		}
		if mtime.After(last) {
			last = mtime
		}
		s.Done += replay(eta, lines, t.c.Episodes)
		s.Runs = append(s.Runs, Run{Name: t.name, Agents: t.c.Agents, Episodes: t.c.Episodes, Curves: metrics.Curves(lines, t.c.Agents)})
	}
	if d, ok := eta.Remaining(); ok && s.State != Done && s.Done < s.Total {
		s.ETA, s.HasETA = max(d-now.Sub(last), 0), true
	}
	return s, nil
}

// replay feeds the distinct episodes of lines to eta (a resume repeats the
// episodes of the trials in flight at the interrupt) and counts them.
func replay(eta *metrics.ETA, lines []metrics.Line, episodes int) int {
	type key struct {
		agent         string
		seed, episode int
	}
	seen := map[key]bool{}
	for _, l := range lines {
		k := key{l.Agent, l.Seed, l.Episode}
		if seen[k] {
			continue
		}
		seen[k] = true
		eta.Episode(l.Agent, l.Episode == episodes, l.EpisodeSeconds)
	}
	return len(seen)
}

// readLines reads dir's metrics (none yet when the file is missing) and
// the time the file last changed.
func readLines(dir string) ([]metrics.Line, time.Time, error) {
	p := filepath.Join(dir, metrics.File)
	fi, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("reading %s: %w", p, err)
	}
	if fi.IsDir() {
		return nil, time.Time{}, errs.Invalid(fmt.Errorf("%s is a directory, not the metrics file smrl writes there", p))
	}
	lines, err := metrics.Read(p)
	return lines, fi.ModTime(), err
}

// checkLines refuses a line of a run's metrics.jsonl (path) that no trial
// of its config c could have written: an agent it does not run, a seed or
// an episode beyond its seeds and episodes. Each line is a line of the
// file (metrics.Read keeps them all), so the error names it.
func checkLines(path string, lines []metrics.Line, c *config.Config) error {
	for i, l := range lines {
		var why string
		switch {
		case !slices.Contains(c.Agents, l.Agent):
			why = fmt.Sprintf("agent %q is not one of the run's agents %v", l.Agent, c.Agents)
		case l.Seed >= c.Seeds:
			why = fmt.Sprintf("seed %d, but the run has %d seeds (0 to %d)", l.Seed, c.Seeds, c.Seeds-1)
		case l.Episode > c.Episodes:
			why = fmt.Sprintf("episode %d, but the run has %d episodes", l.Episode, c.Episodes)
		default:
			continue
		}
		return errs.Invalid(fmt.Errorf("%s line %d: %s (a file smrl did not write, or of another run)", path, i+1, why))
	}
	return nil
}

// targetsOf lists the results directories of dir: itself, or a sweep's
// points (in the sweep's order).
func targetsOf(dir string) ([]target, error) {
	if grid.IsDir(dir) {
		s, err := grid.LoadDir(dir)
		if err != nil {
			return nil, err
		}
		out := make([]target, len(s.Points))
		for i, p := range s.Points {
			out[i] = target{name: p.Name, c: p.Config, dir: filepath.Join(dir, p.Name)}
		}
		return out, nil
	}
	p := filepath.Join(dir, results.ConfigFile)
	if _, err := os.Stat(p); err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s is not a results directory of smrl run or sweep (no %s or %s)", dir, results.ConfigFile, grid.ManifestFile))
	}
	c, err := config.Load(config.Options{Path: p, Snapshot: true})
	if err != nil {
		return nil, err
	}
	return []target{{c: c, dir: dir}}, nil
}

// readMeta reads the metadata.json of dir, or of its parent when dir is a
// point of a sweep (whose own is written at its end); nil when there is
// none yet. metaDir is the directory it belongs to.
func readMeta(dir string) (meta *results.Metadata, metaDir string, err error) {
	for _, d := range []string{dir, filepath.Dir(filepath.Clean(dir))} {
		meta, err := results.ReadMetadata(d)
		if err != nil {
			return nil, "", err
		}
		if meta == nil {
			continue
		}
		if d != dir && !grid.IsDir(d) {
			return nil, dir, nil // a parent that is not a sweep says nothing about dir
		}
		return meta, d, nil
	}
	return nil, dir, nil
}

// state is the run's state from its metadata and whether a process holds
// its directory (the lock file smrl removes as it releases it).
func state(meta *results.Metadata, dir string) State {
	switch {
	case meta == nil:
		return Starting
	case !meta.Running:
		return Done
	}
	if _, err := os.Stat(filepath.Join(dir, outdir.LockFile)); err != nil {
		return Stopped
	}
	return Running
}

// Watch draws the snapshot of dir every opt.Interval until the run is no
// longer running (done or stopped), ctx is cancelled (Ctrl-C: not an
// error), or once with opt.Once.
func Watch(ctx context.Context, dir string, opt Options) error {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	if !opt.Once && opt.Interval <= 0 {
		return errs.Invalid(fmt.Errorf("--interval %v: want a positive duration", opt.Interval))
	}
	targets, err := targetsOf(dir)
	if err != nil {
		return err
	}
	for {
		s, err := take(dir, targets, now())
		if err != nil {
			return err
		}
		if opt.Out != nil {
			if opt.Clear {
				fmt.Fprint(opt.Out, "\x1b[H\x1b[2J")
			}
			if err := Draw(opt.Out, s, opt.Width, opt.Height); err != nil {
				return err
			}
		}
		if opt.Figures != nil {
			if err := opt.Figures(s); err != nil {
				return err
			}
		}
		if opt.Once || s.State == Done || s.State == Stopped {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(opt.Interval):
		}
	}
}
