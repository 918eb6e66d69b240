package plotting

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MarginalSource supplies the marginals figure: at one query (s, a), the
// true distribution of each coordinate of s' (by samples: the true
// transition may have no density, e.g. a noise-free physical system) and
// each agent's learned marginal density of it.
type MarginalSource interface {
	// Query describes the query (s, a) for the title.
	Query() string
	// Labels names the state coordinates.
	Labels() []string
	// TrueSamples returns n draws of s' ~ P(· | s, a), n × d_s.
	TrueSamples(n int) [][]float64
	// Estimated returns the agent's learned marginal densities of the
	// coordinates of s' at the query for its final W (row-major); ok is
	// false when the agent has no learned model (the oracle, or no W).
	Estimated(agent string, w []float64) (d []Density, ok bool)
	// Scales are per-coordinate scales of the models (e.g. the learners'
	// noise σ_i): each panel spans at least ±4 of them around the truth.
	Scales() []float64
}

// MarginalMeans is implemented by a MarginalSource that can also give
// each agent's predicted mean next state E_Ŵ[s' | s, a] at the query (ok
// false when the agent has no learned model). For a deterministic truth
// the marginals figure then compares these means with the true s' instead
// of drawing densities against a point mass.
type MarginalMeans interface {
	Mean(agent string, w []float64) (mean []float64, ok bool)
}

// FigMarginals is the file name of the marginals figure.
const FigMarginals = "marginals"

func init() {
	register(Figure{
		Name: FigMarginals, Order: 110, Source: FromModel, Columns: "the true transition (Options.Marginals); episodes.csv w_i_j, each agent's final W of seed 0", Places: InRun,
		Caption: "Next-state marginals at one query (s, a), from each agent's final W of seed 0: for a stochastic truth, the true distribution of each coordinate of s' (histogram of draws from the true transition) and each agent's learned marginal density; for a deterministic truth, each agent's predicted mean E[s'] against the true s'.",
		Doc: DocLine{When: "any other MDP",
			Shows: "at one query (s, a): the true distribution of each coordinate of s' and each agent's learned marginal; for a deterministic truth (CartPole, the pendulum) each agent's predicted mean E[s'] against the true s' instead"},
		run: func(in *runInputs) *drawing {
			if in.opt.Marginals == nil {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error { return marginalsFigure(c, in.opt.Marginals, in.finals) }}
		},
	})
}

// Layout of the marginals figure.
const (
	marginalSamples = 20000
	marginalBins    = 60
	marginalPoints  = 400
	marginalCols    = 2
)

