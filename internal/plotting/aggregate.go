package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The aggregate figures (package aggregate writes their data).
const (
	FigIntervals = "interval_estimates"
	FigProfile   = "performance_profile"
)

func init() {
	register(Figure{
		Name: FigIntervals, Order: 120, Source: FromAggregate, Columns: "aggregate.csv (agent, metric, value, lo, hi)", Places: InRun | InSweep,
		Caption: "Aggregate metrics of the per-seed score (mean return per episode of a seed, or over its final episodes): mean, median, interquartile mean and optimality gap against the oracle, each with its 95% stratified percentile-bootstrap interval (rliable).",
		Doc: DocLine{When: "every run and sweep (the directory holds `aggregate.csv`)",
			Shows: "mean, median, IQM and optimality gap of the per-seed score per agent, each with its 95% stratified bootstrap interval ([statistics.md](statistics.md)); a sweep's over every point, stratified by point"},
		run: func(in *runInputs) *drawing {
			if in.agg == nil {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error {
				return intervalsFigure(c, in.agg, aggregateTitle("Aggregate metrics of the per-seed score", in.sum))
			}}
		},
		sweep: func(in *sweepInputs) *drawing {
			return &drawing{build: func(c draw.Canvas) error {
				return intervalsFigure(c, in.agg, "Aggregate metrics of the per-seed score over every point (stratified by point)")
			}}
		},
	}, Figure{
		Name: FigProfile, Order: 130, Source: FromAggregate, Columns: "profile.csv (agent, tau, fraction, lo, hi)", Places: InRun | InSweep,
		Caption: "Performance profile: the fraction of each agent's seeds whose score exceeds τ, with its 95% stratified bootstrap band.",
		Doc: DocLine{When: "every run and sweep (the directory holds `profile.csv`)",
			Shows: "the fraction of each agent's seeds whose score exceeds τ, with its 95% bootstrap band"},
		run: func(in *runInputs) *drawing {
			if in.agg == nil {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error {
				return profileFigure(c, in.agg, aggregateTitle("Performance profile", in.sum))
			}}
		},
		sweep: func(in *sweepInputs) *drawing {
			return &drawing{build: func(c draw.Canvas) error {
				return profileFigure(c, in.agg, "Performance profile over every point")
			}}
		},
	})
}

// The aggregate files of a results or sweep directory.
const (
	aggregateFile   = "aggregate.csv"
	profileFile     = "profile.csv"
	improvementFile = "improvement.csv"
)

// aggregateMetrics are the metrics of aggregate.csv in panel order, with
// their axis labels.
var aggregateMetrics = []struct{ name, label string }{
	{"mean", "mean"},
	{"median", "median"},
	{"iqm", "IQM"},
	{"optimality_gap", "optimality gap"},
}

// estimate is a value with a 95% interval.
type estimate struct{ value, lo, hi float64 }

// aggregateData is a parsed aggregate.csv and profile.csv.
type aggregateData struct {
	Agents  []string                       // in file order
	Metrics map[string]map[string]estimate // metric → agent → estimate
	Profile map[string][]profilePoint      // agent → points, τ ascending
}

type profilePoint struct {
	tau float64
	estimate
}

// readAggregate reads dir/aggregate.csv and dir/profile.csv; it returns
// nil and no error when the directory has neither (results of an smrl
// that did not write them).
func readAggregate(dir string) (*aggregateData, error) {
	apath, ppath := filepath.Join(dir, aggregateFile), filepath.Join(dir, profileFile)
	_, errA := os.Stat(apath)
	_, errP := os.Stat(ppath)
	if errors.Is(errA, fs.ErrNotExist) && errors.Is(errP, fs.ErrNotExist) {
		return nil, nil
	}
	a, err := readTable(apath, []string{"agent", "metric", "value", "lo", "hi"})
	if err != nil {
		return nil, err
	}
	d := &aggregateData{Metrics: map[string]map[string]estimate{}, Profile: map[string][]profilePoint{}}
	seen := map[string]bool{}
	est := func(t *table, i int) (estimate, error) {
		var e estimate
		var err error
		if e.value, err = t.float(i, "value"); err == nil {
			if e.lo, err = t.float(i, "lo"); err == nil {
				e.hi, err = t.float(i, "hi")
			}
		}
		return e, err
	}
	for i := range a.rows {
		ag, err := a.agent(i, "agent")
		if err != nil {
			return nil, err
		}
		m := a.cell(i, "metric").Text
		e, err := est(a, i)
		if err != nil {
			return nil, err
		}
		if !seen[ag] {
			seen[ag] = true
			d.Agents = append(d.Agents, ag)
		}
		if d.Metrics[m] == nil {
			d.Metrics[m] = map[string]estimate{}
		}
		d.Metrics[m][ag] = e
	}
	p, err := readTable(ppath, []string{"agent", "tau", "fraction", "lo", "hi"})
	if err != nil {
		return nil, err
	}
	for i := range p.rows {
		ag, err := p.agent(i, "agent")
		if err != nil {
			return nil, err
		}
		tau, err := p.float(i, "tau")
		if err != nil {
			return nil, err
		}
		var e estimate
		if e.value, err = p.float(i, "fraction"); err == nil {
			if e.lo, err = p.float(i, "lo"); err == nil {
				e.hi, err = p.float(i, "hi")
			}
		}
		if err != nil {
			return nil, err
		}
		pts := d.Profile[ag]
		if len(pts) > 0 && !(tau > pts[len(pts)-1].tau) {
			return nil, lineErr(ppath, i+2, fmt.Errorf("tau %v does not increase for agent %s", tau, ag))
		}
		d.Profile[ag] = append(pts, profilePoint{tau, e})
	}
	return d, nil
}

