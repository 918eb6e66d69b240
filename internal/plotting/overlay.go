package plotting

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// This file draws the overlay of several results directories (smrl plot
// --in A --in B --out DIR, issue 38): one figure per measure, every run's
// agents in it, each run told apart by its line pattern and marker and
// each agent by its colour, and a report.md naming the runs.

// OverlayRun is one results directory of an overlay: its label in the
// legends, its path and the options its own figures are checked with
// (horizon, episodes and seeds of its config).
type OverlayRun struct {
	Label, Dir string
	Opt        Options
}

// overlayMeasure is one figure of an overlay: a column of summary.csv
// with its band, when it has one.
type overlayMeasure struct {
	name, title, ylabel string
	get                 func(r summaryRow) (mean, lo, hi float64)
	// cumulative: a figure of cumulative sums, not smoothed.
	cumulative bool
}

// overlayMeasures are the overlay's figures, in the order of the run
// figures they overlay (return, episode_length, cum_reward, cum_regret,
// w_error); a measure no run has (every value NaN) is left out.
var overlayMeasures = []overlayMeasure{
	{name: FigReturn, title: "Return per episode", ylabel: "return", get: func(r summaryRow) (float64, float64, float64) {
		return r.RewardMean, r.RewardLo, r.RewardHi
	}},
	{name: FigSteps, title: "Episode length", ylabel: "steps", get: func(r summaryRow) (float64, float64, float64) {
		return r.StepsMean, r.StepsLo, r.StepsHi
	}},
	{name: FigCumReward, title: "Cumulative reward", ylabel: "cumulative reward", cumulative: true, get: func(r summaryRow) (float64, float64, float64) {
		return r.CumRewardMean, r.CumRewardLo, r.CumRewardHi
	}},
	{name: FigCumRegret, title: "Cumulative regret vs oracle", ylabel: "cumulative regret", cumulative: true, get: func(r summaryRow) (float64, float64, float64) {
		return r.CumRegretMean, r.CumRegretLo, r.CumRegretHi
	}},
	{name: FigWError, title: "Estimation error of W", ylabel: "Frobenius error ‖Ŵ − W₀‖", cumulative: true, get: func(r summaryRow) (float64, float64, float64) {
		return r.WErrorMean, math.NaN(), math.NaN()
	}},
}

// runDashes and runGlyphs tell the runs of an overlay apart: the first
// run's lines are solid with circles, the second's dashed with squares, …
var (
	runDashes = [][]vg.Length{nil, {vg.Points(7), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}
	runGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}}
)

// OverlayFigures draws one figure per measure (overlayMeasures) of the
// results directories runs into outDir and returns the written paths:
// the series "label: agent" of every run, in the agent's colour and the
// run's line pattern and marker (runDashes, runGlyphs), with their 95%
// bands (clipped to the seeds' range, as in a run's figures). opt gives
// the format, size, font and moving window (Smooth, for the per-episode
// measures). Every run's summary.csv is read and validated before
// anything is drawn; labels must differ.
func OverlayFigures(runs []OverlayRun, outDir string, opt Options) ([]string, error) {
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	type input struct {
		run   OverlayRun
		sum   *summaryData
		spans seedSpans
	}
	var ins []input
	for _, r := range runs {
		epPath, sumPath := resultsPaths(r.Dir)
		sum, err := readSummary(sumPath, r.Opt)
		if err != nil {
			return nil, err
		}
		spans, err := readSeedSpans(epPath, []string{"reward", "steps", "cum_reward", "cum_regret"}, false)
		if err != nil {
			return nil, err
		}
		ins = append(ins, input{r, sum, spans})
	}
	var written []string
	for _, m := range overlayMeasures {
		var base, learners []series
		for k, in := range ins {
			if m.name == FigSteps && !in.sum.terminates(in.run.Opt.Horizon) {
				continue // every episode has H steps: nothing to see
			}
			var skip func(string) bool
			if f := in.run.Opt.InTrueFamily; m.name == FigWError && f != nil {
				skip = func(a string) bool { return !f(a) } // as the run's own W-error figure
			}
			if m.name == FigCumRegret {
				skip = config.IsBaseline // the baseline's regret against itself is 0
			}
			run := summarySeries(in.sum, skip, m.get)
			in.spans.clip(run, spanColumn(m.name))
			if !m.cumulative {
				smooth(run, opt.Smooth)
			}
			for i := range run {
				st := run[i].Style
				st.Dashes = runDashes[k%len(runDashes)]
				st.Glyph = runGlyphs[k%len(runGlyphs)]
				run[i].Style, run[i].Name = st, in.run.Label+": "+run[i].Name
				if run[i].Reference {
					// Each run's oracle in its own pattern, without a band
					// (a reference, not a learner), drawn first, under the
					// learners' lines.
					run[i].Reference, run[i].Lo, run[i].Hi = false, nil, nil
					base = append(base, run[i])
				} else {
					learners = append(learners, run[i])
				}
			}
		}
		ss := append(base, learners...)
		if len(ss) == 0 {
			continue
		}
		window := opt.Smooth
		if m.cumulative {
			window = 0
		}
		stat := "mean, 95% CI over seeds"
		if m.name == FigWError {
			stat = "mean over seeds" // no band
		}
		title := fmt.Sprintf("%s (%s%s)", m.title, stat, smoothNote(window))
		path := filepath.Join(outDir, m.name+"."+opt.Format)
		err := writeFigure(path, opt, func(c draw.Canvas) error {
			return safeDraw(func() error {
				p := newPlot(title, "episode", m.ylabel)
				return bandFigure(c, p, ss)
			})
		})
		if errors.Is(err, errNoData) {
			continue
		}
		if err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// spanColumn is the episodes.csv column whose seeds' range clips the band
// of the overlay measure name ("" for none).
func spanColumn(name string) string {
	switch name {
	case FigReturn:
		return "reward"
	case FigSteps:
		return "steps"
	case FigCumReward:
		return "cum_reward"
	case FigCumRegret:
		return "cum_regret"
	}
	return ""
}

// OverlayReport writes reportDir/report.md for the overlay of runs: the
// runs it overlays (label and absolute directory), how to tell them apart,
// and the figures figs.
func OverlayReport(runs []OverlayRun, reportDir string, figs []string) error {
	absReport, err := filepath.Abs(reportDir)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# smrl overlay\n\n")
	b.WriteString("The figures overlay the results directories below, one figure per measure. ")
	b.WriteString("Each series is \"label: agent\": the agent's colour, the run's line pattern and marker ")
	b.WriteString("(first run solid with circles, second dashed with squares, third dotted with triangles). ")
	b.WriteString("Means over seeds with the 95% Student-t interval clipped to the seeds' range, as in each run's own figures.\n\n")
	b.WriteString("| label | results directory |\n|---|---|\n")
	for _, r := range runs {
		abs, err := filepath.Abs(r.Dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "| %s | %s |\n", mdEscape(r.Label), markdownCode(abs))
	}
	if err := writeFigures(&b, absReport, figs, func(string) string { return "" }); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(reportDir, ReportFile), []byte(b.String()))
}
