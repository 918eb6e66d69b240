package experiment

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/smrl-dev/smrl/internal/aggregate"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// A sweep directory (smrl sweep) is smrl's own directory holding
//
//	sweep.yaml       the sweep: resolved base config and its sweep: section
//	sweep.csv        one row per point and agent (grid.Row)
//	metadata.json    as a run's, for the whole sweep
//	plots/, report.md the sweep figures and a report linking the points'
//	POINT/           one results directory per grid point (grid.DirName),
//	                 exactly what smrl run writes for the point's config
//
// A shard of a sweep holds sweep.yaml, metadata.json and, in every point
// directory, config.yaml and the journal of the shard's trials of that
// point; smrl merge turns the shards into the sweep directory.

// SweepOptions controls a sweep. Options describe the sweep directory:
// OutDir is its root, Plot draws each point's figures, and Stdout gets
// the sweep table.
type SweepOptions struct {
	Options
	// Format is the format of the sweep figures (drawn when Plot is set).
	Format string
}

// claim claims and locks the point's directory; with resume and a journal
// there it reads the completed trials (the directory must be smrl's and
// hold the same config). It changes no file of an earlier run: start
// does, once every point of the sweep is claimed.
func (p *point) claim(resume bool) error {
	_, err := os.Stat(filepath.Join(p.dir, results.JournalFile))
	p.resumed = resume && err == nil
	if p.resumed {
		if !outdir.Owned(p.dir) {
			return p.notOwned()
		}
	} else if err := outdir.Claim(p.dir); err != nil {
		return err
	}
	if p.release, err = outdir.Lock(p.dir); err != nil {
		return err
	}
	if err := outdir.CheckWritable(p.dir); err != nil {
		return err
	}
	if err := outdir.CheckNoLinks(p.dir, linkedEntries...); err != nil {
		return err
	}
	removeStaleTemps(p.dir)
	p.done, err = p.resumedTrials()
	return err
}

// check makes, writing nothing, the checks claim makes before it changes
// anything (smrl sweep --dry-run), and reads a resumed point's journal
// into p.done.
func (p *point) check(resume bool) error {
	_, err := os.Stat(filepath.Join(p.dir, results.JournalFile))
	p.resumed = resume && err == nil
	if p.resumed && !outdir.Owned(p.dir) {
		return p.notOwned()
	}
	if !p.resumed {
		if err := outdir.Check(p.dir); err != nil {
			return err
		}
	}
	if err := outdir.CheckNoLinks(p.dir, linkedEntries...); err != nil {
		return err
	}
	p.done, err = p.resumedTrials()
	return err
}

// notOwned is the error for a point to resume that smrl did not make.
func (p *point) notOwned() error {
	return errs.Invalid(fmt.Errorf("--resume: %s was not made by smrl (it has no %s marker), so smrl will not write into it", p.dir, outdir.MarkerFile))
}

// resumedTrials returns the completed trials of a resumed point's journal,
// after checking that it was run with the point's config; none for a
// point that starts afresh.
func (p *point) resumedTrials() (map[record.Trial][]record.Episode, error) {
	if !p.resumed {
		return map[record.Trial][]record.Episode{}, nil
	}
	if err := sameConfig(filepath.Join(p.dir, results.ConfigFile), p.Config); err != nil {
		return nil, err
	}
	return results.ReadJournal(p.dir, expectFor(p.Config, p.mdp))
}

// start opens the claimed point's journal: the resumed one for appending,
// or a fresh one in a directory cleared of an earlier run's files.
func (p *point) start() (err error) {
	if p.resumed {
		p.journal, err = results.AppendJournal(p.dir)
	} else {
		p.journal, err = startFresh(p.dir, p.cfgYAML)
	}
	if err != nil {
		return err
	}
	// The live metrics follow the journal: a resume appends to the
	// interrupted run's lines, a fresh run (or --overwrite) starts them
	// anew (startFresh removed the old file).
	if p.resumed {
		p.metrics, err = metrics.Append(p.dir)
	} else {
		p.metrics, err = metrics.Create(p.dir)
	}
	return err
}

