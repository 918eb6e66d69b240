package plotting

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/results"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Density is a probability density on the real line.
type Density func(x float64) float64

// DensitySource supplies the model densities for the mdp and densities
// figures; the caller (the CLI) builds it from the run's config.
type DensitySource interface {
	// True returns the true transition density P(s' | s, a).
	True(s, a float64) Density
	// Estimated returns agent's estimated density P_W(s' | s, a) for the
	// final W of its seed-0 run (row-major, W[i*d_phi+j] = w_i_j; nil when
	// episodes.csv has no W for the agent). ok is false if the agent has
	// no model, e.g. the oracle.
	Estimated(agent string, w []float64, s, a float64) (d Density, ok bool)
	// Reward is r(s).
	Reward(s float64) float64
}

// The default size of the densities figure, whose 15 panels need more
// room than one plot: 1200 × 800 px at 96 dpi.
const (
	densityWidth  = 1200 * vg.Inch / 96
	densityHeight = 800 * vg.Inch / 96
)

// CheckResults reads and validates the episodes.csv and summary.csv of the
// results directory dir as RunFigures does (with opt's horizon, episodes
// and seeds as bounds), without drawing anything.
func CheckResults(dir string, opt Options) error {
	epPath, sumPath := resultsPaths(dir)
	if _, err := readSummary(sumPath, opt); err != nil {
		return err
	}
	_, err := readEpisodes(epPath, opt)
	return err
}

// RunFigures regenerates the figures of the results directory dir into
// outDir (created if missing) and returns the written paths in registry
// order (FigureNames: cum_reward, return, episode_length, cum_regret,
// regret_loglog, plus_count, actions, w_error, mdp, densities, marginals,
// interval_estimates, performance_profile): every figure registered InRun
// whose data call for it, as its file says (its run hook); a figure that
// finds nothing to draw is left out. mdp and densities need dens,
// marginals opt.Marginals, the last two dir's aggregate.csv and
// profile.csv. Both episodes.csv and summary.csv must exist and are fully
// validated before anything is drawn. On a later error the paths written
// so far are returned with it.
func RunFigures(dir, outDir string, dens DensitySource, opt Options) ([]string, error) {
	userSize := opt.Width != 0 || opt.Height != 0
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	in, err := readRunInputs(dir, dens, opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", outDir, err)
	}
	var figs []namedDrawing
	for _, f := range registry {
		if f.Places&InRun != 0 {
			if d := f.run(in); d != nil {
				figs = append(figs, namedDrawing{f.Name, d})
			}
		}
	}

	// The figures are independent: draw them on all cores, then report
	// them (and the first error) in figure order.
	errs := make([]error, len(figs))
	sem := make(chan struct{}, runtime.NumCPU())
	var wg sync.WaitGroup
	for k, f := range figs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			path := filepath.Join(outDir, f.name+"."+opt.Format)
			fo := opt
			if f.big && !userSize {
				fo.Width, fo.Height = densityWidth, densityHeight
			}
			errs[k] = writeFigure(path, fo, func(c draw.Canvas) error {
				return safeDraw(func() error { return f.build(c) })
			})
		}()
	}
	wg.Wait()
	var written []string
	for k, f := range figs {
		if errors.Is(errs[k], errNoData) {
			continue
		}
		if errs[k] != nil {
			return written, errs[k]
		}
		written = append(written, filepath.Join(outDir, f.name+"."+opt.Format))
	}
	return written, nil
}

// readRunInputs reads and validates every file of the results directory
// dir that a run figure draws from, before anything is drawn.
func readRunInputs(dir string, dens DensitySource, opt Options) (*runInputs, error) {
	epPath, sumPath := resultsPaths(dir)
	in := &runInputs{dir: dir, dens: dens, opt: opt}
	var err error
	if in.sum, err = readSummary(sumPath, opt); err != nil {
		return nil, err
	}
	if in.finals, err = readEpisodes(epPath, opt); err != nil {
		return nil, err
	}
	if in.sum.SEBand, err = seBands(epPath, episodeColumns); err != nil {
		return nil, err
	}
	// Format version 2 moves a large Ŵ (and its standard errors) to
	// w.csv (results.Layout); episodes.csv then has no W columns.
	if wPath := filepath.Join(dir, results.WFile); fileExists(wPath) {
		ws, err := readWFile(wPath, opt)
		if err != nil {
			return nil, err
		}
		for a, f := range ws {
			in.finals[a] = f
		}
		if in.sum.SEBand, err = seBands(wPath, []string{"agent", "seed", "episode"}); err != nil {
			return nil, err
		}
	}
	if in.agg, err = readAggregate(dir); err != nil {
		return nil, err
	}
	if in.shares, err = readActionShares(epPath); err != nil {
		return nil, err
	}
	in.spans, err = readSeedSpans(epPath, []string{"reward", "steps", "cum_reward", "cum_regret", "plus_count"}, opt.SeedLines)
	if err != nil {
		return nil, err
	}
	return in, nil
}

