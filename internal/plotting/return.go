package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg/draw"
)

// FigReturn is the figure of the return per episode.
const FigReturn = "return"

func init() {
	register(Figure{
		Name: FigReturn, Order: 20, Source: FromSummary, Columns: "reward_{mean,lo,hi}; the seeds' range of episodes.csv reward", Places: InRun, Smoothed: true,
		Caption: "Return per episode (the sum of the episode's rewards): mean over seeds, shaded " + bandNote,
		Doc:     DocLine{When: "always", Shows: "return per episode, mean over seeds with its band"},
		// The return per episode for every run.
		run: func(in *runInputs) *drawing {
			return &drawing{build: func(c draw.Canvas) error { return returnFigure(c, in.sum, in.spans, in.opt) }}
		},
	})
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