// checkResumedShard refuses to resume a sweep shard whose point journals
// hold trials of another shard (the global order: points, then each
// point's agents and seeds).
func checkResumedShard(pts []*point, shard runner.Shard) error {
	k := 0
	for _, p := range pts {
		for _, t := range p.trials {
			if _, ok := p.done[t]; ok {
				if err := notInShard(filepath.Join(p.dir, results.JournalFile), t, k, shard); err != nil {
					return err
				}
			}
			k++
		}
	}
	return nil
}

// newPoints builds every point's MDP, before anything is written, and
// with trials its list of trials (a dry run needs only their number).
// (The points' MDPs share their sampling tables: package expfam keeps one
// table per family per process.)
func newPoints(ctx context.Context, s *grid.Sweep, root string, trials bool) ([]*point, error) {
	pts := make([]*point, len(s.Points))
	for i, gp := range s.Points {
		if ctx.Err() != nil {
			return nil, grid.Interrupted(i, len(s.Points))
		}
		mdp, err := Check(gp.Config)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("sweep point %s: %w", gp.Label, err))
		}
		y, err := gp.Config.YAML()
		if err != nil {
			return nil, err
		}
		pts[i] = &point{Point: gp, dir: filepath.Join(root, gp.Name), mdp: mdp, cfgYAML: y, label: "sweep point " + gp.Label}
		if trials {
			pts[i].trials = record.Trials(gp.Config)
		}
	}
	return pts, nil
}

// checkDirs refuses, before anything is written, a root or point directory
// smrl may not write into, and a fresh sweep into the results directory
// of a run.
func checkDirs(s *grid.Sweep, root string, fresh bool) error {
	if err := outdir.Check(root); err != nil {
		return err
	}
	if fresh && !grid.IsDir(root) {
		if _, err := os.Stat(filepath.Join(root, results.ConfigFile)); err == nil {
			return errs.Invalid(fmt.Errorf("%s holds the results of a run (smrl run), not of a sweep: sweep into another --out", root))
		}
	}
	for _, p := range s.Points {
		if err := outdir.Check(filepath.Join(root, p.Name)); err != nil {
			return err
		}
	}
	return nil
}

// checkSweepResume refuses to resume the sweep in root with another grid,
// base config or shard than its sweep.yaml and metadata.json record.
func checkSweepResume(s *grid.Sweep, root string, shard runner.Shard) error {
	old, err := grid.LoadDir(root)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	manifestPath := filepath.Join(root, grid.ManifestFile)
	if d := old.Grid.Diff(s.Grid); d != "" {
		return errs.Invalid(fmt.Errorf("--resume: in %s %s; resume with the same grid, or start a new sweep in another --out", manifestPath, d))
	}
	key, va, vb, err := configDiff(old.Base, s.Base)
	if err != nil {
		return err
	}
	if key != "" {
		return errs.Invalid(fmt.Errorf("--resume: %s has %s = %s, this sweep %s; resume with the same config, or start a new sweep in another --out", manifestPath, key, va, vb))
	}
	return checkResumeShard(root, shard)
}

// checkSweepDryRun makes, writing nothing, the checks of the sweep
// directory root and its points that RunSweep makes when it claims them
// (see point.check), so that --dry-run refuses what the sweep would.
func checkSweepDryRun(s *grid.Sweep, pts []*point, root string, opt SweepOptions) error {
	if opt.Resume && !grid.IsDir(root) {
		return errs.Invalid(fmt.Errorf("--resume: %s not found: nothing to resume there", filepath.Join(root, grid.ManifestFile)))
	}
	if err := checkOutDir(root, opt.Resume); err != nil {
		return err
	}
	if opt.Resume {
		if err := checkSweepResume(s, root, opt.Shard); err != nil {
			return err
		}
	}
	for _, p := range pts {
		if err := p.check(opt.Resume); err != nil {
			return err
		}
		if opt.SaveModels {
			if err := checkModelsDir(p.dir); err != nil {
				return err
			}
		}
	}
	if opt.Resume {
		return checkResumedShard(pts, opt.Shard)
	}
	return nil
}

