package plotting

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"gonum.org/v1/plot/vg/draw"
)

// FigCumRegret is the figure of the cumulative regret against the oracle.
const FigCumRegret = "cum_regret"

func init() {
	register(Figure{
		Name: FigCumRegret, Order: 40, Source: FromSummary, Columns: "cum_regret_{mean,lo,hi}; the seeds' range of episodes.csv cum_regret", Places: InRun,
		Caption: "Cumulative regret against the oracle: mean over seeds, shaded " + bandNote,
		Doc:     DocLine{When: "an oracle ran", Shows: "cumulative regret against the oracle with its band"},
		run: func(in *runInputs) *drawing {
			if !in.sum.hasRegret() {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return cumRegretFigure(c, in.sum, in.spans, in.opt) }}
		},
	})
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
