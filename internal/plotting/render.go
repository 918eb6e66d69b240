package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	// Register the output formats with draw.NewFormattedCanvas.
	_ "gonum.org/v1/plot/vg/vgimg"
	_ "gonum.org/v1/plot/vg/vgpdf"
	_ "gonum.org/v1/plot/vg/vgsvg"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Options controls the output format and size of the figures.
type Options struct {
	// Format is "png" (the default when empty), "svg" or "pdf".
	Format string
	// Width and Height are the figure size; zero means 800 × 600 pixels
	// at 96 dpi (600 × 450 pt), which is also the physical size of svg
	// and pdf output.
	Width, Height vg.Length
	// Horizon is the number of steps per episode H; when positive the
	// plus_count y axis spans [0, H]. Zero fits the axis to the data.
	Horizon int
	// SMin and SMax bound the states of the mdp and densities figures;
	// both zero means the paper's [−3, 3].
	SMin, SMax float64
}

// Default figure size: 800 × 600 px at vgimg's 96 dpi.
const (
	DefaultWidth  = 800 * vg.Inch / 96
	DefaultHeight = 600 * vg.Inch / 96
)

// normalize returns opt with defaults filled in, or an error for an
// unsupported format or a negative size.
func (opt Options) normalize() (Options, error) {
	switch opt.Format {
	case "":
		opt.Format = "png"
	case "png", "svg", "pdf":
	default:
		return opt, errs.Invalid(fmt.Errorf("plot format %q: want png, svg or pdf", opt.Format))
	}
	if opt.Width < 0 || opt.Height < 0 {
		return opt, errs.Invalid(fmt.Errorf("plot size %v×%v: must not be negative", opt.Width, opt.Height))
	}
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height == 0 {
		opt.Height = DefaultHeight
	}
	if opt.Horizon < 0 {
		return opt, errs.Invalid(fmt.Errorf("horizon %d: must not be negative", opt.Horizon))
	}
	if opt.SMin == 0 && opt.SMax == 0 {
		opt.SMin, opt.SMax = -3, 3
	}
	if !(opt.SMin < opt.SMax) || math.IsInf(opt.SMin, 0) || math.IsInf(opt.SMax, 0) {
		return opt, errs.Invalid(fmt.Errorf("state range [%v, %v]: want finite SMin < SMax", opt.SMin, opt.SMax))
	}
	return opt, nil
}

// Font sizes of single-panel figures, readable at 800 × 600 px.
const (
	titleSize  = 15
	labelSize  = 13
	tickSize   = 11
	legendSize = 12
)

// sans is the package's font: Liberation Sans at size points.
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// margin is the blank border around every figure.
var margin = vg.Points(8)

// newPlot returns a plot with the package's fonts, a title, axis labels and
// a light grid.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(titleSize)
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = sans(labelSize)
		ax.Tick.Label.Font = sans(tickSize)
		ax.Tick.Marker = linTicks{}
	}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// series is one agent's curve: a mean with an optional interval.
type series struct {
	Name  string
	Style Style
	X, Y  []float64
	Lo    []float64 // nil: no band
	Hi    []float64
}