// RunSweep runs every trial of every point of s (all, or the shard's) on
// one worker pool and writes the sweep directory opt.OutDir. Trials are
// journaled in their point's directory as they finish; on cancellation
// the trials in flight finish and RunSweep returns an error wrapping
// errs.ErrInterrupted. The global trial order, which --shard splits, is
// points in grid order, then each point's agents and seeds.
//
// Every directory is new, empty or smrl's own (a --resume needs smrl's
// own, with the same sweep), checked before anything is written, and
// locked while the sweep writes into it. The points take the steps of a
// run (pipeline.go) on one pool.
func RunSweep(ctx context.Context, s *grid.Sweep, opt SweepOptions) error {
	start := time.Now()
	root := opt.OutDir
	pts, err := newPoints(ctx, s, root, !opt.DryRun)
	if err != nil {
		return err
	}
	manifest, err := s.YAML()
	if err != nil {
		return err
	}
	if err := refuseSweep(s, root, opt); err != nil {
		return err
	}
	if opt.DryRun {
		if err := checkSweepDryRun(s, pts, root, opt); err != nil {
			return err
		}
		return printSweepPlan(s, root, opt.Options)
	}
	// The last moment at which a signal leaves nothing behind.
	if ctx.Err() != nil {
		return grid.Interrupted(len(pts), len(pts))
	}
	if err := claimParent(root, opt.Options); err != nil {
		return err
	}
	release, err := openSweepRoot(s, root, opt)
	if err != nil {
		return err
	}
	defer release()
	defer func() {
		for _, p := range pts {
			p.close()
		}
	}()
	if err := openPoints(s, pts, root, manifest, opt); err != nil {
		return err
	}
	b := newBatch(pts, opt.Shard, false, opt.SaveModels)
	workers := workerCount(opt.Options)
	if opt.Log != nil {
		opt.Log.Info("sweep started", "config", s.Base.Name, "out", root, "points", len(pts), "trials", len(b.selected),
			"already_done", len(b.selected)-len(b.todo), "shard", opt.Shard.String(), "workers", workers)
	}
	meta, err := newMetadata(root, opt.Options, start, workers, len(b.selected))
	if err != nil {
		return err
	}
	if err := b.run(ctx, workers, opt.Options, "the journals of "+root); err != nil {
		return err
	}
	trialsDone := time.Now()
	if opt.Shard.Count > 0 {
		return finishSweepShard(root, meta, len(b.jobs), opt)
	}
	if err := writePoints(pts, meta, workers, opt.Plot); err != nil {
		return err
	}
	pointsDone := time.Now()
	if err := finishSweep(s, root, pts, meta, opt); err != nil {
		return err
	}
	if opt.Log != nil {
		opt.Log.Info("sweep finished", "out", root, "points", len(pts), "trials", len(b.selected),
			"trial_seconds", round1(trialsDone.Sub(start).Seconds()), "point_files_seconds", round1(pointsDone.Sub(trialsDone).Seconds()),
			"sweep_files_seconds", round1(time.Since(pointsDone).Seconds()), "seconds", round1(time.Since(start).Seconds()))
	}
	return nil
}

// refuseSweep refuses, before anything is written, directories smrl may
// not write into (checkDirs), a fresh sweep over completed results without
// opt.Overwrite, and --save-models where its models could not be kept.
func refuseSweep(s *grid.Sweep, root string, opt SweepOptions) error {
	if err := checkDirs(s, root, !opt.Resume); err != nil {
		return err
	}
	if !opt.Resume && !opt.Overwrite {
		if err := refuseCompleted(root, grid.TableFile, true); err != nil {
			return err
		}
	}
	if opt.SaveModels && opt.Resume {
		return errs.Invalid(fmt.Errorf("--save-models cannot be combined with --resume: the models of the trials completed before the interruption were not kept"))
	}
	if opt.SaveModels && opt.Shard.Count > 0 {
		return errs.Invalid(fmt.Errorf("--save-models cannot be combined with a sweep shard: a shard's points hold only journals, and smrl merge does not gather models"))
	}
	if opt.SaveModels {
		for _, p := range s.Points {
			if err := refuseUnsaved(p.Config); err != nil {
				return fmt.Errorf("point %s: %w", p.Label, err)
			}
		}
	}
	return nil
}

