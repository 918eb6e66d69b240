package plotting

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Layout of the densities figure.
const (
	gridRows      = 3
	gridCols      = 5
	gridPoints    = 300
	gridWideSteps = 1200
	// massFraction: a grid point carries mass when a true density there is
	// at least this fraction of that density's maximum.
	massFraction = 1e-3
	// estCap caps a panel's y axis at this multiple of the true densities'
	// maximum so that one diverged estimate does not flatten the panel.
	estCap = 2.5
)

// FigDensities is the figure of the true and estimated transition
// densities at 15 states.
const FigDensities = "densities"

func init() {
	register(Figure{
		Name: FigDensities, Order: 100, Source: FromModel, Columns: "the true densities (DensitySource); episodes.csv w_i_j, each agent's final W of seed 0", Places: InRun,
		Caption: "True (filled) and estimated (lines; solid a = +1, dashed a = −1) transition densities at 15 states, from each agent's final W of seed 0.",
		Doc: DocLine{When: "a 1-D expfam MDP",
			Shows: "true (filled) and estimated densities at 15 states (drawn at 1200 × 800 px)"},
		run: func(in *runInputs) *drawing {
			if in.dens == nil {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error {
				return densitiesFigure(c, in.dens, in.finals, runDensitiesTitle, in.opt)
			}, big: true}
		},
	})
}

