package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg/draw"
)

// FigReturnSteps is the figure of the return against environment steps.
const FigReturnSteps = "return_steps"

func init() {
	register(Figure{
		Name: FigReturnSteps, Order: 25, Source: FromSummary, Columns: "reward_{mean,lo,hi}, steps_mean; the seeds' range of episodes.csv reward", Places: InRun, Smoothed: true,
		Caption: "Return per episode against environment steps: each episode's point sits at the mean over seeds of the steps taken by its end (Σ of the mean lengths of the episodes so far), since episodes end early and differ in length; mean over seeds, shaded " + bandNote,
		Doc:     DocLine{When: "episodes end early (some mean length below H)", Shows: "return per episode against the environment steps taken so far, with its band"},
		// Where episodes end early, the steps are the fair x axis: an
		// agent whose episodes are short has taken fewer.
		run: func(in *runInputs) *drawing {
			if !in.sum.terminates(in.opt.Horizon) {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return returnStepsFigure(c, in.sum, in.spans, in.opt) }}
		},
	})
}

// returnStepsFigure draws the mean return per episode per agent with its
// band against the mean cumulative steps: the point of episode k at
// x_k = Σ_{j ≤ k} mean_seeds(steps_j), which is the mean over seeds of the
// steps taken by the end of episode k (every seed has every episode).
func returnStepsFigure(c draw.Canvas, sum *summaryData, spans seedSpans, opt Options) error {
	p := newPlot(fmt.Sprintf("Return against environment steps (%s%s)", ciNote(sum), smoothNote(opt.Smooth)), "environment steps (mean over seeds)", "return")
	ss := summarySeries(sum, nil, func(r summaryRow) (float64, float64, float64) {
		return r.RewardMean, r.RewardLo, r.RewardHi
	})
	spans.clip(ss, "reward") // by episode, before X becomes steps
	smooth(ss, opt.Smooth)
	for k := range ss {
		rows := sum.Rows[ss[k].Name]
		x := make([]float64, len(rows))
		var cum float64
		for i, r := range rows {
			cum += r.StepsMean
			x[i] = cum
		}
		if len(x) != len(ss[k].X) || math.IsNaN(cum) {
			return errNoData // a summary without steps (an older file)
		}
		ss[k].X = x
	}
	return bandFigure(c, p, ss)
}