// openSweepRoot claims and locks the sweep directory root (a resume needs
// its sweep.yaml, with the same grid, base config and shard).
func openSweepRoot(s *grid.Sweep, root string, opt SweepOptions) (release func() error, err error) {
	if opt.Resume && !grid.IsDir(root) {
		return nil, errs.Invalid(fmt.Errorf("--resume: %s not found: nothing to resume there", filepath.Join(root, grid.ManifestFile)))
	}
	release, err = openOutDir(root, opt.Resume)
	if err != nil {
		return nil, err
	}
	if opt.Resume {
		if err := checkSweepResume(s, root, opt.Shard); err != nil {
			release()
			return nil, err
		}
	}
	return release, nil
}

// openPoints claims and locks every point (and, resuming, reads its
// journal) before anything is removed or written; then a fresh sweep
// clears the root's old files and writes manifest as sweep.yaml, and
// every point's journal is opened.
func openPoints(s *grid.Sweep, pts []*point, root string, manifest []byte, opt SweepOptions) error {
	for _, p := range pts {
		if err := p.claim(opt.Resume); err != nil {
			return err
		}
		if opt.SaveModels {
			if err := checkModelsDir(p.dir); err != nil {
				return err
			}
		}
	}
	if opt.Resume {
		if err := checkResumedShard(pts, opt.Shard); err != nil {
			return err
		}
	} else {
		cleanSweepRoot(root, s, opt.Log)
		if err := fsutil.WriteFileAtomic(filepath.Join(root, grid.ManifestFile), manifest); err != nil {
			return err
		}
	}
	for _, p := range pts {
		if err := p.start(); err != nil {
			return err
		}
	}
	return nil
}

// finishSweepShard ends a sweep shard, whose points hold only journals
// (smrl merge makes the rest): metadata.json with its end, and the line
// saying so on opt.Stdout. all is the number of trials of the sweep.
func finishSweepShard(root string, meta *results.Metadata, all int, opt SweepOptions) error {
	if err := results.WriteMetadata(root, meta); err != nil {
		return err
	}
	if opt.Log != nil {
		opt.Log.Info("sweep shard finished", "out", root, "trials", meta.Trials, "seconds", meta.WallSeconds)
	}
	if opt.Stdout != nil {
		fmt.Fprintf(opt.Stdout, "wrote %s (shard %s: %d of %d trials in %.2fs); merge the shards with smrl merge\n",
			root, meta.Shard, meta.Trials, all, meta.WallSeconds)
	}
	return nil
}

// writePoints writes each point's files and figures as smrl run writes
// them (with plot, and no table), and keeps its stratum for the sweep's
// aggregate. The points are independent, so they are written in parallel.
func writePoints(pts []*point, meta *results.Metadata, workers int, plot func(string) error) error {
	return forEach(len(pts), workers, func(i int) error {
		p := pts[i]
		full := p.result()
		pm := *meta
		pm.Trials = len(p.trials)
		rows := results.Rows(full)
		var err error
		if p.stratum, _, err = aggregate.TaskScores(rows, p.Config.Stats); err != nil {
			return fmt.Errorf("sweep point %s: %w", p.Label, err)
		}
		p.warnings = results.Warnings(rows, warnInput(p.Config, p.mdp))
		if err := p.writeFiles(full, &pm, Options{OutDir: p.dir, Plot: plot}); err != nil {
			return fmt.Errorf("sweep point %s: %w", p.Label, err)
		}
		return nil
	})
}

