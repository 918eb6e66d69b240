package plotting

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/smrl-dev/smrl/internal/config"
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

// Figure names, which are also the output file names without extension.
const (
	FigCumReward    = "cum_reward"
	FigCumRegret    = "cum_regret"
	FigRegretLogLog = "regret_loglog"
	FigPlusCount    = "plus_count"
	FigWError       = "w_error"
	FigMDP          = "mdp"
	FigDensities    = "densities"
	FigReturn       = "return"
	FigSteps        = "episode_length"
)

// The default size of the densities figure, whose 15 panels need more
// room than one plot: 1200 × 800 px at 96 dpi.
const (
	densityWidth  = 1200 * vg.Inch / 96
	densityHeight = 800 * vg.Inch / 96
)

// FigureNames lists every figure RunFigures may write, in order: the files
// a fresh run may remove from its own plots directory.
var FigureNames = []string{FigCumReward, FigReturn, FigSteps, FigCumRegret, FigRegretLogLog, FigPlusCount, FigActions, FigWError, FigMDP, FigDensities, FigMarginals, FigIntervals, FigProfile}

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

// RunFigures regenerates every figure of the results directory dir into
// outDir (created if missing) and returns the written paths in the order
// cum_reward, return, episode_length, cum_regret, regret_loglog,
// plus_count, actions, w_error, mdp, densities, marginals, interval_estimates,
// performance_profile (the last two when dir has aggregate.csv and
// profile.csv).
//
// return and episode_length are written only when episodes end early
// (some mean length below opt.Horizon), marginals only with
// opt.Marginals; cum_regret is written only if some agent has regret values,
// regret_loglog only if some agent has a positive mean regret, actions
// only if episodes.csv has action counts (a discrete action set), w_error only
// if some agent has a W error, and mdp and densities only if dens is not
// nil; densities uses each agent's final W from seed 0, last episode, of
// episodes.csv. Both episodes.csv and summary.csv must exist and are fully
// validated before anything is drawn. On a later error the paths written so
// far are returned with it.
func RunFigures(dir, outDir string, dens DensitySource, opt Options) ([]string, error) {
	userSize := opt.Width != 0 || opt.Height != 0
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	epPath, sumPath := resultsPaths(dir)
	sum, err := readSummary(sumPath, opt)
	if err != nil {
		return nil, err
	}
	finals, err := readEpisodes(epPath, opt)
	if err != nil {
		return nil, err
	}
	if sum.SEBand, err = seBands(epPath); err != nil {
		return nil, err
	}
	agg, err := readAggregate(dir)
	if err != nil {
		return nil, err
	}
	shares, err := readActionShares(epPath)
	if err != nil {
		return nil, err
	}
	spans, err := readSeedSpans(epPath, []string{"reward", "steps", "cum_reward", "cum_regret", "plus_count"}, opt.SeedLines)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", outDir, err)
	}

	type fig struct {
		name  string
		build func(c draw.Canvas) error
		big   bool // drawn at densitySize unless the caller chose a size
	}
	var figs []fig
	col := opt.Columns
	if col == nil || col.Cumulative {
		figs = append(figs, fig{name: FigCumReward, build: func(c draw.Canvas) error { return cumRewardFigure(c, sum, spans, opt) }})
	}
	// The return per episode for every run; the length when episodes end
	// early, unless it is the return itself (a reward of 1 per step).
	figs = append(figs, fig{name: FigReturn, build: func(c draw.Canvas) error { return returnFigure(c, sum, spans, opt) }})
	if sum.terminates(opt.Horizon) && !sum.returnIsLength() {
		figs = append(figs, fig{name: FigSteps, build: func(c draw.Canvas) error { return stepsFigure(c, sum, spans, opt) }})
	}
	if sum.hasRegret() {
		figs = append(figs,
			fig{name: FigCumRegret, build: func(c draw.Canvas) error { return cumRegretFigure(c, sum, spans, opt) }},
			fig{name: FigRegretLogLog, build: func(c draw.Canvas) error { return regretLogLogFigure(c, sum) }},
		)
	}
	if col == nil || col.PlusCount {
		figs = append(figs, fig{name: FigPlusCount, build: func(c draw.Canvas) error { return plusCountFigure(c, sum, spans, opt) }})
	}
	if shares != nil {
		figs = append(figs, fig{name: FigActions, build: func(c draw.Canvas) error { return actionsFigure(c, shares, opt) }})
	}
	figs = append(figs, fig{name: FigWError, build: func(c draw.Canvas) error { return wErrorFigure(c, sum) }})
	if dens != nil {
		figs = append(figs,
			fig{name: FigMDP, build: func(c draw.Canvas) error { return mdpFigure(c, dens, opt) }},
			fig{name: FigDensities, build: func(c draw.Canvas) error { return densitiesFigure(c, dens, finals, runDensitiesTitle, opt) }, big: true},
		)
	}
	if opt.Marginals != nil {
		figs = append(figs, fig{name: FigMarginals, build: func(c draw.Canvas) error { return marginalsFigure(c, opt.Marginals, finals) }})
	}
	if agg != nil {
		figs = append(figs,
			fig{name: FigIntervals, build: func(c draw.Canvas) error {
				return intervalsFigure(c, agg, aggregateTitle("Aggregate metrics of the per-seed score", sum))
			}},
			fig{name: FigProfile, build: func(c draw.Canvas) error {
				return profileFigure(c, agg, aggregateTitle("Performance profile", sum))
			}},
		)
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
		s := series{Name: a, Style: AgentStyle(a)}
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

// cumRewardFigure draws mean cumulative reward per agent with its band.
func cumRewardFigure(c draw.Canvas, sum *summaryData, spans seedSpans, opt Options) error {
	p := newPlot(fmt.Sprintf("Cumulative reward (%s)", ciNote(sum)),
		"episode", "cumulative reward")
	ss := summarySeries(sum, nil, func(r summaryRow) (float64, float64, float64) {
		return r.CumRewardMean, r.CumRewardLo, r.CumRewardHi
	})
	spans.clip(ss, "cum_reward")
	if err := seedLines(p, spans, ss, "cum_reward", opt, false); err != nil {
		return err
	}
	return bandFigure(c, p, ss)
}

// returnFigure draws the mean return per episode per agent with its band.
// When the return is the episode's length (a reward of 1 per step, as in
// CartPole) the band is clipped to [0, H] like the length's, and the
// y label says so.
func returnFigure(c draw.Canvas, sum *summaryData, spans seedSpans, opt Options) error {
	ylabel := "return"
	isLength := sum.returnIsLength() && opt.Horizon > 0
	if isLength {
		ylabel = fmt.Sprintf("return = steps (of H = %d)", opt.Horizon)
	}
	p := newPlot(fmt.Sprintf("Return per episode (%s%s)", ciNote(sum), smoothNote(opt.Smooth)), "episode", ylabel)
	ss := summarySeries(sum, nil, func(r summaryRow) (float64, float64, float64) {
		if isLength {
			return r.RewardMean, math.Max(r.RewardLo, 0), math.Min(r.RewardHi, float64(opt.Horizon))
		}
		return r.RewardMean, r.RewardLo, r.RewardHi
	})
	spans.clip(ss, "reward")
	smooth(ss, opt.Smooth)
	if err := seedLines(p, spans, ss, "reward", opt, true); err != nil {
		return err
	}
	if isLength {
		p.Y.Min, p.Y.Max = 0, float64(opt.Horizon)
	}
	return bandFigure(c, p, ss)
}

// stepsFigure draws the mean episode length per agent with its band,
// clipped to [0, H].
func stepsFigure(c draw.Canvas, sum *summaryData, spans seedSpans, opt Options) error {
	horizon := opt.Horizon
	p := newPlot(fmt.Sprintf("Episode length (%s%s)", ciNote(sum), smoothNote(opt.Smooth)), "episode", fmt.Sprintf("steps (of H = %d)", horizon))
	ss := summarySeries(sum, nil, func(r summaryRow) (float64, float64, float64) {
		return r.StepsMean, math.Max(r.StepsLo, 0), math.Min(r.StepsHi, float64(horizon))
	})
	spans.clip(ss, "steps")
	smooth(ss, opt.Smooth)
	if err := seedLines(p, spans, ss, "steps", opt, true); err != nil {
		return err
	}
	p.Y.Min, p.Y.Max = 0, float64(horizon)
	return bandFigure(c, p, ss)
}

// cumRegretFigure draws mean cumulative regret against the oracle per
// non-oracle agent with its band.
func cumRegretFigure(c draw.Canvas, sum *summaryData, spans seedSpans, opt Options) error {
	p := newPlot(fmt.Sprintf("Cumulative regret vs oracle (%s)", ciNote(sum)),
		"episode", "cumulative regret")
	ss := summarySeries(sum, config.IsBaseline,
		func(r summaryRow) (float64, float64, float64) {
			return r.CumRegretMean, r.CumRegretLo, r.CumRegretHi
		})
	spans.clip(ss, "cum_regret")
	if err := seedLines(p, spans, ss, "cum_regret", opt, false); err != nil {
		return err
	}
	return bandFigure(c, p, ss)
}

// plusCountFigure draws the mean number of a = +1 choices per episode.
func plusCountFigure(c draw.Canvas, sum *summaryData, spans seedSpans, opt Options) error {
	horizon := opt.Horizon
	ylabel := "steps with a = +1"
	if horizon > 0 {
		ylabel = fmt.Sprintf("steps with a = +1 (of H = %d)", horizon)
	}
	p := newPlot(fmt.Sprintf("Planner action choices (%s%s)", ciNote(sum), smoothNote(opt.Smooth)),
		"episode", ylabel)
	ss := summarySeries(sum, nil, func(r summaryRow) (float64, float64, float64) {
		return r.PlusCountMean, r.PlusCountLo, r.PlusCountHi
	})
	if len(ss) == 0 {
		return errNoData
	}
	spans.clip(ss, "plus_count")
	smooth(ss, opt.Smooth)
	if err := seedLines(p, spans, ss, "plus_count", opt, true); err != nil {
		return err
	}
	// The count lies in [0, H]: a t interval over few seeds can reach
	// beyond, so the band is clipped to what is possible.
	upper := math.Inf(1)
	if horizon > 0 {
		upper = float64(horizon)
	}
	for _, s := range ss {
		for i := range s.Lo {
			s.Lo[i] = math.Min(math.Max(s.Lo[i], 0), upper)
			s.Hi[i] = math.Min(math.Max(s.Hi[i], 0), upper)
		}
	}
	p.Y.Min = 0
	if horizon > 0 {
		p.Y.Max = math.Max(p.Y.Max, float64(horizon))
	}
	return bandFigure(c, p, ss)
}

// wErrorFigure draws the mean Frobenius error of the estimated W per
// agent, on a log axis when every value is positive.
func wErrorFigure(c draw.Canvas, sum *summaryData) error {
	// With stats.save_se the band is ‖Ŵ − W₀‖_F ± the mean over seeds of
	// ‖SE(Ŵ)‖_F (the Frobenius norm of the standard-error matrix), the lower
	// edge clipped at 0; without it there is no band.
	var agent string
	ss := summarySeries(sum, func(a string) bool { agent = a; return false }, func(r summaryRow) (float64, float64, float64) {
		b, ok := sum.SEBand[agent][r.Episode]
		if !ok || !isFinite(r.WErrorMean) {
			return r.WErrorMean, math.NaN(), math.NaN()
		}
		return r.WErrorMean, math.Max(r.WErrorMean-b, 0), r.WErrorMean + b
	})
	if len(ss) == 0 {
		return errNoData
	}
	logY := true
	for _, s := range ss {
		for i, y := range s.Y {
			if isFinite(y) && y <= 0 || s.Lo != nil && isFinite(s.Lo[i]) && s.Lo[i] <= 0 {
				logY = false
			}
		}
	}
	ylabel := "Frobenius error ‖Ŵ − W₀‖"
	if logY {
		ylabel += " (log scale)"
	}
	p := newPlot(fmt.Sprintf("Estimation error of W (%s)", meanNote(sum)), "episode", ylabel)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	return bandFigureLabel(c, p, ss, legendItem{Label: "shaded: ± mean ‖SE(Ŵ)‖_F"})
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