// linspace returns n evenly spaced points from a to b inclusive.
func linspace(a, b float64, n int) []float64 {
	if n == 1 {
		return []float64{a}
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return xs
}

// evalDensity evaluates d on xs; ok is false if a value is not finite or
// negative beyond rounding.
func evalDensity(d Density, xs []float64) (ys []float64, ok bool) {
	ys = make([]float64, len(xs))
	for i, x := range xs {
		y := d(x)
		if !isFinite(y) || y < -1e-12 {
			return ys, false
		}
		ys[i] = math.Max(y, 0)
	}
	return ys, true
}

// trueCurve evaluates the true density at (s, a), or errors if it is
// missing or not finite.
func trueCurve(dens DensitySource, s, a float64, xs []float64) ([]float64, error) {
	d := dens.True(s, a)
	if d == nil {
		return nil, fmt.Errorf("true density P(·|s=%g, a=%+g) is nil", s, a)
	}
	ys, ok := evalDensity(d, xs)
	if !ok {
		return nil, fmt.Errorf("true density P(·|s=%g, a=%+g) is not finite and non-negative on [%g, %g]",
			s, a, xs[0], xs[len(xs)-1])
	}
	return ys, nil
}

// actionLabel formats an action for labels, with a true minus sign.
func actionLabel(a float64) string {
	if a < 0 {
		return "−1"
	}
	return "+1"
}

// xyPoints zips xs and ys.
func xyPoints(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return pts
}

// gridRange returns the s' range shared by all density panels: the part
// of a wide grid where some true density carries mass, never narrower than
// [SMin, SMax].
func gridRange(dens DensitySource, states []float64, opt Options) (lo, hi float64, err error) {
	span := opt.SMax - opt.SMin
	wide := linspace(opt.SMin-span/2, opt.SMax+span/2, gridWideSteps)
	lo, hi = opt.SMin, opt.SMax
	for _, s := range states {
		for _, a := range []float64{1, -1} {
			ys, err := trueCurve(dens, s, a, wide)
			if err != nil {
				return 0, 0, err
			}
			peak := 0.0
			for _, y := range ys {
				peak = math.Max(peak, y)
			}
			for i, y := range ys {
				if peak > 0 && y >= massFraction*peak {
					lo = math.Min(lo, wide[i])
					hi = math.Max(hi, wide[i])
				}
			}
		}
	}
	return lo, hi, nil
}

// densitiesFigure draws the 3 × 5 grid of true and estimated transition
// densities for states evenly spaced in [SMin, SMax].
// runDensitiesTitle is the density grid's title for a results directory.
const runDensitiesTitle = "Transition densities: true (filled) and estimated from seed 0's final W (lines)"

func densitiesFigure(c draw.Canvas, dens DensitySource, finals map[string]finalW, title string, opt Options) error {
	states := linspace(opt.SMin, opt.SMax, gridRows*gridCols)
	lo, hi, err := gridRange(dens, states, opt)
	if err != nil {
		return err
	}
	xs := linspace(lo, hi, gridPoints)

	agents := make([]string, 0, len(finals))
	for a := range finals {
		agents = append(agents, a)
	}
	sortAgents(agents)

	modelled := map[string]bool{}
	plots := make([][]*plot.Plot, gridRows)
	for row := range gridRows {
		plots[row] = make([]*plot.Plot, gridCols)
		for col := range gridCols {
			s := states[row*gridCols+col]
			p := panelPlot(fmt.Sprintf("s = %.2f", s))
			if row == gridRows-1 {
				p.X.Label.Text = "s'"
			}
			if col == 0 {
				p.Y.Label.Text = "density"
			}
			peak := 0.0
			for _, a := range []float64{1, -1} {
				ys, err := trueCurve(dens, s, a, xs)
				if err != nil {
					return err
				}
				for _, y := range ys {
					peak = math.Max(peak, y)
				}
				poly, err := areaPolygon(xs, ys, fillColor(a))
				if err != nil {
					return err
				}
				addLean(p, poly)
			}
			lines, marks, estMax, err := estimateCurves(dens, agents, finals, s, xs, modelled)
			if err != nil {
				return err
			}
			addLean(p, lines...)
			addLean(p, marks...)
			p.X.Min, p.X.Max = lo, hi
			p.Y.Min = 0
			top := peak
			if estMax > top {
				top = math.Min(estMax, estCap*peak)
			}
			if top <= 0 {
				top = 1
			}
			p.Y.Max = top * 1.05
			plots[row][col] = p
		}
	}

	gc := titledPanels(c, title, densitiesLegend(agents, modelled))
	tiles := draw.Tiles{
		Rows: gridRows, Cols: gridCols,
		PadX: vg.Points(6), PadY: vg.Points(4),
		PadLeft: vg.Points(2), PadRight: vg.Points(6),
	}
	canvases := plot.Align(plots, tiles, gc)
	for row := range gridRows {
		for col := range gridCols {
			plots[row][col].Draw(canvases[row][col])
		}
	}
	return nil
}

// The dashes of the estimated densities: solid for a = +1, dashed for
// a = −1.
var (
	estimatePlusDash  = []vg.Length(nil)
	estimateMinusDash = []vg.Length{vg.Points(4), vg.Points(2)}
)

// estimateCurves returns the lines of every agent's estimated densities at
// state s over xs, a marker at each one's mode, and their largest value;
// it marks the agents drawn in modelled. An agent without a model or with
// a diverged estimate is left out.
func estimateCurves(dens DensitySource, agents []string, finals map[string]finalW, s float64, xs []float64,
	modelled map[string]bool) (lines, marks []plot.Plotter, estMax float64, err error) {
	for k, ag := range agents {
		st := AgentStyle(ag)
		for _, a := range []float64{1, -1} {
			d, ok := dens.Estimated(ag, finals[ag].W, s, a)
			if !ok || d == nil {
				continue
			}
			ys, ok := evalDensity(d, xs)
			if !ok {
				continue // a diverged estimate is left out
			}
			modelled[ag] = true
			for _, y := range ys {
				estMax = math.Max(estMax, y)
			}
			line, err := plotter.NewLine(xyPoints(xs, ys))
			if err != nil {
				return nil, nil, 0, err
			}
			line.Color = st.Color
			line.Width = agentDensityWidth(k, len(agents))
			line.Dashes = estimatePlusDash
			if a < 0 {
				line.Dashes = estimateMinusDash
			}
			lines = append(lines, line)
			// One marker, at the estimate's mode, identifies the agent
			// without cluttering the small panel.
			imax := 0
			for i, y := range ys {
				if y > ys[imax] {
					imax = i
				}
			}
			sc, err := plotter.NewScatter(plotter.XYs{{X: xs[imax], Y: ys[imax]}})
			if err != nil {
				return nil, nil, 0, err
			}
			sc.GlyphStyle = glyphStyle(st, vg.Points(2.2))
			marks = append(marks, sc)
		}
	}
	return lines, marks, estMax, nil
}

// densitiesLegend returns the legend rows under the density grid: true
// fills, then the agents drawn, then the dash convention.
func densitiesLegend(agents []string, modelled map[string]bool) []legendItem {
	items := []legendItem{
		{Label: "true P(·|s, a=+1)", Thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: fillColor(1)}}},
		{Label: "true P(·|s, a=−1)", Thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: fillColor(-1)}}},
	}
	for k, ag := range agents {
		if !modelled[ag] {
			continue
		}
		st := AgentStyle(ag)
		l := &plotter.Line{LineStyle: draw.LineStyle{Color: st.Color, Width: agentDensityWidth(k, len(agents))}}
		sc := &plotter.Scatter{GlyphStyle: glyphStyle(st, vg.Points(3))}
		items = append(items, legendItem{Label: ag, Thumbs: []plot.Thumbnailer{l, sc}})
	}
	black := color.Black
	if len(modelled) > 0 {
		items = append(items,
			legendItem{Label: "estimate, a=+1", Thumbs: []plot.Thumbnailer{
				&plotter.Line{LineStyle: draw.LineStyle{Color: black, Width: vg.Points(1.3), Dashes: estimatePlusDash}}}},
			legendItem{Label: "estimate, a=−1", Thumbs: []plot.Thumbnailer{
				&plotter.Line{LineStyle: draw.LineStyle{Color: black, Width: vg.Points(1.3), Dashes: estimateMinusDash}}}},
		)
	}
	return items
}

