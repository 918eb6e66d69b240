package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// FigWError is the figure of the estimation error of W.
const FigWError = "w_error"

func init() {
	register(Figure{
		Name: FigWError, Order: 80, Source: FromSummary, Columns: "w_error_mean; with stats.save_se, episodes.csv se_k_j", Places: InRun,
		Caption: "Frobenius error of the estimated W against the true W₀, mean over seeds, for the agents whose model family is the truth's (an lds agent's Gaussian W is left out unless the truth is Gaussian with its sigma); with stats.save_se (--save-se) the band is ± the mean over seeds of ‖SE(Ŵ)‖_F, the Frobenius norm of the matrix of standard errors, clipped at 0.",
		Doc:     DocLine{When: "some agent has a W error", Shows: "\\|Ŵ − W0\\|_F per episode (log axis when positive), agents whose model family is the truth's (config.InTrueFamily)"},
		// Skipped (no data) when no agent has an error.
		run: func(in *runInputs) *drawing {
			return &drawing{build: func(c draw.Canvas) error { return wErrorFigure(c, in.sum, in.opt.InTrueFamily) }}
		},
	})
}

// wErrorFigure draws the mean Frobenius error of the estimated W per
// agent whose Ŵ lives in the true family (inFamily; nil: every agent), on
// a log axis when every value is positive.
func wErrorFigure(c draw.Canvas, sum *summaryData, inFamily func(string) bool) error {
	// With stats.save_se the band is ‖Ŵ − W₀‖_F ± the mean over seeds of
	// ‖SE(Ŵ)‖_F (the Frobenius norm of the standard-error matrix), the lower
	// edge clipped at 0; without it there is no band.
	var agent string
	ss := summarySeries(sum, func(a string) bool { agent = a; return inFamily != nil && !inFamily(a) }, func(r summaryRow) (float64, float64, float64) {
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