// cumulative reports whether the run's table shows the cumulative
// measures, and plusCount whether it shows the plus count (Options.Columns;
// nil: both).
func (in *runInputs) cumulative() bool { return in.opt.Columns == nil || in.opt.Columns.Cumulative }
func (in *runInputs) plusCount() bool  { return in.opt.Columns == nil || in.opt.Columns.PlusCount }

// summarySeries builds one series per agent from summary rows; get returns
// mean, lo and hi of a row (lo, hi NaN for no band).
func summarySeries(sum *summaryData, skip func(agent string) bool,
	get func(r summaryRow) (mean, lo, hi float64)) []series {
	var ss []series
	for _, a := range sum.Agents {
		if skip != nil && skip(a) {
			continue
		}
		rows := sum.Rows[a]
		s := series{Name: a, Style: AgentStyle(a), Reference: config.IsBaseline(a)}
		anyInterval := false
		for _, r := range rows {
			m, lo, hi := get(r)
			s.X = append(s.X, float64(r.Episode))
			s.Y = append(s.Y, m)
			s.Lo = append(s.Lo, lo)
			s.Hi = append(s.Hi, hi)
			anyInterval = anyInterval || isFinite(lo) || isFinite(hi)
		}
		if !anyInterval {
			s.Lo, s.Hi = nil, nil
		}
		if len(finitePoints(s.X, s.Y)) == 0 {
			continue
		}
		ss = append(ss, s)
	}
	return ss
}

// ciNote describes the statistic of band figures for titles.
func ciNote(sum *summaryData) string {
	n := sum.maxSeeds()
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("mean, 95%% CI over %d seeds", n)
}

// meanNote describes the statistic of figures without bands for titles.
func meanNote(sum *summaryData) string {
	n := sum.maxSeeds()
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("mean over %d seeds", n)
}

// bandFigure draws series with bands and a right-hand legend into c.
func bandFigure(c draw.Canvas, p *plot.Plot, ss []series) error {
	return bandFigureLabel(c, p, ss, bandLegend())
}

// bandFigureLabel is bandFigure with the legend entry of the bands.
func bandFigureLabel(c draw.Canvas, p *plot.Plot, ss []series, band legendItem) error {
	if len(ss) == 0 {
		return errNoData
	}
	items, err := addSeries(p, ss)
	if err != nil {
		return err
	}
	if hasBand(ss) {
		items = append(items, band)
	}
	fixLogRange(p)
	drawWithLegend(c, p, items)
	return nil
}

// seedLines adds the per-seed lines of column col under ss when
// opt.SeedLines (smoothed like the means when perEpisode).
func seedLines(p *plot.Plot, spans seedSpans, ss []series, col string, opt Options, perEpisode bool) error {
	if !opt.SeedLines {
		return nil
	}
	k := 0
	if perEpisode {
		k = opt.Smooth
	}
	return spans.addSeedLines(p, ss, col, k)
}

// fixLogRange widens a log axis whose data range is a single value (which
// gonum/plot would widen by ±1, possibly below zero) to a factor of two
// either side.
func fixLogRange(p *plot.Plot) {
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := ax.Scale.(plot.LogScale); ok && ax.Min == ax.Max && ax.Min > 0 {
			ax.Min, ax.Max = ax.Min/2, ax.Max*2
		}
	}
}

// hasBand reports whether some series has an interval of non-zero width.
func hasBand(ss []series) bool {
	for _, s := range ss {
		for i := range s.Lo {
			if isFinite(s.Lo[i]) && isFinite(s.Hi[i]) && s.Hi[i] > s.Lo[i] {
				return true
			}
		}
	}
	return false
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