// cleanSweepRoot removes the files a sweep writes at its root (only those,
// for the old grid and the new one) before a fresh sweep, and warns about
// point directories of an earlier sweep there that this grid does not
// have: they are left alone.
func cleanSweepRoot(root string, s *grid.Sweep, log *slog.Logger) {
	keys := s.Grid.Keys()
	if old, err := grid.LoadDir(root); err == nil {
		keys = append(keys, old.Grid.Keys()...)
		var stale []string
		for _, p := range old.Points {
			if !slices.ContainsFunc(s.Points, func(q grid.Point) bool { return q.Name == p.Name }) {
				if _, err := os.Stat(filepath.Join(root, p.Name)); err == nil {
					stale = append(stale, p.Name)
				}
			}
		}
		if len(stale) > 0 && log != nil {
			log.Warn("point directories of an earlier sweep are left alone", "out", root, "points", stale)
		}
	}
	for _, f := range append([]string{grid.TableFile, results.MetadataFile, plotting.ReportFile, plotting.ReportHTMLFile, PointAggregatesFile}, aggregate.Files...) {
		os.Remove(filepath.Join(root, f))
	}
	for _, name := range plotting.GridFigureNames(keys) { // the sweep's aggregate figures included
		for _, ext := range []string{"png", "svg", "pdf"} {
			os.Remove(filepath.Join(root, plotsDir, name+"."+ext))
		}
	}
}

// finishSweep writes the sweep's root files from its points' summary.csv:
// sweep.csv and metadata.json, the sweep figures and report (with
// opt.Plot), and the sweep table on opt.Stdout.
func finishSweep(s *grid.Sweep, root string, pts []*point, meta *results.Metadata, opt SweepOptions) error {
	rows, err := sweepRows(s, root)
	if err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(filepath.Join(root, grid.TableFile), func(w io.Writer) error {
		return s.Grid.WriteTable(w, rows)
	}); err != nil {
		return err
	}
	if err := writeAggregates(root, sweepStrata(s, pts), s.Agents(), s.Base); err != nil {
		return err
	}
	if err := writePointAggregates(s, root); err != nil {
		return err
	}
	end := time.Now()
	meta.End = end.UTC()
	meta.WallSeconds = end.Sub(meta.Start).Seconds()
	if err := results.WriteMetadata(root, meta); err != nil {
		return err
	}
	warned, lines := sweepWarnings(pts)
	if opt.Stdout != nil {
		if err := sweepTable(opt.Stdout, s, rows, warned); err != nil {
			return err
		}
		fmt.Fprintf(opt.Stdout, "\nwrote %s (%d points, %d trials in %.2fs)\n", root, len(s.Points), meta.Trials, meta.WallSeconds)
	}
	if opt.Warn != nil {
		for _, l := range lines {
			fmt.Fprintln(opt.Warn, l)
		}
	}
	if opt.Plot != nil {
		figs, err := sweepFigures(s, rows, pts, root, "", opt.Format)
		if err != nil {
			return fmt.Errorf("drawing the sweep figures: %w", err)
		}
		if opt.Stdout != nil {
			fmt.Fprintf(opt.Stdout, "wrote %d sweep figures and %s\n", len(figs), filepath.Join(root, plotting.ReportFile))
		}
	}
	return nil
}

// sweepStrata are the strata of the aggregate over points: one per point,
// or, when agents is swept, one per point of the other keys, holding the
// agents of all its points (an agent run at two of them, as the oracle in
// agents=[sm,oracle],[lds,oracle], ran the same trials at both: its
// first point's scores are kept).
func sweepStrata(s *grid.Sweep, pts []*point) []aggregate.Stratum {
	swept := slices.Index(s.Grid.Keys(), "agents")
	if swept < 0 {
		out := make([]aggregate.Stratum, len(pts))
		for i, p := range pts {
			out[i] = p.stratum
		}
		return out
	}
	var out []aggregate.Stratum
	index := map[string]int{}
	for _, p := range pts {
		texts := s.Grid.Texts(p.Coords)
		key := strings.Join(slices.Delete(slices.Clone(texts), swept, swept+1), "\x00")
		k, ok := index[key]
		if !ok {
			k = len(out)
			index[key] = k
			out = append(out, aggregate.Stratum{Scores: map[string][]float64{}, Seeds: map[string][]int{}})
		}
		for a, sc := range p.stratum.Scores {
			if _, dup := out[k].Scores[a]; !dup {
				out[k].Scores[a], out[k].Seeds[a] = sc, p.stratum.Seeds[a]
			}
		}
	}
	return out
}

