package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/vg/draw"
)

// FigPlusCount is the figure of the planner's action choices.
const FigPlusCount = "plus_count"

func init() {
	register(Figure{
		Name: FigPlusCount, Order: 60, Source: FromSummary, Columns: "plus_count_{mean,lo,hi}; the seeds' range of episodes.csv plus_count", Places: InRun, Smoothed: true,
		Caption: "Planner action choices: number of steps per episode with a = +1, mean over seeds, shaded " + bandNote,
		Doc:     DocLine{When: "discrete ±1 actions", Shows: "steps with a = +1 per episode, on [0, H]"},
		run: func(in *runInputs) *drawing {
			if !in.plusCount() {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return plusCountFigure(c, in.sum, in.spans, in.opt) }}
		},
	})
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
	p.Y.Tick.Marker = intTicks{} // a count of steps
	if horizon > 0 {
		p.Y.Max = math.Max(p.Y.Max, float64(horizon))
	}
	return bandFigure(c, p, ss)
}
