package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FigMDP is the figure of the MDP: the paper's panel (a).
const FigMDP = "mdp"

// mdpState is the state s of the mdp figure, as in the paper's panel (a).
const mdpState = 0.5

// mdpPoints is the grid size of the mdp figure.
const mdpPoints = 600

func init() {
	register(Figure{
		Name: FigMDP, Order: 90, Source: FromModel, Columns: "the true densities and the reward (DensitySource)", Places: InRun,
		Caption: "The MDP: true transition densities from s = 0.5 for a = ±1, and the reward scaled to their maximum.",
		Doc: DocLine{When: "a 1-D expfam MDP",
			Shows: "the true transition densities from s = 0.5 for a = ±1 and the reward scaled to their maximum"},
		run: func(in *runInputs) *drawing {
			if in.dens == nil {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return mdpFigure(c, in.dens, in.opt) }}
		},
	})
}

// mdpFigure draws the paper's panel (a): the true transition densities from
// s = 0.5 for both actions and the scaled reward over [SMin, SMax].
func mdpFigure(c draw.Canvas, dens DensitySource, opt Options) error {
	xs := linspace(opt.SMin, opt.SMax, mdpPoints)
	p := newPlot(fmt.Sprintf("MDP: transition densities from s = %g and reward", mdpState),
		"next state s'", "density")
	var items []legendItem
	peak := 0.0
	for _, a := range []float64{1, -1} {
		ys, err := trueCurve(dens, mdpState, a, xs)
		if err != nil {
			return err
		}
		for _, y := range ys {
			peak = math.Max(peak, y)
		}
		line, err := plotter.NewLine(xyPoints(xs, ys))
		if err != nil {
			return err
		}
		line.Width = vg.Points(2.2)
		if a > 0 {
			line.Color = plusColor
		} else {
			line.Color = minusColor
			line.Dashes = []vg.Length{vg.Points(7), vg.Points(3)}
		}
		addLean(p, line)
		items = append(items, legendItem{
			Label:  fmt.Sprintf("P(s' | s=%g, a=%s)", mdpState, actionLabel(a)),
			Thumbs: []plot.Thumbnailer{line},
		})
	}
	rs := make([]float64, len(xs))
	rmax := 0.0
	for i, x := range xs {
		rs[i] = dens.Reward(x)
		if !isFinite(rs[i]) {
			return fmt.Errorf("reward r(%g) = %v is not finite", x, rs[i])
		}
		rmax = math.Max(rmax, math.Abs(rs[i]))
	}
	if rmax > 0 && peak > 0 {
		for i := range rs {
			rs[i] *= peak / rmax
		}
	}
	rl, err := plotter.NewLine(xyPoints(xs, rs))
	if err != nil {
		return err
	}
	rl.Color = rewardGrey
	rl.Width = vg.Points(1.6)
	rl.Dashes = []vg.Length{vg.Points(2), vg.Points(2.5)}
	addLean(p, rl)
	items = append(items, legendItem{Label: "reward (scaled)", Thumbs: []plot.Thumbnailer{rl}})
	p.X.Min, p.X.Max = opt.SMin, opt.SMax
	p.Y.Min = 0
	drawWithLegend(c, p, items)
	return nil
}