// finitePoints returns the points of xs, ys whose y is finite.
func finitePoints(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, 0, len(xs))
	for i := range xs {
		if !math.IsNaN(ys[i]) && !math.IsInf(ys[i], 0) && !math.IsNaN(xs[i]) && !math.IsInf(xs[i], 0) {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	return pts
}

// band returns the polygon lo (left to right) then hi (right to left) of
// the points where mean, lo and hi are all finite, or nil when fewer than
// two such points exist.
func band(xs, lo, hi []float64, c color.RGBA) (*plotter.Polygon, error) {
	var l, h plotter.XYs
	for i := range xs {
		if isFinite(xs[i]) && isFinite(lo[i]) && isFinite(hi[i]) {
			l = append(l, plotter.XY{X: xs[i], Y: lo[i]})
			h = append(h, plotter.XY{X: xs[i], Y: hi[i]})
		}
	}
	if len(l) < 2 {
		return nil, nil
	}
	ring := make(plotter.XYs, 0, 2*len(l))
	ring = append(ring, l...)
	for i := len(h) - 1; i >= 0; i-- {
		ring = append(ring, h[i])
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.Color = withAlpha(c, bandAlpha)
	poly.LineStyle.Width = 0
	return poly, nil
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// markerEvery is the target number of markers per curve; markers sit on a
// subset of the points so that long runs stay readable.
const markerEvery = 10

// lineWidth is the width of mean lines.
var lineWidth = vg.Points(1.8)

// addSeries adds every series' band, then every line, then every marker to
// p (so that no band hides a line) and returns one legend item per series.
// With logY, non-positive values are dropped.
func addSeries(p *plot.Plot, ss []series) ([]legendItem, error) {
	for _, s := range ss {
		if s.Lo == nil {
			continue
		}
		poly, err := band(s.X, s.Lo, s.Hi, s.Style.Color)
		if err != nil {
			return nil, fmt.Errorf("band of %s: %w", s.Name, err)
		}
		if poly != nil {
			p.Add(poly)
		}
	}
	var items []legendItem
	var scatters []plot.Plotter
	for k, s := range ss {
		pts := finitePoints(s.X, s.Y)
		if len(pts) == 0 {
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("line of %s: %w", s.Name, err)
		}
		line.Color = s.Style.Color
		line.Width = lineWidth
		line.Dashes = s.Style.Dashes
		// Markers on a subset of points, staggered per series so that
		// overlapping curves still show every marker.
		step := max(1, (len(pts)+markerEvery-1)/markerEvery)
		var mk plotter.XYs
		for i := (k * max(1, step/3)) % step; i < len(pts); i += step {
			mk = append(mk, pts[i])
		}
		if len(mk) == 0 {
			mk = pts[:1]
		}
		sc, err := plotter.NewScatter(mk)
		if err != nil {
			return nil, fmt.Errorf("markers of %s: %w", s.Name, err)
		}
		sc.GlyphStyle = glyphStyle(s.Style, vg.Points(4))
		p.Add(line)
		scatters = append(scatters, sc)
		items = append(items, legendItem{Label: s.Name, Thumbs: []plot.Thumbnailer{line, sc}})
	}
	p.Add(scatters...)
	return items, nil
}

// glyphStyle is the marker of style s at radius r.
func glyphStyle(s Style, r vg.Length) draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.Color, Radius: r, Shape: s.Glyph}
}

// bandLegend is the legend item explaining the shaded bands.
func bandLegend() legendItem {
	return legendItem{Label: "95% CI (shaded)", Thumbs: []plot.Thumbnailer{&plotter.Polygon{
		Color: withAlpha(rgb(0, 0, 0), bandAlpha),
	}}}
}

// legendItem is one legend entry: a label and the thumbnails drawn next to
// it.
type legendItem struct {
	Label  string
	Thumbs []plot.Thumbnailer
}

// newLegend returns a legend with the package's font holding items.
func newLegend(items []legendItem, size vg.Length) plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = sans(size)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(30)
	l.Padding = size / 3
	for _, it := range items {
		l.Add(it.Label, it.Thumbs...)
	}
	return l
}

// drawWithLegend draws p into c and its legend as a column to the right of
// the data area, outside it, so that it never hides a curve.
func drawWithLegend(c draw.Canvas, p *plot.Plot, items []legendItem) {
	c = draw.Crop(c, margin, -margin, margin, -margin)
	if len(items) == 0 {
		p.Draw(c)
		return
	}
	l := newLegend(items, legendSize)
	gap := vg.Points(10)
	width := l.Rectangle(c).Size().X + gap + vg.Points(8)
	pc := draw.Crop(c, 0, -width, 0, 0)
	p.Draw(pc)
	data := p.DataCanvas(pc)
	lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: pc.Max.X + gap, Y: c.Min.Y},
		Max: vg.Point{X: c.Max.X, Y: data.Max.Y},
	}}
	l.Draw(lc)
}

// writeFigure renders draw into a canvas of the options' size and format
// and writes it to path. A partly written file is removed.
func writeFigure(path string, opt Options, render func(c draw.Canvas) error) (err error) {
	cv, err := draw.NewFormattedCanvas(opt.Width, opt.Height, opt.Format)
	if err != nil {
		return fmt.Errorf("figure %s: %w", path, err)
	}
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if err := render(dc); err != nil {
		return fmt.Errorf("figure %s: %w", path, err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("writing %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if _, err := cv.WriteTo(f); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// safeDraw runs f and converts a panic inside gonum/plot (which panics on
// some degenerate inputs, e.g. a non-positive value on a log axis) into an
// error, so that bad data never crashes the caller.
func safeDraw(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing: %v", r)
		}
	}()
	return f()
}

// errNoData is returned by figure builders that have nothing to draw.
var errNoData = errors.New("no data to draw")
