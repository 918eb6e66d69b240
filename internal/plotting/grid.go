package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/smrl-dev/smrl/internal/config"
)

// This file draws the figures of a parameter sweep (smrl sweep: final
// results against the swept config keys). The estimation sweep of smrl
// estimate (error against n) is SweepFigure, in sweep.go.

// GridAxis is one swept config key of a parameter sweep.
type GridAxis struct {
	Key    string
	Labels []string  // the values' texts
	X      []float64 // the values of a numeric key; nil for others (drawn at 0, 1, …)
	Log    bool      // numeric values drawn on a log axis
	// Drawn marks the values of a random search (smrl sweep --sample):
	// irregular, so the axis gets round ticks instead of one per value.
	Drawn bool
}

// GridStat is a mean over seeds with its 95% interval (Lo, Hi NaN for
// none).
type GridStat struct{ Mean, Lo, Hi float64 }

// GridCell is one agent at one grid point, at the point's last episode.
type GridCell struct {
	Point                             string // the point's directory name
	Coords                            []int  // the index of its value on each axis
	Agent                             string
	CumReward, CumRegret, FinalReturn GridStat
	RegretSlope                       float64
}

// GridData is a parameter sweep's table, for its figures and report.
type GridData struct {
	Name   string // the sweep's config name, for the report's title
	Axes   []GridAxis
	Agents []string   // in config order
	Cells  []GridCell // every (point, agent)
	// Seeds and Episodes are the seeds and episodes of every point, 0 when
	// they differ between points (a swept key).
	Seeds, Episodes int
	// Terminates marks environments whose episodes end at terminal states:
	// the final-return figures are drawn.
	Terminates bool
	// AggregateDir, when not empty, is the directory of the sweep's
	// aggregate.csv, improvement.csv and profile.csv, summarised in the
	// report.
	AggregateDir string
}

// Grid figure names: GridFigRegret + "_" + key and so on, one per swept key,
// and the heat maps of two-key grids.
const (
	GridFigRegret        = "sweep_regret"
	GridFigReward        = "sweep_reward"
	GridFigReturn        = "sweep_return"
	GridFigHeatmapRegret = "sweep_heatmap_regret"
	GridFigHeatmapReward = "sweep_heatmap_reward"
)