// scoreNote is the x-axis label of the aggregate figures.
const scoreNote = "per-seed score"

// intervalsFigure draws one panel per metric of aggregate.csv: each
// agent's point estimate (a tick) and its 95% bootstrap interval (a bar),
// agents on the y axis, as rliable's interval-estimate plots.
func intervalsFigure(c draw.Canvas, d *aggregateData, title string) error {
	if d == nil || len(d.Agents) == 0 {
		return errNoData
	}
	var panels []*plot.Plot
	agents := d.Agents
	n := len(agents)
	for _, m := range aggregateMetrics {
		vals := d.Metrics[m.name]
		if len(vals) == 0 {
			continue
		}
		p := panelPlot("")
		p.X.Label.Text = m.label
		p.X.Tick.Marker = linTicks{}
		p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
		ticks := make(plot.ConstantTicks, n)
		for i, a := range agents {
			ticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: a}
		}
		if len(panels) > 0 {
			for i := range ticks {
				ticks[i].Label = ""
			}
		}
		p.Y.Tick.Marker = ticks
		p.Y.Tick.Label.Font = sans(panelLabelSize)
		g := plotter.NewGrid()
		g.Horizontal.Color = color.Transparent
		g.Vertical.Color = color.Gray{Y: 225}
		addLean(p, g)
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, a := range agents {
			e, ok := vals[a]
			if !ok || !isFinite(e.value) {
				continue
			}
			y := float64(n - 1 - i)
			st := AgentStyle(a)
			const half = 0.28
			bar, err := plotter.NewPolygon(plotter.XYs{{X: e.lo, Y: y - half}, {X: e.hi, Y: y - half}, {X: e.hi, Y: y + half}, {X: e.lo, Y: y + half}})
			if err != nil {
				return err
			}
			bar.Color = withAlpha(st.Color, 0.45)
			bar.LineStyle.Width = 0
			tick, err := plotter.NewLine(plotter.XYs{{X: e.value, Y: y - half - 0.06}, {X: e.value, Y: y + half + 0.06}})
			if err != nil {
				return err
			}
			tick.Color = st.Color
			tick.Width = vg.Points(2.5)
			addLean(p, bar, tick)
			lo, hi = min(lo, e.lo, e.value), max(hi, e.hi, e.value)
		}
		if !(hi >= lo) {
			continue
		}
		pad := 0.08 * (hi - lo)
		if pad == 0 {
			pad = 0.05 * max(math.Abs(hi), 1)
		}
		p.X.Min, p.X.Max = lo-pad, hi+pad
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return errNoData
	}
	items := []legendItem{{Label: "point estimate (line) and 95% stratified bootstrap CI (bar)", Thumbs: []plot.Thumbnailer{
		&plotter.Polygon{Color: withAlpha(rgb(0, 0, 0), 0.45)}}}}
	gc := titledPanels(c, title, items)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Points(12), PadLeft: vg.Points(2), PadRight: vg.Points(8), PadBottom: vg.Points(2)}
	canvases := plot.Align([][]*plot.Plot{panels}, tiles, gc)
	for k, p := range panels {
		p.Draw(canvases[0][k])
	}
	return nil
}

// profileFigure draws each agent's performance profile, the fraction of
// its runs with score > τ as a step function of τ, with its 95% bootstrap
// band.
func profileFigure(c draw.Canvas, d *aggregateData, title string) error {
	if d == nil {
		return errNoData
	}
	var ss []series
	for _, a := range d.Agents {
		pts := d.Profile[a]
		if len(pts) == 0 {
			continue
		}
		s := series{Name: a, Style: AgentStyle(a)}
		for i, q := range pts {
			// right-continuous steps: the value at τ_i holds until τ_{i+1}
			s.X = append(s.X, q.tau)
			s.Y, s.Lo, s.Hi = append(s.Y, q.value), append(s.Lo, q.lo), append(s.Hi, q.hi)
			if i+1 < len(pts) {
				s.X = append(s.X, pts[i+1].tau)
				s.Y, s.Lo, s.Hi = append(s.Y, q.value), append(s.Lo, q.lo), append(s.Hi, q.hi)
			}
		}
		ss = append(ss, s)
	}
	p := newPlot(title, "τ: "+scoreNote, "fraction of runs with score > τ")
	p.Y.Min, p.Y.Max = 0, 1
	return bandFigure(c, p, ss)
}

// aggregateTitle describes the runs behind the aggregate figures.
func aggregateTitle(what string, sum *summaryData) string {
	if sum == nil {
		return what
	}
	return fmt.Sprintf("%s (%d seeds per agent)", what, sum.maxSeeds())
}