// PointAggregatesFile is the table at a sweep's root of every point's
// aggregate metrics (each point's aggregate.csv, the point and its values
// in front).
const PointAggregatesFile = "aggregate_points.csv"

// writePointAggregates writes root/aggregate_points.csv: the rows of every
// point's aggregate.csv, in point order, prefixed by the point's name and
// values.
func writePointAggregates(s *grid.Sweep, root string) error {
	head := append(append([]string{"point"}, s.Grid.Keys()...), "agent", "metric", "value", "lo", "hi")
	var rows [][]string
	for _, p := range s.Points {
		path := filepath.Join(root, p.Name, aggregate.AggregateFile)
		recs, err := fsutil.ReadCSV(path, "the point has no aggregates")
		if err != nil {
			return err
		}
		for _, r := range recs[1:] {
			rows = append(rows, append(append([]string{p.Name}, s.Grid.Texts(p.Coords)...), r...))
		}
	}
	return fsutil.WriteAtomic(filepath.Join(root, PointAggregatesFile), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(head)
		cw.WriteAll(rows)
		return cw.Error()
	})
}

// sweepReportHTML adds the aggregates per point (the IQM and mean of each
// agent with their intervals, from root's aggregate_points.csv when it has
// one) to the sweep's report.md in reportDir and writes its report.html.
func sweepReportHTML(root, reportDir string, s *grid.Sweep) error {
	recs, err := readPointAggregates(root, s)
	if err != nil {
		return err
	}
	if recs == nil {
		return plotting.WriteReportHTML(reportDir) // a sweep of an earlier version
	}
	nk := len(s.Grid.Axes)
	pointAgg := recs[1:]
	type cellKey struct{ point, agent string }
	cells := map[cellKey]map[string]string{}
	var order []cellKey
	for _, r := range pointAgg {
		k := cellKey{r[0], r[1+nk]}
		if cells[k] == nil {
			cells[k] = map[string]string{}
			order = append(order, k)
		}
		v, lo, hi := r[3+nk], r[4+nk], r[5+nk]
		cells[k][r[2+nk]] = fmt.Sprintf("%s [%s, %s]", shortNum(v), shortNum(lo), shortNum(hi))
	}
	head := append(append([]string{}, s.Grid.Keys()...), "agent", "IQM [95% CI]", "mean [95% CI]")
	texts := map[string][]string{}
	for _, p := range s.Points {
		texts[p.Name] = s.Grid.Texts(p.Coords)
	}
	var rows [][]string
	for _, k := range order {
		rows = append(rows, append(append([]string{}, texts[k.point]...), k.agent, cells[k][aggregate.IQM], cells[k][aggregate.Mean]))
	}
	scale := "raw per-seed scores"
	if n := s.Base.Stats.Normalise; n != "" && n != "none" {
		scale = "per-seed scores normalised by `stats.normalise: " + n + "`"
	}
	intro := "Each point's aggregate metrics over its seeds (" + scale + "; 95% percentile-bootstrap intervals), from its `aggregate.csv`; all of them in `" + PointAggregatesFile + "`."
	if err := plotting.AppendReportSection(reportDir, "Aggregate metrics per point", intro, head, rows); err != nil {
		return err
	}
	return plotting.WriteReportHTML(reportDir)
}