// GridFigureNames lists every figure a sweep of keys may write at its
// root (file names without extension), those of GridFigures (per key, then
// the others) and then those of AggregateFigures: the files a fresh sweep
// may remove.
func GridFigureNames(keys []string) []string {
	var out []string
	for _, k := range keys {
		for _, f := range registry {
			if f.Places&InSweep != 0 && f.PerKey {
				out = append(out, f.Name+"_"+k)
			}
		}
	}
	for _, source := range []Source{FromSweepTable, FromAggregate} {
		for _, f := range registry {
			if f.Places&InSweep != 0 && !f.PerKey && f.Source == source {
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// The sweep table's figures, each a metric against each swept key or a
// heat map of a grid of two keys.
func init() {
	const bars = "mean over seeds with its 95% Student-t interval as bars."
	const heat = "at every grid point, one panel per agent: the mean over seeds, on one colour scale."
	const heatShows = "a panel per agent, a cell per point coloured by its mean (blue low, red high, one scale for all panels, with a colour bar) and labelled with it"
	register(Figure{
		Name: GridFigRegret, Order: 200, Source: FromSweepTable, Columns: "cum_regret_{mean,lo,hi}", Places: InSweep, PerKey: true,
		Caption: "Cumulative regret against the oracle after the last episode, against the swept key: " + bars,
		Doc: DocLine{When: "a sweep with an oracle",
			Shows: "cumulative regret after the last episode against the swept KEY, every agent but the oracle, mean over seeds with 95% Student-t bars"},
		sweep: func(in *sweepInputs) *drawing {
			if !in.grid.hasRegret() {
				return nil
			}
			return in.lineDrawing(metricRegret)
		},
	}, Figure{
		Name: GridFigReward, Order: 210, Source: FromSweepTable, Columns: "cum_reward_{mean,lo,hi}", Places: InSweep, PerKey: true,
		Caption: "Cumulative reward after the last episode, against the swept key: " + bars,
		Doc:     DocLine{When: "a sweep", Shows: "cumulative reward after the last episode against KEY, every agent, with bars"},
		sweep:   func(in *sweepInputs) *drawing { return in.lineDrawing(metricReward) },
	}, Figure{
		Name: GridFigReturn, Order: 220, Source: FromSweepTable, Columns: "final_return_{mean,lo,hi}", Places: InSweep, PerKey: true,
		Caption: "Mean return over the last 20 episodes, against the swept key: " + bars,
		Doc:     DocLine{When: "a sweep of a terminating environment", Shows: "mean return over the last 20 episodes against KEY, with bars"},
		sweep: func(in *sweepInputs) *drawing {
			if !in.grid.Terminates {
				return nil
			}
			return in.lineDrawing(metricReturn)
		},
	}, Figure{
		Name: GridFigHeatmapRegret, Order: 230, Source: FromSweepTable, Columns: "cum_regret_mean", Places: InSweep,
		Caption: "Cumulative regret after the last episode " + heat,
		Doc:     DocLine{When: "a sweep of two keys with an oracle", Shows: heatShows + ": cumulative regret"},
		sweep: func(in *sweepInputs) *drawing {
			if len(in.grid.Axes) != 2 || !in.grid.hasRegret() {
				return nil
			}
			return in.heatmapDrawing(metricRegret)
		},
	}, Figure{
		Name: GridFigHeatmapReward, Order: 240, Source: FromSweepTable, Columns: "cum_reward_mean", Places: InSweep,
		Caption: "Cumulative reward after the last episode " + heat,
		Doc:     DocLine{When: "a sweep of two keys without an oracle", Shows: heatShows + ": cumulative reward"},
		sweep: func(in *sweepInputs) *drawing {
			if len(in.grid.Axes) != 2 || in.grid.hasRegret() {
				return nil
			}
			return in.heatmapDrawing(metricReward)
		},
	})
}

// lineDrawing is the line figure of metric m against the swept key
// in.axis, sized for its panels and legend.
func (in *sweepInputs) lineDrawing(m gridMetric) *drawing {
	d, k := in.grid, in.axis
	w, h := gridSize(in.opt, len(d.panelAgents(m, k)), d.labelChars(k))
	return &drawing{build: func(c draw.Canvas) error { return d.lineFigure(c, m, k) }, w: w, h: h}
}

// heatmapDrawing is the heat map of metric m over a grid of two keys.
func (in *sweepInputs) heatmapDrawing(m gridMetric) *drawing {
	d := in.grid
	w, h := gridSize(in.opt, len(d.agentsFor(m)), 0)
	return &drawing{build: func(c draw.Canvas) error { return d.heatmap(c, m) }, w: w, h: h}
}

// gridMetric is one statistic of the sweep table.
type gridMetric struct {
	fig, what string
	get       func(c GridCell) GridStat
	oracle    bool // the oracle is drawn (its regret is 0 by definition)
}

var (
	metricRegret = gridMetric{GridFigRegret, "Cumulative regret", func(c GridCell) GridStat { return c.CumRegret }, false}
	metricReward = gridMetric{GridFigReward, "Cumulative reward", func(c GridCell) GridStat { return c.CumReward }, true}
	metricReturn = gridMetric{GridFigReturn, "Return over the last 20 episodes", func(c GridCell) GridStat { return c.FinalReturn }, true}
)

// GridFigures draws the figures of a parameter sweep registered from its
// table (FromSweepTable) into outDir and returns their paths, those per
// key first (each key in turn):
//
//   - sweep_regret_KEY: the cumulative regret after the last episode
//     against KEY, mean with 95% interval bars, per non-oracle agent;
//     written when the oracle was run;
//   - sweep_reward_KEY: the same for cumulative reward, every agent;
//   - sweep_return_KEY: the same for the mean return over the last 20
//     episodes, when d.Terminates;
//   - sweep_heatmap_regret (sweep_heatmap_reward without an oracle): for a
//     grid of two keys, one panel per agent with a cell per point coloured
//     by the mean and labelled with it, on a colour scale shared by the
//     panels.
//
// With one key, each figure has one panel with a line per agent. With
// more, it has a panel per agent and a line per combination of the other
// keys' values (at most 10; the title says when there are more). Numeric
// keys are drawn at their values (log-spaced ones on a log axis), others
// at 0, 1, …; the ticks are the grid's values when there are at most 12.
func GridFigures(d *GridData, outDir string, opt Options) ([]string, error) {
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	figs := sweepFigures(FromSweepTable, sweepInputs{grid: d, opt: opt}, len(d.Axes))
	var written []string
	for _, f := range figs {
		path := filepath.Join(outDir, f.name+"."+opt.Format)
		o := opt
		o.Width, o.Height = f.w, f.h // the registration sizes every sweep figure
		err := writeFigure(path, o, func(c draw.Canvas) error {
			return safeDraw(func() error { return f.build(c) })
		})
		if errors.Is(err, errNoData) {
			continue
		}
		if err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// gridSize is the size of a figure of n panels with legend labels of up to
// label characters: the options' size for one panel, wider (up to three
// panels a row) and taller (a row per three) for more, and wider again
// for a legend wider than about 150 pt, within the size limits.
func gridSize(opt Options, n, label int) (w, h vg.Length) {
	w, h = opt.Width, opt.Height
	if n > 1 {
		cols := min(n, 3)
		rows := (n + cols - 1) / cols
		w = opt.Width * vg.Length(0.3+0.55*float64(cols))
		h = opt.Height * vg.Length(0.25+0.75*float64(rows))
	}
	// Liberation Sans at the legend's size averages about 0.55 em a
	// character; the thumbnail and padding take about 45 pt.
	if legend := vg.Points(45) + vg.Length(label)*0.55*legendSize; legend > vg.Points(150) {
		w += legend - vg.Points(150)
	}
	return min(w, maxSize), min(h, maxSize)
}

// labelChars is the length of the longest legend label of a line figure
// against axis k.
func (d *GridData) labelChars(k int) int {
	n := len("95% CI")
	if len(d.Axes) == 1 {
		for _, a := range d.Agents {
			n = max(n, len([]rune(a)))
		}
		return n
	}
	_, labels := d.combos(k)
	for _, l := range labels[:min(len(labels), maxCombos)] {
		n = max(n, len([]rune(l)))
	}
	return n
}

// agentsFor lists the agents a metric draws, in config order.
func (d *GridData) agentsFor(m gridMetric) []string {
	var out []string
	for _, a := range d.Agents {
		if !config.IsBaseline(a) || m.oracle {
			out = append(out, a)
		}
	}
	return out
}

// panelAgents lists the panels of metric m against axis k: one panel (nil
// agent name) for a one-key grid, else one per agent.
func (d *GridData) panelAgents(m gridMetric, k int) []string {
	if len(d.Axes) == 1 {
		return []string{""}
	}
	return d.agentsFor(m)
}

// maxCombos bounds the lines per panel.
const maxCombos = 10

// combos lists the combinations of the values of the axes other than k,
// in grid order, as coordinates (coordinate k is ignored) with labels.
func (d *GridData) combos(k int) (coords [][]int, labels []string) {
	n := 1
	for j, a := range d.Axes {
		if j != k {
			n *= len(a.Labels)
		}
	}
	for i := 0; i < n; i++ {
		c := make([]int, len(d.Axes))
		rest := i
		var parts []string
		for j := len(d.Axes) - 1; j >= 0; j-- {
			if j == k {
				continue
			}
			m := len(d.Axes[j].Labels)
			c[j] = rest % m
			rest /= m
			parts = append([]string{d.Axes[j].Key + " = " + d.Axes[j].Labels[c[j]]}, parts...)
		}
		coords = append(coords, c)
		labels = append(labels, strings.Join(parts, ", "))
	}
	return coords, labels
}

// cell returns the cell of agent at coords, if any.
func (d *GridData) cell(agent string, coords []int) (GridCell, bool) {
	for _, c := range d.Cells {
		if c.Agent == agent && slices.Equal(c.Coords, coords) {
			return c, true
		}
	}
	return GridCell{}, false
}

// hasRegret reports whether any agent other than the oracle has a finite
// mean regret at some point: then the figures and the report show regret.
func (d *GridData) hasRegret() bool {
	for _, c := range d.Cells {
		if !config.IsBaseline(c.Agent) && isFinite(c.CumRegret.Mean) {
			return true
		}
	}
	return false
}

// xPos returns the x positions of axis k's values and whether the axis is
// logarithmic.
func (a GridAxis) xPos() ([]float64, bool) {
	if a.X == nil {
		x := make([]float64, len(a.Labels))
		for i := range x {
			x[i] = float64(i)
		}
		return x, false
	}
	return a.X, a.Log
}

// dodge shifts the x of line j of m so that the interval bars of lines at
// one value do not hide each other: by up to ±1.5% of the axis span.
func dodge(x float64, j, m int, span float64, log bool) float64 {
	if m <= 1 {
		return x
	}
	off := (float64(j) - float64(m-1)/2) / float64(m-1) * 0.03 * span
	if log {
		return x * math.Exp(off)
	}
	return x + off
}

// statNote describes the statistic in titles.
func (d *GridData) statNote() string {
	switch {
	case d.Seeds == 1:
		return "1 seed"
	case d.Seeds > 1:
		return fmt.Sprintf("mean, 95%% CI over %d seeds", d.Seeds)
	}
	return "mean, 95% CI over seeds"
}

// after describes when the statistic is taken.
func (d *GridData) after(m gridMetric) string {
	if m.fig == GridFigReturn {
		return ""
	}
	if d.Episodes > 0 {
		return fmt.Sprintf(" after %d episodes", d.Episodes)
	}
	return " after the last episode"
}

// comboColor is the colour of line j of m: evenly spaced along a
// perceptually ordered colour map, dark to light, so that the order of the
// values shows.
func comboColor(j, m int) color.RGBA {
	cm := moreland.Kindlmann()
	cm.SetMin(0)
	cm.SetMax(1)
	v := 0.12
	if m > 1 {
		v += 0.6 * float64(j) / float64(m-1)
	}
	c, err := cm.At(v)
	if err != nil {
		return rgb(0, 0, 0)
	}
	r, g, b, _ := c.RGBA()
	return rgb(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}

// comboDashes are the dash patterns of the lines of a sweep figure's
// combinations, by index: with the markers they tell lines that lie on
// one another apart where the colours are close.
var comboDashes = [][]vg.Length{
	nil,
	{vg.Points(7), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
	{vg.Points(3.5), vg.Points(3.5)},
	{vg.Points(10), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
}

// gridLine is one line of a sweep figure.
type gridLine struct {
	label string
	style Style
	pts   plotter.XYs
	errs  plotter.YErrors // distances below and above; NaN-free
	bars  []bool          // whether point i has an interval
}

// lineFigure draws metric m against axis k into c.
func (d *GridData) lineFigure(c draw.Canvas, m gridMetric, k int) error {
	ax := d.Axes[k]
	x, logX := ax.xPos()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	span := hi - lo
	if logX {
		span = math.Log(hi / lo)
	}
	if !(span > 0) {
		span = 1
	}
	combos, comboLabels := d.combos(k)
	note := ""
	if len(combos) > maxCombos {
		note = fmt.Sprintf(" (first %d of %d combinations)", maxCombos, len(combos))
		combos, comboLabels = combos[:maxCombos], comboLabels[:maxCombos]
	}
	panels := d.panelAgents(m, k)
	lines, ymin, ymax := d.panelLines(m, k, panels, combos, comboLabels, span)
	total := 0
	for _, ls := range lines {
		total += len(ls)
	}
	if total == 0 {
		return errNoData
	}
	if ymin == ymax {
		ymin, ymax = ymin-1, ymax+1
	}
	pad := 0.05 * (ymax - ymin)
	ymin, ymax = ymin-pad, ymax+pad

	title := fmt.Sprintf("%s%s vs %s (%s)%s", m.what, d.after(m), ax.Key, d.statNote(), note)
	var items []legendItem
	var plots []*plot.Plot
	for p, agent := range panels {
		pl := newPlot(agent, ax.Key, strings.ToLower(m.what[:1])+m.what[1:])
		if agent == "" {
			pl.Title.Text = ""
		}
		pl.Y.Min, pl.Y.Max = ymin, ymax
		setGridX(pl, ax, x, logX, lo, hi)
		for _, l := range lines[p] {
			line, err := plotter.NewLine(l.pts)
			if err != nil {
				return err
			}
			line.Color, line.Width, line.Dashes = l.style.Color, lineWidth, l.style.Dashes
			sc, err := plotter.NewScatter(l.pts)
			if err != nil {
				return err
			}
			sc.GlyphStyle = glyphStyle(l.style, vg.Points(4))
			addLean(pl, line, sc)
			if bars, err := errorBars(l); err != nil {
				return err
			} else if bars != nil {
				addLean(pl, bars)
			}
			if p == 0 || len(panels) == 1 {
				items = append(items, legendItem{Label: l.label, Thumbs: []plot.Thumbnailer{line, sc}})
			}
		}
		plots = append(plots, pl)
	}
	if len(panels) > 1 {
		items = sharedLegend(lines)
	}
	items = append(items, legendItem{Label: "95% CI", Thumbs: []plot.Thumbnailer{ciThumb{}}})
	drawPanels(c, title, plots, items)
	return nil
}

// panelLines returns the lines of each panel of the line figure of metric
// m against axis k, one per agent (one key) or per combination of the
// other keys' values, and the range of their values and intervals.
func (d *GridData) panelLines(m gridMetric, k int, panels []string, combos [][]int, comboLabels []string, span float64) (lines [][]gridLine, ymin, ymax float64) {
	ax := d.Axes[k]
	x, logX := ax.xPos()
	lines = make([][]gridLine, len(panels))
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for p, agent := range panels {
		type spec struct {
			label  string
			style  Style
			agent  string
			coords []int
		}
		var specs []spec
		if agent == "" {
			for _, a := range d.agentsFor(m) {
				specs = append(specs, spec{a, AgentStyle(a), a, combos[0]})
			}
		} else {
			for j, cc := range combos {
				st := Style{Color: comboColor(j, len(combos)), Glyph: fallbackGlyphs[j%len(fallbackGlyphs)], Dashes: comboDashes[j%len(comboDashes)]}
				specs = append(specs, spec{comboLabels[j], st, agent, cc})
			}
		}
		for j, s := range specs {
			l := gridLine{label: s.label, style: s.style}
			for i := range ax.Labels {
				coords := append([]int(nil), s.coords...)
				coords[k] = i
				cell, ok := d.cell(s.agent, coords)
				st := m.get(cell)
				if !ok || !isFinite(st.Mean) {
					continue
				}
				l.pts = append(l.pts, plotter.XY{X: dodge(x[i], j, len(specs), span, logX), Y: st.Mean})
				has := isFinite(st.Lo) && isFinite(st.Hi)
				e := struct{ Low, High float64 }{}
				if has {
					e = struct{ Low, High float64 }{Low: math.Max(st.Mean-st.Lo, 0), High: math.Max(st.Hi-st.Mean, 0)}
					ymin, ymax = math.Min(ymin, st.Lo), math.Max(ymax, st.Hi)
				}
				ymin, ymax = math.Min(ymin, st.Mean), math.Max(ymax, st.Mean)
				l.errs = append(l.errs, e)
				l.bars = append(l.bars, has)
			}
			if len(l.pts) > 0 {
				lines[p] = append(lines[p], l)
			}
		}
	}
	return lines, ymin, ymax
}

// sharedLegend is the legend of a line figure of several panels: every
// panel has the same combinations, so one entry per label serves all, but
// only for the lines some panel has.
func sharedLegend(lines [][]gridLine) []legendItem {
	var items []legendItem
	seen := map[string]bool{}
	for _, ls := range lines {
		for _, l := range ls {
			if seen[l.label] {
				continue
			}
			seen[l.label] = true
			line, _ := plotter.NewLine(l.pts)
			line.Color, line.Width, line.Dashes = l.style.Color, lineWidth, l.style.Dashes
			sc, _ := plotter.NewScatter(l.pts[:1])
			sc.GlyphStyle = glyphStyle(l.style, vg.Points(4))
			items = append(items, legendItem{Label: l.label, Thumbs: []plot.Thumbnailer{line, sc}})
		}
	}
	return items
}

// errorBars returns the interval bars of line l, or nil when it has none.
func errorBars(l gridLine) (*plotter.YErrorBars, error) {
	var pts errPoints
	for i, has := range l.bars {
		if has {
			pts.XYs = append(pts.XYs, l.pts[i])
			pts.YErrors = append(pts.YErrors, l.errs[i])
		}
	}
	if len(pts.XYs) == 0 {
		return nil, nil
	}
	b, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, err
	}
	b.LineStyle.Color = l.style.Color
	b.LineStyle.Width = vg.Points(1.2)
	b.CapWidth = vg.Points(6)
	return b, nil
}

type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// ciThumb is the legend thumbnail of the interval bars: a grey bar with
// caps.
type ciThumb struct{}

func (ciThumb) Thumbnail(c *draw.Canvas) {
	sty := draw.LineStyle{Color: rgb(90, 90, 90), Width: vg.Points(1.2)}
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(sty, x-vg.Points(3), c.Min.Y, x+vg.Points(3), c.Min.Y)
	c.StrokeLine2(sty, x-vg.Points(3), c.Max.Y, x+vg.Points(3), c.Max.Y)
}

// setGridX sets the x axis of a sweep figure: the grid's values as ticks
// (at most 12; else the usual ticks), a log scale for log-spaced values,
// and a little room either side.
func setGridX(pl *plot.Plot, ax GridAxis, x []float64, logX bool, lo, hi float64) {
	if logX {
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = logTicks{}
		f := math.Pow(hi/lo, 0.06)
		if hi == lo {
			f = 2
		}
		pl.X.Min, pl.X.Max = lo/f, hi*f
	} else {
		pad := 0.06 * (hi - lo)
		if ax.X == nil || hi == lo {
			pad = 0.5
		}
		pl.X.Min, pl.X.Max = lo-pad, hi+pad
	}
	if len(x) <= 12 && !(ax.Drawn && ax.X != nil) {
		ticks := make(plot.ConstantTicks, len(x))
		for i := range x {
			ticks[i] = plot.Tick{Value: x[i], Label: ax.Labels[i]}
		}
		pl.X.Tick.Marker = ticks
	}
	if ax.X == nil {
		pl.X.Tick.Label.Rotation = 0
	}
}

// drawPanels draws a title, the panels in rows of up to three, and a
// legend to their right into c.
func drawPanels(c draw.Canvas, title string, plots []*plot.Plot, items []legendItem) {
	c = draw.Crop(c, margin, -margin, margin, -margin)
	ts := text.Style{Font: sans(titleSize), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	l := newLegend(items, legendSize)
	gap := vg.Points(10)
	width := l.Rectangle(c).Size().X + gap + vg.Points(8)
	pc := draw.Crop(c, 0, -width, 0, 0)
	fitText(&ts, title, pc.Max.X-pc.Min.X)
	c.FillText(ts, vg.Point{X: (pc.Min.X + pc.Max.X) / 2, Y: c.Max.Y}, title)
	pc = draw.Crop(pc, 0, 0, 0, -(ts.Height(title) + vg.Points(8)))
	cols := min(len(plots), 3)
	rows := (len(plots) + cols - 1) / cols
	w := (pc.Max.X - pc.Min.X) / vg.Length(cols)
	h := (pc.Max.Y - pc.Min.Y) / vg.Length(rows)
	top := pc.Max.Y
	for i, p := range plots {
		r, col := i/cols, i%cols
		cell := draw.Canvas{Canvas: pc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: pc.Min.X + vg.Length(col)*w, Y: top - vg.Length(r+1)*h},
			Max: vg.Point{X: pc.Min.X + vg.Length(col+1)*w, Y: top - vg.Length(r)*h},
		}}
		if len(plots) > 1 {
			cell = draw.Crop(cell, vg.Points(4), -vg.Points(4), vg.Points(4), -vg.Points(4))
		}
		fitText(&p.Title.TextStyle, p.Title.Text, cell.Max.X-cell.Min.X)
		drawPlot(cell, p)
	}
	lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: pc.Max.X + gap, Y: c.Min.Y},
		Max: vg.Point{X: c.Max.X, Y: pc.Max.Y},
	}}
	l.Draw(lc)
}

// heatmap draws metric m of a two-key grid as one panel per agent: axis 0
// across, axis 1 up, a cell per point coloured by the mean on one scale
// for all panels and labelled with it, and a colour bar.
func (d *GridData) heatmap(c draw.Canvas, m gridMetric) error {
	agents := d.agentsFor(m)
	ax, ay := d.Axes[0], d.Axes[1]
	vmin, vmax := math.Inf(1), math.Inf(-1)
	for _, cell := range d.Cells {
		if v := m.get(cell).Mean; isFinite(v) && (!config.IsBaseline(cell.Agent) || m.oracle) {
			vmin, vmax = math.Min(vmin, v), math.Max(vmax, v)
		}
	}
	if math.IsInf(vmin, 0) {
		return errNoData
	}
	if vmin == vmax {
		vmin, vmax = vmin-1, vmax+1
	}
	// Blue (low) through light grey to red (high): both ends stand out
	// from the white background.
	cm := moreland.SmoothBlueRed()
	cm.SetMin(vmin)
	cm.SetMax(vmax)
	var plots []*plot.Plot
	for _, a := range agents {
		pl := newPlot(a, ax.Key, ay.Key)
		if len(agents) == 1 {
			pl.Title.Text = ""
		}
		pl.X.Min, pl.X.Max = -0.5, float64(len(ax.Labels))-0.5
		pl.Y.Min, pl.Y.Max = -0.5, float64(len(ay.Labels))-0.5
		pl.X.Tick.Marker = indexTicks(ax.Labels)
		pl.Y.Tick.Marker = indexTicks(ay.Labels)
		pl.X.Padding, pl.Y.Padding = 0, 0
		// Cell labels: white on dark cells, black on light ones. The cells
		// cover newPlot's grid lines, which are drawn first.
		var dark, light plotter.XYLabels
		for i := range ax.Labels {
			for j := range ay.Labels {
				cell, ok := d.cell(a, []int{i, j})
				v := m.get(cell).Mean
				if !ok || !isFinite(v) {
					continue
				}
				col, err := cm.At(math.Min(math.Max(v, vmin), vmax))
				if err != nil {
					return err
				}
				sq, err := plotter.NewPolygon(plotter.XYs{
					{X: float64(i) - 0.5, Y: float64(j) - 0.5}, {X: float64(i) + 0.5, Y: float64(j) - 0.5},
					{X: float64(i) + 0.5, Y: float64(j) + 0.5}, {X: float64(i) - 0.5, Y: float64(j) + 0.5},
				})
				if err != nil {
					return err
				}
				sq.Color = col
				sq.LineStyle.Color = color.White
				sq.LineStyle.Width = vg.Points(1)
				addLean(pl, sq)
				l := &light
				if luminance(col) < 0.45 {
					l = &dark
				}
				l.XYs = append(l.XYs, plotter.XY{X: float64(i), Y: float64(j)})
				l.Labels = append(l.Labels, number3(v))
			}
		}
		if err := addCellLabels(pl, dark, color.White); err != nil {
			return err
		}
		if err := addCellLabels(pl, light, color.Black); err != nil {
			return err
		}
		plots = append(plots, pl)
	}
	title := fmt.Sprintf("%s%s (mean over seeds in each cell)", m.what, d.after(m))
	if d.Seeds > 0 {
		title = fmt.Sprintf("%s%s (mean over %d seeds in each cell)", m.what, d.after(m), d.Seeds)
	}
	drawHeatPanels(c, title, m.what+" (mean over seeds)", plots, cm, vmin, vmax)
	return nil
}

// number3 formats a cell label with three significant digits.
func number3(x float64) string {
	return strings.Replace(fmt.Sprintf("%.3g", x), "e+0", "e+", 1)
}

// luminance is the relative luminance of c in [0, 1].
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 65535
}

// addCellLabels adds the labels l in colour col.
func addCellLabels(pl *plot.Plot, l plotter.XYLabels, col color.Color) error {
	if len(l.XYs) == 0 {
		return nil
	}
	lb, err := plotter.NewLabels(l)
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i] = text.Style{Color: col, Font: sans(tickSize), Handler: plot.DefaultTextHandler,
			XAlign: draw.XCenter, YAlign: draw.YCenter}
	}
	addLean(pl, lb)
	return nil
}

// indexTicks labels positions 0, 1, … with labels.
func indexTicks(labels []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(labels))
	for i, l := range labels {
		t[i] = plot.Tick{Value: float64(i), Label: l}
	}
	return t
}

