package plotting

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FigRegretLogLog is the figure of the regret's growth on log–log axes.
const FigRegretLogLog = "regret_loglog"

func init() {
	register(Figure{
		Name: FigRegretLogLog, Order: 50, Source: FromSummary, Columns: "cum_regret_mean", Places: InRun,
		Caption: "Regret growth on log–log axes: mean cumulative regret over seeds against episode k, with the least-squares slope of log regret on log k over the second half of the episodes (k > K/2) in the legend; √k growth is slope 0.5, linear growth slope 1.",
		Doc: DocLine{When: "an oracle ran and some agent has positive regret",
			Shows: "mean cumulative regret against the oracle on log–log axes with each agent's least-squares slope over the second half, its fit line (dashed, on a white halo) and a √k reference (a curve that falls over the second half is labelled `slope 0, falling`, see `regret_slope`)"},
		// Skipped (no data) when no agent has a positive mean regret.
		run: func(in *runInputs) *drawing {
			if !in.sum.hasRegret() {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return regretLogLogFigure(c, in.sum) }}
		},
	})
}

// Style of the fitted lines of the log–log figure: dotted in the agent's
// colour, unlike the grey dashed √k guide.
var (
	fitWidth  = vg.Points(2)
	fitDashes = []vg.Length{vg.Points(1), vg.Points(3)}
)

// slopeText formats a fitted slope for a legend ("–" when undefined),
// without a negative zero. A negative slope is a falling regret curve,
// which does not grow: it reads "0, falling", the growth exponent that
// results.RegretSlope records for it.
func slopeText(b float64, ok bool) string {
	switch {
	case !ok:
		return "–"
	case b <= -0.005:
		return "0, falling"
	case math.Abs(b) < 0.005:
		b = 0
	}
	return fmt.Sprintf("%.2f", b)
}

// regretLogLogFigure draws each non-oracle agent's mean cumulative regret
// against episode on log–log axes (points with a positive mean only;
// agents without any are left out), labels each agent with the slope of
// regretFit over the second half of its episodes and draws that fit as a
// dotted line in the agent's colour under the data curves (never hiding
// them), and adds a grey dashed √k reference (slope 0.5) through the last
// point of the first agent drawn.
// A falling curve gets no fit line and the label "slope 0, falling".
func regretLogLogFigure(c draw.Canvas, sum *summaryData) error {
	var ss []series
	type fitted struct {
		a, b, lo, hi float64
		style        Style
	}
	var fits []fitted
	for _, a := range sum.Agents {
		if config.IsBaseline(a) {
			continue
		}
		rows := sum.Rows[a]
		eps := make([]float64, len(rows))
		reg := make([]float64, len(rows))
		s := series{Style: AgentStyle(a)}
		for i, r := range rows {
			eps[i], reg[i] = float64(r.Episode), r.CumRegretMean
			if r.CumRegretMean > 0 && isFinite(r.CumRegretMean) {
				s.X = append(s.X, eps[i])
				s.Y = append(s.Y, reg[i])
			}
		}
		if len(s.X) == 0 {
			continue
		}
		ia, ib, lo, hi, ok := stats.RegretFit(eps, reg)
		s.Name = fmt.Sprintf("%s (slope %s)", a, slopeText(ib, ok))
		ss = append(ss, s)
		if ok && ib >= 0 {
			fits = append(fits, fitted{ia, ib, lo, hi, s.Style})
		}
	}
	if len(ss) == 0 {
		return errNoData
	}
	p := newPlot(fmt.Sprintf("Regret growth, log–log (%s)", meanNote(sum)),
		"episode k (log scale)", "cumulative regret (log scale)")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	// The fits go under the data (added first), so that they never hide
	// it: dotted, in the agent's colour.
	var fitItem *legendItem
	for _, f := range fits {
		pts := plotter.XYs{
			{X: f.lo, Y: math.Exp(f.a + f.b*math.Log(f.lo))},
			{X: f.hi, Y: math.Exp(f.a + f.b*math.Log(f.hi))},
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = f.style.Color
		l.Width = fitWidth
		l.Dashes = fitDashes
		addLean(p, l)
		if fitItem == nil {
			thumb := &plotter.Line{LineStyle: l.LineStyle}
			if len(fits) > 1 {
				thumb.Color = rgb(0, 0, 0)
			}
			fitItem = &legendItem{Label: "fit over k > K/2 (dotted)", Thumbs: []plot.Thumbnailer{thumb}}
		}
	}
	items, err := addSeries(p, ss)
	if err != nil {
		return err
	}
	if fitItem != nil {
		items = append(items, *fitItem)
	}
	// The √k reference through the last point of the first agent.
	first := ss[0]
	kmin, kmax := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.X {
			kmin, kmax = math.Min(kmin, x), math.Max(kmax, x)
		}
	}
	if kmax > kmin {
		k0, r0 := first.X[len(first.X)-1], first.Y[len(first.Y)-1]
		cst := r0 / math.Sqrt(k0)
		gl, err := guideLine(kmin, kmax, func(k float64) float64 { return cst * math.Sqrt(k) })
		if err != nil {
			return err
		}
		addLean(p, gl)
		items = append(items, legendItem{Label: "√k reference (slope 0.5)", Thumbs: []plot.Thumbnailer{gl}})
	}
	fixLogRange(p)
	drawWithLegend(c, p, items)
	return nil
}