// agentDensityWidth is the line width of agent k of n in the densities
// figure: the first agent's line is the widest and drawn first, each later
// one thinner on top, so an estimate that lies on another's leaves that
// one visible as a coloured edge (sm under mle on a Gaussian).
func agentDensityWidth(k, n int) vg.Length {
	if n <= 1 {
		return vg.Points(1.3)
	}
	return vg.Points(0.9 + 2.6*float64(n-1-k)/float64(n-1))
}

// Font sizes of the small density panels.
const (
	panelTitleSize = 9
	panelLabelSize = 9
	panelTickSize  = 7.5
	gridLegendSize = 9.5
)

// panelPlot returns a small panel with compact fonts.
func panelPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(panelTitleSize)
	p.Title.Padding = vg.Points(2)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = sans(panelLabelSize)
		ax.Tick.Label.Font = sans(panelTickSize)
		ax.Tick.Length = vg.Points(3)
		ax.Tick.Marker = distinctTicks{plot.DefaultTicks{}}
		ax.Padding = vg.Points(2)
	}
	p.X.Label.Padding = vg.Points(1)
	p.Y.Label.Padding = vg.Points(1)
	return p
}

// fillColor is the translucent fill of the true density of action a.
func fillColor(a float64) color.NRGBA {
	if a > 0 {
		return withAlpha(plusColor, fillAlpha)
	}
	return withAlpha(minusColor, fillAlpha)
}

// areaPolygon is the region between the curve (xs, ys) and y = 0.
func areaPolygon(xs, ys []float64, c color.Color) (*plotter.Polygon, error) {
	ring := make(plotter.XYs, 0, len(xs)+2)
	ring = append(ring, xyPoints(xs, ys)...)
	ring = append(ring, plotter.XY{X: xs[len(xs)-1], Y: 0}, plotter.XY{X: xs[0], Y: 0})
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.Color = c
	poly.LineStyle.Width = 0
	return poly, nil
}