// drawHeatPanels draws the title, the heat map panels and a colour bar
// for [vmin, vmax] to their right, labelled with what the colour shows.
func drawHeatPanels(c draw.Canvas, title, barLabel string, plots []*plot.Plot, cm interface {
	At(float64) (color.Color, error)
}, vmin, vmax float64) {
	c = draw.Crop(c, margin, -margin, margin, -margin)
	barW := vg.Points(90)
	pc := draw.Crop(c, 0, -barW, 0, 0)
	ts := text.Style{Font: sans(titleSize), Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	fitText(&ts, title, c.Max.X-c.Min.X)
	c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}, title)
	pc = draw.Crop(pc, 0, 0, 0, -(ts.Height(title) + vg.Points(8)))
	cols := min(len(plots), 3)
	rows := (len(plots) + cols - 1) / cols
	w := (pc.Max.X - pc.Min.X) / vg.Length(cols)
	h := (pc.Max.Y - pc.Min.Y) / vg.Length(rows)
	for i, p := range plots {
		r, col := i/cols, i%cols
		cell := draw.Canvas{Canvas: pc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: pc.Min.X + vg.Length(col)*w, Y: pc.Max.Y - vg.Length(r+1)*h},
			Max: vg.Point{X: pc.Min.X + vg.Length(col+1)*w, Y: pc.Max.Y - vg.Length(r)*h},
		}}
		if len(plots) > 1 {
			cell = draw.Crop(cell, vg.Points(4), -vg.Points(4), vg.Points(4), -vg.Points(4))
		}
		drawPlot(cell, p)
	}
	// The colour bar: a column of 100 bands with ticks on the right.
	bar := plot.New()
	bar.X.Tick.Marker = plot.ConstantTicks{}
	bar.X.Min, bar.X.Max = 0, 1
	bar.Y.Min, bar.Y.Max = vmin, vmax
	bar.Y.Tick.Marker = linTicks{}
	bar.Y.Tick.Label.Font = sans(tickSize)
	bar.Y.Label.Text = barLabel
	bar.Y.Label.TextStyle.Font = sans(tickSize)
	const bands = 100
	for i := 0; i < bands; i++ {
		y0 := vmin + (vmax-vmin)*float64(i)/bands
		y1 := vmin + (vmax-vmin)*float64(i+1)/bands
		col, err := cm.At(math.Min((y0+y1)/2, vmax))
		if err != nil {
			continue
		}
		// Each band overlaps the next by half a band: no seams.
		top := math.Min(y1+(y1-y0)/2, vmax)
		poly, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: y0}, {X: 1, Y: y0}, {X: 1, Y: top}, {X: 0, Y: top}})
		if err != nil {
			continue
		}
		poly.Color = col
		poly.LineStyle.Width = 0
		bar.Add(poly)
	}
	bc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: pc.Max.X + vg.Points(20), Y: pc.Min.Y + vg.Points(30)},
		Max: vg.Point{X: c.Max.X, Y: pc.Max.Y - vg.Points(20)},
	}}
	bar.Draw(bc)
}
