package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg/draw"
)

// FigSteps is the figure of the episode length.
const FigSteps = "episode_length"

func init() {
	register(Figure{
		Name: FigSteps, Order: 30, Source: FromSummary, Columns: "steps_{mean,lo,hi}; the seeds' range of episodes.csv steps", Places: InRun, Smoothed: true,
		Caption: "Episode length (steps before a terminal state, at most H): mean over seeds, shaded " + bandNote,
		Doc:     DocLine{When: "episodes end early and the return is not the length itself", Shows: "episode length (steps) with its band, on [0, H]"},
		// The length when episodes end early, unless it is the return
		// itself (a reward of 1 per step).
		run: func(in *runInputs) *drawing {
			if !in.sum.terminates(in.opt.Horizon) || in.sum.returnIsLength() {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return stepsFigure(c, in.sum, in.spans, in.opt) }}
		},
	})
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
	p.Y.Tick.Marker = intTicks{} // a count of steps
	return bandFigure(c, p, ss)
}