// drawLegendRows draws items as centred rows along the bottom of c,
// wrapping when a row is full, and returns the height used.
func drawLegendRows(c draw.Canvas, items []legendItem, size vg.Length) vg.Length {
	l := newLegend(nil, size)
	sty := l.TextStyle
	entryH := sty.Height("Xy")
	gap := vg.Points(14)
	thumbGap := sty.Width(" ")
	widths := make([]vg.Length, len(items))
	for i, it := range items {
		widths[i] = l.ThumbnailWidth + thumbGap + sty.Width(it.Label)
	}
	avail := c.Max.X - c.Min.X - vg.Points(10)
	var rows [][]int
	var cur []int
	var curW vg.Length
	for i, w := range widths {
		if len(cur) > 0 && curW+gap+w > avail {
			rows = append(rows, cur)
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += gap
		}
		cur = append(cur, i)
		curW += w
	}
	if len(cur) > 0 {
		rows = append(rows, cur)
	}
	rowH := entryH + vg.Points(4)
	height := vg.Length(len(rows))*rowH + vg.Points(4)
	for r, row := range rows {
		var w vg.Length
		for k, i := range row {
			if k > 0 {
				w += gap
			}
			w += widths[i]
		}
		x := c.Center().X - w/2
		y := c.Min.Y + height - vg.Length(r+1)*rowH
		for _, i := range row {
			one := newLegend([]legendItem{items[i]}, size)
			one.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y},
				Max: vg.Point{X: x + widths[i], Y: y + rowH},
			}})
			x += widths[i] + gap
		}
	}
	return height
}

// FigEstimationDensities names the figure of smrl estimate --plot in the
// registry; its file is the one the user names.
const FigEstimationDensities = "estimation_densities"

func init() {
	register(Figure{
		Name: FigEstimationDensities, Order: 310, Source: FromEstimate, Columns: "each method's Ŵ", Places: InEstimate,
		Doc: DocLine{Figure: "`smrl estimate --plot FILE`", When: "asked for",
			Shows: "the paper's estimation figure: true and estimated densities at 15 states, as `densities` with each method's Ŵ; for the kernel family bound to data, its learned density of s'_0 at six (s, a) of the data beside the histogram of the nearest transitions' next states (ConditionalDensities)"},
	})
}

// DensityGrid draws the density-grid figure (FigDensities) for named
// estimates of W (row-major, keyed by method or agent, e.g. from smrl
// estimate) into outPath under the given title: the paper's estimation
// figure. The format follows opt.Format.
func DensityGrid(outPath, title string, dens DensitySource, estimates map[string][]float64, opt Options) error {
	opt, err := opt.normalize()
	if err != nil {
		return err
	}
	finals := make(map[string]finalW, len(estimates))
	for name, w := range estimates {
		finals[name] = finalW{W: w}
	}
	return writeFigure(outPath, opt, func(c draw.Canvas) error { return densitiesFigure(c, dens, finals, title, opt) })
}

// titledPanels draws a multi-panel figure's frame on c: the title on top
// (shrunk to fit), the legend rows at the bottom, and returns the canvas
// between them for the panels.
func titledPanels(c draw.Canvas, title string, items []legendItem) draw.Canvas {
	c = draw.Crop(c, margin, -margin, margin/2, -margin)
	titleStyle := plot.New().Title.TextStyle
	titleStyle.Font = sans(titleSize - 1)
	fitText(&titleStyle, title, c.Max.X-c.Min.X)
	titleH := titleStyle.Height("Xy") + vg.Points(8)
	c.FillText(titleStyle, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(3)}, title)
	legendH := drawLegendRows(c, items, gridLegendSize)
	return draw.Crop(c, 0, 0, legendH+vg.Points(4), -titleH)
}