// marginalsFigure draws one panel per coordinate of s': the true
// distribution as a filled histogram (a vertical line where it is a point
// mass) and each agent's learned density as a line.
func marginalsFigure(c draw.Canvas, src MarginalSource, finals map[string]finalW) error {
	labels := src.Labels()
	ds := len(labels)
	if ds == 0 {
		return errNoData
	}
	samples := src.TrueSamples(marginalSamples)
	scales := src.Scales()
	agents := make([]string, 0, len(finals))
	for a := range finals {
		agents = append(agents, a)
	}
	sortAgents(agents)
	if mm, ok := src.(MarginalMeans); ok && pointMass(samples) {
		return meansFigure(c, src, mm, samples[0], agents, finals)
	}
	ests := map[string][]Density{}
	for _, a := range agents {
		if d, ok := src.Estimated(a, finals[a].W); ok && len(d) == ds {
			ests[a] = d
		}
	}

	plots, cols := panelGrid(ds)
	for i := range ds {
		col := make([]float64, len(samples))
		for k, s := range samples {
			col[k] = s[i]
		}
		slices.Sort(col)
		lo, hi := col[len(col)/200], col[len(col)-1-len(col)/200]
		mid, half := 0.5*(lo+hi), 0.5*(hi-lo)*1.4
		if i < len(scales) {
			half = math.Max(half, 4*scales[i])
		}
		if !(half > 0) {
			half = 1e-3 * (1 + math.Abs(mid))
		}
		xmin, xmax := mid-half, mid+half
		p := panelPlot(labels[i])
		p.X.Label.Text = "next " + labels[i]
		if i%cols == 0 {
			p.Y.Label.Text = "density"
		}
		peak, err := addHistogram(p, col, xmin, xmax)
		if err != nil {
			return err
		}
		xs := linspace(xmin, xmax, marginalPoints)
		estMax := 0.0
		for _, a := range agents {
			d, ok := ests[a]
			if !ok {
				continue
			}
			ys, ok := evalDensity(d[i], xs)
			if !ok {
				continue
			}
			for _, y := range ys {
				estMax = math.Max(estMax, y)
			}
			line, err := plotter.NewLine(xyPoints(xs, ys))
			if err != nil {
				return err
			}
			st := AgentStyle(a)
			line.Color, line.Width = st.Color, vg.Points(1.4)
			addLean(p, line)
		}
		p.X.Min, p.X.Max, p.Y.Min = xmin, xmax, 0
		top := math.Max(peak, math.Min(estMax, estCap*math.Max(peak, 1e-300)))
		if peak == 0 {
			top = estMax
		}
		if !(top > 0) {
			top = 1
		}
		p.Y.Max = top * 1.05
		plots[i/cols][i%cols] = p
	}
	items := []legendItem{{Label: "true s' (histogram of 20 000 draws)", Thumbs: []plot.Thumbnailer{&plotter.Polygon{Color: fillColor(1)}}}}
	for _, a := range agents {
		if _, ok := ests[a]; ok {
			st := AgentStyle(a)
			items = append(items, legendItem{Label: a, Thumbs: []plot.Thumbnailer{
				&plotter.Line{LineStyle: draw.LineStyle{Color: st.Color, Width: vg.Points(1.5)}}}})
		}
	}
	title := fmt.Sprintf("Next-state marginals at %s: true and learned (final W of seed 0)", src.Query())
	drawPanelGrid(titledPanels(c, title, items), plots)
	return nil
}

// panelGrid returns the grid of the marginals figure for n panels, one
// per coordinate: rows of marginalCols (n when fewer), panel i at
// [i/cols][i%cols], to be filled by the caller; drawPanelGrid blanks the
// cells past the last panel.
func panelGrid(n int) (plots [][]*plot.Plot, cols int) {
	cols = min(n, marginalCols)
	plots = make([][]*plot.Plot, (n+cols-1)/cols)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	return plots, cols
}