// readPointAggregates reads root's aggregate_points.csv, checking the
// width of its header (the point, the swept keys of s, agent, metric,
// value, lo, hi): nil without error when root has none (a sweep of an
// earlier version), an error naming the file when it is unreadable or
// edited. PlotSweep calls it before it draws anything, the report after.
func readPointAggregates(root string, s *grid.Sweep) ([][]string, error) {
	path := filepath.Join(root, PointAggregatesFile)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	recs, err := fsutil.ReadCSV(path, "")
	if err != nil {
		return nil, err
	}
	nk := len(s.Grid.Axes)
	// csv's reader gives every row the header's width.
	if len(recs) == 0 || len(recs[0]) != 6+nk {
		return nil, errs.Invalid(fmt.Errorf("%s: want a header of %d columns (point, the %d swept keys, agent, metric, value, lo, hi): was it edited?", path, 6+nk, nk))
	}
	return recs, nil
}

// shortNum writes a number of a CSV cell with 4 significant digits.
func shortNum(s string) string {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// sweepRows reads the last summary row of every agent at every point.
func sweepRows(s *grid.Sweep, root string) ([]grid.Row, error) {
	var rows []grid.Row
	for _, p := range s.Points {
		sums, err := results.ReadSummary(filepath.Join(root, p.Name, results.SummaryFile))
		if err != nil {
			return nil, err
		}
		last := map[string]results.Summary{}
		for _, x := range sums {
			last[x.Agent] = x
		}
		for _, a := range p.Config.Agents {
			x, ok := last[a]
			if !ok {
				return nil, errs.Invalid(fmt.Errorf("%s has no rows of agent %s", filepath.Join(root, p.Name, results.SummaryFile), a))
			}
			if x.Episode != p.Config.Episodes || x.Seeds != p.Config.Seeds {
				return nil, errs.Invalid(fmt.Errorf("%s: the last row of agent %s has episode %d over %d seeds, but the point's config has episodes = %d, seeds = %d: the file is truncated or was edited",
					filepath.Join(root, p.Name, results.SummaryFile), a, x.Episode, x.Seeds, p.Config.Episodes, p.Config.Seeds))
			}
			stat := func(st results.Stat) grid.Stat { return grid.Stat{Mean: st.Mean, Lo: st.Lo, Hi: st.Hi} }
			rows = append(rows, grid.Row{Point: p.Name, Values: s.Grid.Texts(p.Coords), Agent: a, Seeds: x.Seeds, Episode: x.Episode,
				CumReward: stat(x.CumReward), CumRegret: stat(x.CumRegret), FinalReturn: stat(x.FinalReturn),
				RegretSlope: x.RegretSlope, WError: x.WErrorMean})
		}
	}
	return rows, nil
}

// sweepWarnings returns the warnings of every point's trials (the run's,
// results.Warnings, kept by writePoints or MergeSweep), as lines that name
// their point, and the seeds they flag per point directory name and agent.
func sweepWarnings(pts []*point) (map[string]map[string]int, []string) {
	warned := map[string]map[string]int{}
	var lines []string
	for _, p := range pts {
		ws := p.warnings
		if len(ws) == 0 {
			continue
		}
		warned[p.Name] = results.FlagSeeds(ws)
		for _, w := range ws {
			lines = append(lines, "warning: point "+p.Label+": "+strings.TrimPrefix(w.String(), "warning: "))
		}
	}
	return warned, lines
}

// sweepTable prints the sweep table: per point and agent, the grid values,
// final cumulative reward and regret with 95% intervals, regret slope, and
// when a trial raised a warning, the warned seeds (as a run's table).
func sweepTable(w io.Writer, s *grid.Sweep, rows []grid.Row, warned map[string]map[string]int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range s.Grid.Keys() {
		fmt.Fprintf(tw, "%s\t", k)
	}
	head := "agent\tcum reward [95% CI]\tcum regret [95% CI]\tregret slope"
	if len(warned) > 0 {
		head += "\twarned seeds"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		for _, v := range r.Values {
			fmt.Fprintf(tw, "%s\t", v)
		}
		slope := "-"
		if !math.IsNaN(r.RegretSlope) {
			slope = fmt.Sprintf("%.2f", r.RegretSlope)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", r.Agent, ciText(r.CumReward), ciText(r.CumRegret), slope)
		if len(warned) > 0 {
			fmt.Fprintf(tw, "\t%s", results.WarnedCell(warned[r.Point][r.Agent], r.Seeds))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func ciText(s grid.Stat) string {
	switch {
	case math.IsNaN(s.Mean):
		return "-"
	case math.IsNaN(s.Lo):
		return fmt.Sprintf("%.1f", s.Mean)
	}
	return fmt.Sprintf("%.1f [%.1f, %.1f]", s.Mean, s.Lo, s.Hi)
}

// gridData is the sweep table for the figures and report.
func gridData(s *grid.Sweep, rows []grid.Row, terminates bool) *plotting.GridData {
	d := &plotting.GridData{Name: s.Base.Name, Agents: s.Agents(), Terminates: terminates,
		Seeds: s.Points[0].Config.Seeds, Episodes: s.Points[0].Config.Episodes}
	for _, p := range s.Points {
		if p.Config.Seeds != d.Seeds {
			d.Seeds = 0
		}
		if p.Config.Episodes != d.Episodes {
			d.Episodes = 0
		}
	}
	for _, a := range s.Grid.Axes {
		ga := plotting.GridAxis{Key: a.Key, Labels: a.Texts, Drawn: s.Grid.Sample > 0}
		if x, ok := a.Numeric(); ok {
			ga.X, ga.Log = x, a.LogSpaced()
		}
		d.Axes = append(d.Axes, ga)
	}
	coords := map[string][]int{}
	for _, p := range s.Points {
		coords[p.Name] = p.Coords
	}
	stat := func(st grid.Stat) plotting.GridStat { return plotting.GridStat{Mean: st.Mean, Lo: st.Lo, Hi: st.Hi} }
	for _, r := range rows {
		d.Cells = append(d.Cells, plotting.GridCell{Point: r.Point, Coords: coords[r.Point], Agent: r.Agent,
			CumReward: stat(r.CumReward), CumRegret: stat(r.CumRegret), FinalReturn: stat(r.FinalReturn), RegretSlope: r.RegretSlope})
	}
	return d
}

// sweepFigures draws the sweep figures of the points pts from rows, into
// outDir (root/plots when empty) with a report.md in outDir (root when
// empty) linking the points' reports in their directories.
func sweepFigures(s *grid.Sweep, rows []grid.Row, pts []*point, root, outDir, format string) ([]string, error) {
	figDir, reportDir := outDir, outDir
	if outDir == "" {
		figDir, reportDir = filepath.Join(root, plotsDir), root
	}
	if err := fsutil.NoLink(figDir); err != nil {
		return nil, err
	}
	terminates := false
	var dirs []string
	for _, p := range pts {
		terminates = terminates || p.mdp.Task.Terminates()
		dirs = append(dirs, p.dir)
	}
	d := gridData(s, rows, terminates)
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", figDir, err)
	}
	opt := plotting.Options{Format: format}
	if len(pts) > 0 {
		opt = plotOptions(format, pts[0].Config) // the size and font of the first point's plot keys
	}
	figs, err := plotting.GridFigures(d, figDir, opt)
	if err != nil {
		return figs, err
	}
	agg, err := plotting.AggregateFigures(root, figDir, opt)
	figs = append(figs, agg...)
	if err != nil {
		return figs, err
	}
	d.AggregateDir = root
	if err := plotting.GridReport(d, reportDir, figs, dirs); err != nil {
		return figs, err
	}
	return figs, sweepReportHTML(root, reportDir, s)
}

// forEach calls f(0), …, f(n−1) on up to workers goroutines and returns
// the error of the lowest index that failed (after all calls return).
func forEach(n, workers int, f func(i int) error) error {
	errList := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(max(workers, 1), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errList[i] = errs.Protect(func() error { return f(i) })
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errList {
		if err != nil {
			return err
		}
	}
	return nil
}
