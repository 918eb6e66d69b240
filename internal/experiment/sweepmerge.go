package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/smrl-dev/smrl/internal/aggregate"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/results"
)

// MergeSweep combines the shard directories of one sweep into the sweep
// directory opt.OutDir: the shards must be of the same sweep (grid and
// base config, up to workers); every point is merged as Merge merges the
// shards of a run (each trial exactly once), and the sweep's root files
// are written as RunSweep writes them, so the result is the sweep
// directory a single machine writes. A root holding a completed sweep
// (its sweep.csv) is refused unless opt.Overwrite.
func MergeSweep(ctx context.Context, dirs []string, opt SweepOptions) error {
	start := time.Now()
	if err := checkMergeInputs(dirs, opt.OutDir); err != nil {
		return err
	}
	var s *grid.Sweep
	for _, d := range dirs {
		sd, err := grid.LoadDir(d)
		if err != nil {
			return err
		}
		if s == nil {
			s = sd
			continue
		}
		if diff := s.Grid.Diff(sd.Grid); diff != "" {
			return errs.Invalid(fmt.Errorf("merge: %s and %s are shards of different sweeps: in %s, %s", dirs[0], d, d, diff))
		}
		key, va, vb, err := configDiff(s.Base, sd.Base)
		if err != nil {
			return err
		}
		if key != "" {
			return errs.Invalid(fmt.Errorf("merge: %s and %s were run with different configs: %s = %s vs %s", dirs[0], d, key, va, vb))
		}
	}
	root := opt.OutDir
	pts, err := newPoints(ctx, s, root, true)
	if err != nil {
		return err
	}
	manifest, err := s.YAML()
	if err != nil {
		return err
	}
	if err := checkDirs(s, root, true); err != nil {
		return fmt.Errorf("merge: --out: %w", err)
	}
	if !opt.Overwrite {
		if err := refuseCompleted(root, grid.TableFile, false); err != nil {
			return fmt.Errorf("merge: --out: %w", err)
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	// Every point's shards are read and checked, and every directory
	// claimed and locked, before anything in root changes.
	merged := make([]*mergedRun, len(pts))
	err = forEach(len(pts), workers, func(i int) error {
		in := make([]string, len(dirs))
		for j, d := range dirs {
			in[j] = filepath.Join(d, pts[i].Name)
		}
		var err error
		if merged[i], err = readShards(in); err != nil {
			return fmt.Errorf("sweep point %s: %w", pts[i].Label, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	release, err := openOutDir(root, false)
	if err != nil {
		return fmt.Errorf("merge: --out: %w", err)
	}
	defer release()
	for _, p := range pts {
		rel, err := openOutDir(p.dir, false)
		if err != nil {
			return fmt.Errorf("merge: --out: %w", err)
		}
		defer rel()
	}
	cleanSweepRoot(root, s, opt.Log)
	if err := fsutil.WriteFileAtomic(filepath.Join(root, grid.ManifestFile), manifest); err != nil {
		return err
	}
	trials := 0
	for _, p := range pts {
		trials += len(p.trials)
	}
	err = forEach(len(pts), workers, func(i int) error {
		rows := results.Rows(merged[i].full)
		var err error
		if pts[i].stratum, _, err = aggregate.TaskScores(rows, merged[i].c.Stats); err != nil {
			return fmt.Errorf("sweep point %s: %w", pts[i].Label, err)
		}
		pts[i].warnings = results.Warnings(rows, warnInput(merged[i].c, merged[i].mdp))
		if err := merged[i].write(start, Options{OutDir: pts[i].dir, Plot: opt.Plot, Version: opt.Version, Commit: opt.Commit,
			CommandLine: opt.CommandLine}); err != nil {
			return fmt.Errorf("sweep point %s: %w", pts[i].Label, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	meta := &results.Metadata{Version: opt.Version, GoVersion: runtime.Version(), GitCommit: opt.Commit,
		CommandLine: opt.CommandLine, Start: start.UTC(), Trials: trials, MergedFrom: dirs}
	return finishSweep(s, root, pts, meta, opt)
}

// PlotSweep redraws the figures of the sweep directory dir: every point's
// (as Plot does for a results directory) and the sweep figures from
// sweep.csv, with the reports. With outDir empty it draws in place (dir
// must be smrl's own); otherwise the sweep figures and report go to
// outDir and each point's to outDir/POINT (new, empty or smrl's own), and
// dir is only read. sweep.csv is checked against the sweep first.
func PlotSweep(dir, outDir, format string) ([]string, error) {
	if outDir != "" && sameDir(dir, outDir) {
		outDir = "" // --out naming --in itself: a redraw in place
	}
	s, err := grid.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	rows, err := s.ReadTable(filepath.Join(dir, grid.TableFile))
	if err != nil {
		return nil, err
	}
	pts, err := newPoints(context.Background(), s, dir, true)
	if err != nil {
		return nil, err
	}
	// Every point's files are checked before anything is drawn, so that a
	// bad one leaves no point's figures half redrawn.
	for _, p := range pts {
		if err := checkPointConfig(p); err != nil {
			return nil, err
		}
		if err := checkFigureInputs(p.dir, format); err != nil {
			return nil, fmt.Errorf("sweep point %s: %w", p.Name, err)
		}
		if outDir == "" {
			if err := outdir.CheckNoLinks(p.dir, plotsDir); err != nil {
				return nil, err
			}
		}
	}
	if err := checkTable(s, dir); err != nil {
		return nil, err
	}
	if _, err := readPointAggregates(dir, s); err != nil {
		return nil, err
	}
	target := outDir
	if outDir == "" {
		if !outdir.Owned(dir) {
			return nil, errs.Invalid(fmt.Errorf("sweep directory %s was not made by smrl (it has no %s marker), so smrl will not write figures into it; draw them elsewhere with --out DIR", dir, outdir.MarkerFile))
		}
		target = dir
		if err := outdir.CheckNoLinks(dir, plotsDir); err != nil {
			return nil, err
		}
	} else {
		if err := notResultsDir(outDir); err != nil {
			return nil, err
		}
		for _, p := range pts {
			if err := notResultsDir(filepath.Join(outDir, p.Name)); err != nil {
				return nil, err
			}
		}
		if err := checkDirs(s, outDir, false); err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		if err := outdir.Claim(outDir); err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
	}
	release, err := outdir.Lock(target)
	if err != nil {
		return nil, err
	}
	defer release()
	figs := make([][]string, len(pts))
	err = forEach(len(pts), runtime.NumCPU(), func(i int) error {
		out := ""
		if outDir != "" {
			out = filepath.Join(outDir, pts[i].Name)
		}
		f, err := plot(pts[i].dir, out, FigureOptions{Format: format}, true)
		figs[i] = f
		if err != nil {
			return fmt.Errorf("sweep point %s: %w", pts[i].Label, err)
		}
		return nil
	})
	var all []string
	for _, f := range figs {
		all = append(all, f...)
	}
	if err != nil {
		return all, err
	}
	if outDir != "" {
		// The report links the points' reports where they were drawn.
		for _, p := range pts {
			p.dir = filepath.Join(outDir, p.Name)
		}
	}
	sf, err := sweepFigures(s, rows, pts, dir, outDir, format)
	return append(all, sf...), err
}

// checkPointConfig checks that the point directory of p holds the config
// sweep.yaml gives the point, as resume and merge do: a point overwritten
// by smrl run --out, or two points swapped, are refused.
func checkPointConfig(p *point) error {
	path := filepath.Join(p.dir, results.ConfigFile)
	if _, err := os.Stat(path); err != nil {
		return errs.Invalid(fmt.Errorf("sweep point %s: %s not found: the point directory is incomplete", p.Name, path))
	}
	c, err := config.Load(config.Options{Path: path, Snapshot: true})
	if err != nil {
		return fmt.Errorf("sweep point %s: %w", p.Name, err)
	}
	key, was, want, err := configDiff(c, p.Config)
	if err != nil {
		return err
	}
	if key != "" {
		return errs.Invalid(fmt.Errorf("sweep point %s: %s has %s = %s, but %s gives the point %s = %s: the point directory was overwritten (by smrl run --out?) or swapped with another",
			p.Name, path, key, was, grid.ManifestFile, key, want))
	}
	return nil
}

// checkTable checks that the sweep.csv of the sweep directory dir is the
// table its points' summary.csv files make, byte for byte (it was written
// from them): a point's summary copied over another's, or an edited
// table, is refused.
func checkTable(s *grid.Sweep, dir string) error {
	path := filepath.Join(dir, grid.TableFile)
	rows, err := sweepRows(s, dir)
	if err != nil {
		return err
	}
	var want bytes.Buffer
	if err := s.Grid.WriteTable(&want, rows); err != nil {
		return err
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		return errs.Invalid(fmt.Errorf("%s does not agree with the summary.csv files of the points (%s): a point's files were replaced or copied, or the table edited; rerun the sweep",
			path, firstDiffLine(got, want.Bytes())))
	}
	return nil
}

// firstDiffLine names the first line where a and b differ.
func firstDiffLine(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range max(len(la), len(lb)) {
		if i >= len(la) || i >= len(lb) || !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("first at line %d", i+1)
		}
	}
	return "same lines"
}