// improvementTable returns the probabilities of improvement of
// dir/improvement.csv as a matrix: a row per agent X, a column per agent Y,
// the cell P(X > Y) [95% CI] ("–" on the diagonal), agents in the file's
// order; without rows when the file is missing or has no pairs (a run of
// one agent). Five agents make a 5 × 5 table, not 20 rows of pairs.
func improvementTable(dir string) (reportTable, error) {
	t := reportTable{Head: []string{"X"}}
	path := filepath.Join(dir, improvementFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && strings.Count(strings.TrimSpace(string(raw)), "\n") == 0) {
		return t, nil
	}
	csv, err := readTable(path, []string{"agent_x", "agent_y", "probability", "lo", "hi"})
	if err != nil {
		return t, err
	}
	var agents []string
	cells := map[[2]string]string{}
	for i := range csv.rows {
		x, err := csv.agent(i, "agent_x")
		if err != nil {
			return t, err
		}
		y, err := csv.agent(i, "agent_y")
		if err != nil {
			return t, err
		}
		var e estimate
		if e.value, err = csv.float(i, "probability"); err == nil {
			if e.lo, err = csv.float(i, "lo"); err == nil {
				e.hi, err = csv.float(i, "hi")
			}
		}
		if err != nil {
			return t, err
		}
		cells[[2]string{x, y}] = interval(e.value, e.lo, e.hi)
		for _, a := range []string{x, y} {
			if !slices.Contains(agents, a) {
				agents = append(agents, a)
			}
		}
	}
	for _, y := range agents {
		t.Head = append(t.Head, "Y = "+y)
	}
	for _, x := range agents {
		row := []string{x}
		for _, y := range agents {
			c, ok := cells[[2]string{x, y}]
			if !ok {
				c = "–"
			}
			row = append(row, c)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// aggregateIntro explains the aggregate tables of a report (Markdown code
// spans in backquotes).
const aggregateIntro = "Per-seed score: the seed's mean return per episode (or over its final episodes with `stats.score: final`). " +
	"95% stratified percentile-bootstrap intervals (rliable); IQM is the mean of the middle 50% of the runs; " +
	"the optimality gap is the mean shortfall against the oracle on the same seed. Data: `aggregate.csv`, `improvement.csv`, `profile.csv`."

// improvementIntro introduces the probability-of-improvement table.
const improvementIntro = "Probability of improvement of the row's agent X over the column's Y, P(X > Y) + ½ P(X = Y) over all pairs of seeds, with its 95% bootstrap interval (P(Y > X) = 1 − P(X > Y)):"

// aggregateReport is a report's section of the aggregate metrics: a row
// per agent with its metrics, and the probability of improvement of every
// ordered pair of agents.
type aggregateReport struct {
	metrics, improvement reportTable
}

// aggregateTables returns the aggregate section of the report of dir,
// whose aggregate files d holds (nil: none, and so no section).
func aggregateTables(dir string, d *aggregateData) (*aggregateReport, error) {
	if d == nil {
		return nil, nil
	}
	r := &aggregateReport{metrics: reportTable{Head: []string{"agent"}}}
	var ms []string
	for _, m := range aggregateMetrics {
		if len(d.Metrics[m.name]) > 0 {
			ms = append(ms, m.name)
			r.metrics.Head = append(r.metrics.Head, m.label)
		}
	}
	for _, a := range d.Agents {
		row := []string{a}
		for _, m := range ms {
			cell := "–"
			if e, ok := d.Metrics[m][a]; ok {
				cell = interval(e.value, e.lo, e.hi)
			}
			row = append(row, cell)
		}
		r.metrics.Rows = append(r.metrics.Rows, row)
	}
	var err error
	r.improvement, err = improvementTable(dir)
	return r, err
}

// markdown returns the section in Markdown ("" for nil r), its
// explanation led by lead.
func (r *aggregateReport) markdown(lead string) string {
	if r == nil {
		return ""
	}
	s := "\n## Aggregate metrics\n\n" + lead + aggregateIntro + "\n\n" + r.metrics.markdown()
	if len(r.improvement.Rows) > 0 {
		s += "\n" + improvementIntro + "\n\n" + r.improvement.markdown()
	}
	return s
}

// AggregateFigures draws the sweep figures registered from the aggregate
// files (the interval estimates and the performance profile) of dir (a
// sweep directory, whose aggregate is stratified by point) into outDir and
// returns their paths; none when dir has no aggregate files.
func AggregateFigures(dir, outDir string, opt Options) ([]string, error) {
	opt, err := opt.normalize()
	if err != nil {
		return nil, err
	}
	agg, err := readAggregate(dir)
	if err != nil || agg == nil {
		return nil, err
	}
	var out []string
	for _, f := range sweepFigures(FromAggregate, sweepInputs{agg: agg, opt: opt}, 0) {
		path := filepath.Join(outDir, f.name+"."+opt.Format)
		err := writeFigure(path, opt, func(c draw.Canvas) error { return safeDraw(func() error { return f.build(c) }) })
		if errors.Is(err, errNoData) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}