// drawPanelGrid draws the panels of a panelGrid, aligned, on gc; a cell
// left nil is drawn blank.
func drawPanelGrid(gc draw.Canvas, plots [][]*plot.Plot) {
	rows, cols := len(plots), len(plots[0])
	for _, row := range plots {
		for k, p := range row {
			if p == nil {
				row[k] = panelPlot("")
				row[k].HideAxes()
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(8), PadLeft: vg.Points(2), PadRight: vg.Points(6)}
	canvases := plot.Align(plots, tiles, gc)
	for r := range rows {
		for k := range cols {
			plots[r][k].Draw(canvases[r][k])
		}
	}
}

// addHistogram adds the normalised histogram of sorted xs on [lo, hi] to p
// as a filled step polygon and returns its peak; a sample without spread
// (a point mass) is a vertical line, and the peak 0.
func addHistogram(p *plot.Plot, xs []float64, lo, hi float64) (float64, error) {
	if xs[0] == xs[len(xs)-1] {
		l, err := plotter.NewLine(plotter.XYs{{X: xs[0], Y: 0}, {X: xs[0], Y: 1e300}})
		if err != nil {
			return 0, err
		}
		l.Color, l.Width = fillColor(1), vg.Points(3)
		addLean(p, l)
		return 0, nil
	}
	w := (hi - lo) / marginalBins
	counts := make([]float64, marginalBins)
	for _, x := range xs {
		if b := int((x - lo) / w); b >= 0 && b < marginalBins {
			counts[b]++
		}
	}
	ring := plotter.XYs{{X: lo, Y: 0}}
	peak := 0.0
	for b, n := range counts {
		y := n / (float64(len(xs)) * w)
		peak = math.Max(peak, y)
		x0 := lo + float64(b)*w
		ring = append(ring, plotter.XY{X: x0, Y: y}, plotter.XY{X: x0 + w, Y: y})
	}
	ring = append(ring, plotter.XY{X: hi, Y: 0})
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return 0, err
	}
	poly.Color = fillColor(1)
	poly.LineStyle.Width = 0
	addLean(p, poly)
	return peak, nil
}

// pointMass reports whether every draw equals the first: a deterministic
// truth.
func pointMass(samples [][]float64) bool {
	for _, s := range samples[1:] {
		if !slices.Equal(s, samples[0]) {
			return false
		}
	}
	return len(samples) > 0
}

// meansFigure is the marginals figure for a deterministic truth: one panel
// per coordinate of s', with the true next value as a vertical line and
// each agent's predicted mean as a marker on its own row, on an axis that
// spans them all.
func meansFigure(c draw.Canvas, src MarginalSource, mm MarginalMeans, truth []float64, agents []string, finals map[string]finalW) error {
	labels := src.Labels()
	ds := len(labels)
	var shown []string
	means := map[string][]float64{}
	for _, a := range agents {
		if m, ok := mm.Mean(a, finals[a].W); ok && len(m) == ds && finite(m) {
			shown = append(shown, a)
			means[a] = m
		}
	}
	plots, cols := panelGrid(ds)
	for i := range ds {
		lo, hi := truth[i], truth[i]
		for _, a := range shown {
			lo, hi = math.Min(lo, means[a][i]), math.Max(hi, means[a][i])
		}
		pad := math.Max(0.15*(hi-lo), 1e-3*(1+math.Abs(truth[i])))
		p := panelPlot(labels[i])
		p.X.Label.Text = "next " + labels[i]
		p.X.Min, p.X.Max = lo-pad, hi+pad
		p.Y.Min, p.Y.Max = -0.5, float64(len(shown))-0.5
		tl, err := plotter.NewLine(plotter.XYs{{X: truth[i], Y: p.Y.Min}, {X: truth[i], Y: p.Y.Max}})
		if err != nil {
			return err
		}
		tl.Color, tl.Width = rewardGrey, vg.Points(2)
		addLean(p, tl)
		var ticks []plot.Tick
		for k, a := range shown {
			sc, err := plotter.NewScatter(plotter.XYs{{X: means[a][i], Y: float64(k)}})
			if err != nil {
				return err
			}
			sc.GlyphStyle = glyphStyle(AgentStyle(a), vg.Points(4))
			addLean(p, sc)
			ticks = append(ticks, plot.Tick{Value: float64(k), Label: a})
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
		plots[i/cols][i%cols] = p
	}
	items := []legendItem{{Label: "true s' (deterministic)", Thumbs: []plot.Thumbnailer{
		&plotter.Line{LineStyle: draw.LineStyle{Color: rewardGrey, Width: vg.Points(2)}}}}}
	for _, a := range shown {
		sc := &plotter.Scatter{GlyphStyle: glyphStyle(AgentStyle(a), vg.Points(4))}
		items = append(items, legendItem{Label: a + " predicted mean", Thumbs: []plot.Thumbnailer{sc}})
	}
	title := fmt.Sprintf("Predicted next state at %s: each agent's mean E[s'] (final W of seed 0) and the true s'", src.Query())
	drawPanelGrid(titledPanels(c, title, items), plots)
	return nil
}

// finite reports whether every x is finite.
func finite(x []float64) bool {
	for _, v := range x {
		if !isFinite(v) {
			return false
		}
	}
	return true
}
