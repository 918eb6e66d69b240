package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/smrl-dev/smrl/internal/errs"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// diagPoint is one method's diagnostics at one n.
type diagPoint struct {
	N, Efficiency      float64 // MSE_mle / MSE_method; NaN when unknown
	LogLik, LogLikHalf float64 // mean held-out log-likelihood and 1.96·sd/√R
}

// readDiagnostics reads the held_out_loglik and relative_efficiency
// columns of a sweep CSV, per method and n (n ascending); ok is false for
// a file without them (an earlier smrl's).
func readDiagnostics(path string) (methods []string, pts map[string][]diagPoint, ok bool, err error) {
	t, err := readTable(path, sweepColumns)
	if err != nil {
		return nil, nil, false, err
	}
	if !t.has("held_out_loglik") || !t.has("relative_efficiency") {
		return nil, nil, false, nil
	}
	type key struct {
		m string
		n int
	}
	ll := map[key][]float64{}
	eff := map[key]float64{}
	for i := range t.rows {
		m, err := t.agent(i, "method")
		if err != nil {
			return nil, nil, false, err
		}
		n, err := t.integer(i, "n", 1, math.MaxInt)
		if err != nil {
			return nil, nil, false, err
		}
		l, err := t.optFloat(i, "held_out_loglik")
		if err != nil {
			return nil, nil, false, err
		}
		e, err := t.optFloat(i, "relative_efficiency")
		if err != nil {
			return nil, nil, false, err
		}
		k := key{m, n}
		if _, seen := eff[k]; !seen {
			if !containsString(methods, m) {
				methods = append(methods, m)
			}
			eff[k] = e
		}
		if !math.IsNaN(l) {
			ll[k] = append(ll[k], l)
		}
	}
	pts = map[string][]diagPoint{}
	for k, e := range eff {
		p := diagPoint{N: float64(k.n), Efficiency: e, LogLik: math.NaN(), LogLikHalf: math.NaN()}
		if v := ll[k]; len(v) > 0 {
			mean, sd := meanSD(v)
			p.LogLik, p.LogLikHalf = mean, 1.96*sd/math.Sqrt(float64(len(v)))
		}
		pts[k.m] = append(pts[k.m], p)
	}
	for _, m := range methods {
		sort.Slice(pts[m], func(i, j int) bool { return pts[m][i].N < pts[m][j].N })
	}
	return methods, pts, true, nil
}

func containsString(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// SweepDiagnosticsFigure draws the model diagnostics of the sweep CSV at
// csvPath into outPath: on the left each method's relative efficiency
// against the MLE, MSE_mle / MSE_method, against n; on the right each
// method's mean held-out log-likelihood with its 95% interval over the
// repeats; a panel without values (no mle in the sweep, a family without
// a log-partition function) is left out. It is an error
// (errs.ErrInvalidInput) for a CSV without the diagnostics columns; with
// no value at all it writes nothing and returns false.
func SweepDiagnosticsFigure(csvPath, outPath string, opt Options) (bool, error) {
	opt, err := opt.normalize()
	if err != nil {
		return false, err
	}
	methods, pts, ok, err := readDiagnostics(csvPath)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, errs.Invalid(fmt.Errorf("%s has no held_out_loglik and relative_efficiency columns (written by an earlier smrl): run the sweep again", csvPath))
	}
	err = writeFigure(outPath, opt, func(c draw.Canvas) error {
		return safeDraw(func() error { return diagnosticsFigure(c, methods, pts) })
	})
	if errors.Is(err, errNoData) {
		return false, nil
	}
	return err == nil, err
}

// diagnosticsFigure draws the two panels of SweepDiagnosticsFigure.
func diagnosticsFigure(c draw.Canvas, methods []string, pts map[string][]diagPoint) error {
	left := panelPlot("Relative efficiency vs MLE: MSE_mle / MSE")
	left.X.Label.Text, left.Y.Label.Text = "n (log scale)", "relative efficiency"
	right := panelPlot("Held-out log-likelihood (mean, 95% CI)")
	right.X.Label.Text, right.Y.Label.Text = "n (log scale)", "mean log-likelihood per held-out transition"
	for _, p := range []*plot.Plot{left, right} {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Tick.Marker = linTicks{}
		g := plotter.NewGrid()
		g.Vertical.Color, g.Horizontal.Color = color.Gray{Y: 225}, color.Gray{Y: 225}
		addLean(p, g)
	}
	var items []legendItem
	drawn := 0
	used := map[*plot.Plot]bool{}
	for _, m := range methods {
		var eff, ll series
		eff = series{Name: m, Style: AgentStyle(m)}
		ll = series{Name: m, Style: AgentStyle(m)}
		for _, q := range pts[m] {
			if isFinite(q.Efficiency) {
				eff.X, eff.Y = append(eff.X, q.N), append(eff.Y, q.Efficiency)
			}
			if isFinite(q.LogLik) {
				ll.X, ll.Y = append(ll.X, q.N), append(ll.Y, q.LogLik)
				ll.Lo, ll.Hi = append(ll.Lo, q.LogLik-q.LogLikHalf), append(ll.Hi, q.LogLik+q.LogLikHalf)
			}
		}
		var it []legendItem
		for _, x := range []struct {
			p *plot.Plot
			s series
		}{{left, eff}, {right, ll}} {
			if len(x.s.X) == 0 {
				continue
			}
			got, err := addSeries(x.p, []series{x.s})
			if err != nil {
				return err
			}
			drawn++
			used[x.p] = true
			if it == nil {
				it = got
			}
		}
		items = append(items, it...)
	}
	if drawn == 0 {
		return errNoData
	}
	items = append(items, legendItem{Label: "95% CI over repeats", Thumbs: bandLegend().Thumbs})
	left.Y.Min, left.Y.Max = 0, math.Max(left.Y.Max*1.08, 1.08)
	var panels []*plot.Plot
	for _, p := range []*plot.Plot{left, right} {
		if used[p] {
			fixLogRange(p)
			panels = append(panels, p)
		}
	}
	gc := titledPanels(c, "Model diagnostics of the estimators against the sample size", items)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Points(18), PadLeft: vg.Points(2), PadRight: vg.Points(8), PadBottom: vg.Points(2)}
	canvases := plot.Align([][]*plot.Plot{panels}, tiles, gc)
	for k, p := range panels {
		p.Draw(canvases[0][k])
	}
	return nil
}
