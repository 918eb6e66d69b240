package plotting

import (
	"fmt"

	"gonum.org/v1/plot/vg/draw"
)

// FigCumReward is the figure of the cumulative reward.
const FigCumReward = "cum_reward"

func init() {
	register(Figure{
		Name: FigCumReward, Order: 10, Source: FromSummary, Columns: "cum_reward_{mean,lo,hi}; the seeds' range of episodes.csv cum_reward", Places: InRun,
		Caption: "Cumulative reward per episode: mean over seeds, shaded " + bandNote,
		Doc:     DocLine{When: "the paper's kind of MDP (`env.kind: expfam`)", Shows: "cumulative reward with its band"},
		run: func(in *runInputs) *drawing {
			if !in.cumulative() {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return cumRewardFigure(c, in.sum, in.spans, in.opt) }}
		},
	})
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
