package plotting

import (
	"github.com/smrl-dev/smrl/internal/results"
	xdraw "golang.org/x/image/draw"
	"image"

	"bytes"
	"errors"
	"fmt"
	"git.sr.ht/~sbinet/gg"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	// Register the pdf format with draw.NewFormattedCanvas.
	_ "gonum.org/v1/plot/vg/vgpdf"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/outdir"
)

// Options controls the output format and size of the figures.
type Options struct {
	// Format is "png" (the default when empty), "svg" or "pdf".
	Format string
	// Width and Height are the figure size; zero means 800 × 600 pixels
	// at 96 dpi (600 × 450 pt). Each side must lie in [100, 20000] px
	// (75–15000 pt). For png the figure is laid out at about the default
	// size and rendered at the resolution that gives Width × Height
	// pixels (Width·96/72 px wide), so a larger size is a sharper copy of
	// the same figure rather than one with smaller text. For svg and pdf
	// the size is the physical page size and fonts keep their point
	// sizes.
	Width, Height vg.Length
	// Horizon is the number of steps per episode H; when positive the
	// plus_count y axis spans [0, H], and the steps of episodes.csv are
	// checked to be at most H. Zero fits the axis to the data.
	Horizon int
	// Episodes and Seeds, when positive, are the run's numbers of
	// episodes and seeds (its config): the episode, seed and seeds
	// columns of its files are checked against them.
	Episodes, Seeds int
	// Marginals, when not nil, supplies the marginals figure.
	Marginals MarginalSource
	// Actions are the run's discrete actions (env.actions), which label
	// the lines of the actions figure; nil labels them by index.
	Actions [][]float64
	// SMin and SMax bound the states of the mdp and densities figures;
	// both zero means the paper's [−3, 3].
	SMin, SMax float64
	// Columns, when not nil, are the measures that suit the run's task
	// (results.Columns): the cumulative reward figure is drawn only with
	// Cumulative, the plus count figure only with PlusCount. nil draws
	// every figure the data allow.
	Columns *results.Columns
	// Smooth, when above 1, draws the per-episode figures (return,
	// episode_length, plus_count) as trailing moving averages over Smooth
	// episodes: mean, lo and hi each averaged over the window (shorter at
	// the start), as their titles say.
	Smooth int
	// SeedLines draws each seed's values as thin lines under the means in
	// the figures over episodes.
	SeedLines bool
	// InTrueFamily, when not nil, says which agents' Ŵ lives in the true
	// family (config.InTrueFamily): the W-error figure draws only those.
	// nil draws every agent with an error.
	InTrueFamily func(agent string) bool
	// FontSize is the size of the axis labels in points (0: labelSize,
	// 13); every text, line and marker of a figure scales by
	// FontSize/labelSize (writeFigure lays the figure out on a canvas
	// that much smaller and scales it up), so the proportions stay.
	FontSize float64
}

// fontScale is the factor of Options.FontSize over the default sizes.
func (opt Options) fontScale() float64 {
	if opt.FontSize == 0 {
		return 1
	}
	return opt.FontSize / labelSize
}

// Default figure size: 800 × 600 px at vgimg's 96 dpi.
const (
	DefaultWidth  = 800 * vg.Inch / 96
	DefaultHeight = 600 * vg.Inch / 96
)

// Size and resolution limits: no side under 100 px or over 20000 px (at
// 96 dpi), and png resolution between 24 and 960 dpi.
const (
	minSize = 100 * vg.Inch / 96
	maxSize = 20000 * vg.Inch / 96
	minDPI  = 24
	maxDPI  = 960
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
	if opt.Width > maxSize || opt.Height > maxSize || opt.Width < minSize || opt.Height < minSize {
		return opt, errs.Invalid(fmt.Errorf("plot size %.0f×%.0f pt: want each side in [%.0f, %.0f] pt",
			opt.Width.Points(), opt.Height.Points(), minSize.Points(), maxSize.Points()))
	}
	if opt.Smooth < 0 || opt.Smooth > 10_000 {
		return opt, errs.Invalid(fmt.Errorf("smooth %d: want a window of 0 to 10000 episodes", opt.Smooth))
	}
	if opt.FontSize != 0 && !(opt.FontSize >= 6 && opt.FontSize <= 40) {
		return opt, errs.Invalid(fmt.Errorf("font size %v: want 6 to 40 points", opt.FontSize))
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
		ax.Tick.Marker = distinctTicks{linTicks{}}
	}
	if xlabel == "episode" {
		p.X.Tick.Marker = intTicks{} // episodes are integers
	}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	addLean(p, g)
	return p
}

// series is one agent's curve: a mean with an optional interval.
type series struct {
	Name  string
	Style Style
	X, Y  []float64
	Lo    []float64 // nil: no band
	Hi    []float64
	// Reference marks the baseline's curve (the oracle, config.IsBaseline):
	// drawn as a thin dashed grey line without band or markers, under
	// the learners' lines, so that it never hides them.
	Reference bool
}

// referenceColor and referenceDashes draw the baseline's reference line.
var (
	referenceColor  = rgb(70, 70, 70)
	referenceDashes = []vg.Length{vg.Points(5), vg.Points(3)}
)

// finitePoints returns the points of xs, ys where both are finite.
func finitePoints(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, 0, len(xs))
	for i := range xs {
		if isFinite(xs[i]) && isFinite(ys[i]) {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	return pts
}

// band returns the polygon lo (left to right) then hi (right to left) of
// the points where x, lo and hi are all finite, or nil when fewer than
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

// bandEdges returns the outlines of a band: its lower and upper edges as
// thin dotted lines in the agent's colour, so that overlapping bands, whose
// light fills blend, stay apart. nil when fewer than two points are
// finite.
func bandEdges(xs, lo, hi []float64, c color.RGBA) ([]plot.Plotter, error) {
	var out []plot.Plotter
	for _, ys := range [][]float64{lo, hi} {
		var pts plotter.XYs
		for i := range xs {
			if isFinite(xs[i]) && isFinite(lo[i]) && isFinite(hi[i]) {
				pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
			}
		}
		if len(pts) < 2 {
			return nil, nil
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = withAlpha(c, bandEdgeAlpha)
		l.Width = vg.Points(0.9)
		l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(1.5)}
		out = append(out, l)
	}
	return out, nil
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// markersPerCurve is the target number of markers per curve; markers sit
// on a subset of the points so that long runs stay readable.
const markersPerCurve = 10

// lineWidth is the width of mean lines.
var lineWidth = vg.Points(1.8)

// addSeries adds every series' band (a light fill with dotted edges), then
// the reference line of the baseline (series.Reference), then every other
// line, then every marker to p (so that no band hides a line and the
// reference hides no learner) and returns one legend item per series with
// points. Non-finite values are left out.
func addSeries(p *plot.Plot, ss []series) ([]legendItem, error) {
	// Each band's swatch goes under its agent's line in the legend, in
	// the band's own colour.
	swatch := make([]plot.Thumbnailer, len(ss))
	for k, s := range ss {
		if s.Lo == nil || s.Reference {
			continue
		}
		poly, err := band(s.X, s.Lo, s.Hi, s.Style.Color)
		if err != nil {
			return nil, fmt.Errorf("band of %s: %w", s.Name, err)
		}
		if poly != nil {
			edges, err := bandEdges(s.X, s.Lo, s.Hi, s.Style.Color)
			if err != nil {
				return nil, fmt.Errorf("band of %s: %w", s.Name, err)
			}
			addLean(p, poly)
			addLean(p, edges...)
			swatch[k] = &plotter.Polygon{Color: poly.Color, LineStyle: draw.LineStyle{Color: withAlpha(s.Style.Color, bandEdgeAlpha), Width: vg.Points(0.9), Dashes: []vg.Length{vg.Points(1.5), vg.Points(1.5)}}}
		}
	}
	items := make([]legendItem, len(ss))
	var lines, scatters []plot.Plotter
	for k, s := range ss {
		pts := finitePoints(s.X, s.Y)
		if len(pts) == 0 {
			continue
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("line of %s: %w", s.Name, err)
		}
		if s.Reference {
			line.Color, line.Width, line.Dashes = referenceColor, vg.Points(1.3), referenceDashes
			addLean(p, line)
			items[k] = legendItem{Label: s.Name + " (reference)", Thumbs: []plot.Thumbnailer{line}}
			continue
		}
		line.Color = s.Style.Color
		line.Width = lineWidth
		line.Dashes = s.Style.Dashes
		// Markers on a subset of points, staggered per series so that
		// overlapping curves still show every marker.
		step := max(1, (len(pts)+markersPerCurve-1)/markersPerCurve)
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
		lines = append(lines, line)
		scatters = append(scatters, sc)
		thumbs := []plot.Thumbnailer{line, sc}
		if swatch[k] != nil {
			thumbs = []plot.Thumbnailer{swatch[k], line, sc}
		}
		items[k] = legendItem{Label: s.Name, Thumbs: thumbs}
	}
	addLean(p, lines...)
	addLean(p, scatters...)
	var out []legendItem
	for _, it := range items {
		if it.Label != "" {
			out = append(out, it)
		}
	}
	return out, nil
}

// glyphStyle is the marker of style s at radius r.
func glyphStyle(s Style, r vg.Length) draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.Color, Radius: r, Shape: s.Glyph}
}

// bandLegend is the legend item explaining the shaded bands, whose
// swatches (in each agent's colour) sit under the agents' lines.
func bandLegend() legendItem {
	return legendItem{Label: "shaded: 95% CI"}
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
	pc := c
	var l plot.Legend
	gap := vg.Points(10)
	if len(items) > 0 {
		l = newLegend(items, legendSize)
		width := l.Rectangle(c).Size().X + gap + vg.Points(8)
		pc = draw.Crop(c, 0, -width, 0, 0)
	}
	fitText(&p.Title.TextStyle, p.Title.Text, pc.Max.X-pc.Min.X)
	data := drawPlot(pc, p)
	if len(items) > 0 {
		lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: pc.Max.X + gap, Y: c.Min.Y},
			Max: vg.Point{X: c.Max.X, Y: data.Max.Y},
		}}
		l.Draw(lc)
	}
}

// minFontSize is the smallest size fitText shrinks text to.
const minFontSize = 7

// fitText shrinks sty's font until txt fits in width, down to minFontSize,
// so that long titles are not clipped in small figures.
func fitText(sty *text.Style, txt string, width vg.Length) {
	if w := sty.Width(txt); w > width && w > 0 {
		sty.Font.Size = max(vg.Length(minFontSize), sty.Font.Size*width/w)
	}
}

// drawPlot draws p into c and returns its data area. gonum/plot places
// the glyph box of a centred axis label at the arithmetic mid-point of the
// axis range, which on a log axis lies far off-centre and needlessly
// shrinks the data area; so the labels of log axes are drawn here instead,
// centred on the data area.
func drawPlot(c draw.Canvas, p *plot.Plot) draw.Canvas {
	isLog := func(ax *plot.Axis) bool {
		_, ok := ax.Scale.(plot.LogScale)
		return ok && ax.Label.Text != ""
	}
	xl, yl := p.X.Label, p.Y.Label
	inner := c
	if isLog(&p.X) {
		inner = draw.Crop(inner, 0, 0, xl.TextStyle.Height(xl.Text)+xl.Padding, 0)
		p.X.Label.Text = ""
		defer func() { p.X.Label.Text = xl.Text }()
	}
	if isLog(&p.Y) {
		inner = draw.Crop(inner, yl.TextStyle.Height(yl.Text)+yl.Padding, 0, 0, 0)
		p.Y.Label.Text = ""
		defer func() { p.Y.Label.Text = yl.Text }()
	}
	p.Draw(inner)
	data := p.DataCanvas(inner)
	if p.X.Label.Text == "" && xl.Text != "" {
		descent := xl.TextStyle.FontExtents().Descent
		c.FillText(xl.TextStyle, vg.Point{X: data.Center().X, Y: c.Min.Y + descent}, xl.Text)
	}
	if p.Y.Label.Text == "" && yl.Text != "" {
		sty := yl.TextStyle
		sty.Rotation += math.Pi / 2
		descent := yl.TextStyle.FontExtents().Descent
		c.FillText(sty, vg.Point{X: c.Min.X + yl.TextStyle.Height(yl.Text) - descent, Y: data.Center().Y}, yl.Text)
	}
	return data
}

// newRaster is vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi)) without
// its copy of the fresh image into a second one (gg.NewContextForImage):
// the canvas draws straight into one RGBA image, which NewWith fills with
// white.
func newRaster(w, h vg.Length, dpi int) *fastPNG {
	img := image.NewRGBA(image.Rect(0, 0, int(w/vg.Inch*vg.Length(dpi)+0.5), int(h/vg.Inch*vg.Length(dpi)+0.5)))
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt() // what NewWith does to a context of its own
	ctx.InvertY()
	c := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
	return &fastPNG{Canvas: c, ctx: ctx, img: img, colors: []color.Color{color.Black}, turned: []bool{false}}
}

// fastPNG is a raster canvas that skips what cannot change a pixel and
// writes itself as PNG with writePNG (image/png's default compression took
// half a figure's drawing time).
//
// What it skips: filling with opaque white where every pixel the path can
// touch is already opaque white: the figure's own background (vgimg
// starts white) and each plot's (plot.New's BackgroundColor) over the
// blank canvas, a third of a figure's raster time. That changes no byte:
// freetype's RGBAPainter (gg's painter of a solid colour) sets each
// channel to (d·a + c·m_a)/m >> 8 with a = (m − c_a·m_a/m)·0x101, m =
// 0xffff; for c = c_a = m and d = 255 that is (m·(m − m_a) + m·m_a)/m >> 8
// = 255 at every coverage m_a. TestWhiteOnWhiteIsNoOp checks it against
// the filling.
type fastPNG struct {
	*vgimg.Canvas
	ctx    *gg.Context
	img    *image.RGBA
	colors []color.Color // vgimg's colour stack, which it does not export
	// turned, beside it: whether a Rotate or Scale other than the
	// identity has changed the context's matrix (FillString).
	turned []bool
}

// WriteTo writes the canvas's image as PNG.
func (c *fastPNG) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	err := writePNG(cw, c.img)
	return cw.n, err
}

func (c *fastPNG) SetColor(clr color.Color) {
	c.Canvas.SetColor(clr)
	if clr == nil {
		clr = color.Black // as vgimg does
	}
	c.colors[len(c.colors)-1] = clr
}

func (c *fastPNG) Push() {
	c.Canvas.Push()
	c.colors = append(c.colors, c.colors[len(c.colors)-1])
	c.turned = append(c.turned, c.turned[len(c.turned)-1])
}

func (c *fastPNG) Pop() {
	c.Canvas.Pop()
	c.colors = c.colors[:len(c.colors)-1]
	c.turned = c.turned[:len(c.turned)-1]
}

// FillString draws str as vgimg does, with gg's glyphs composited by
// nearest-neighbour sampling where that gives gg's pixels, else by gg's
// bilinear sampling: for black text (any alpha; every text of the
// figures) at a transformation that is a translation by whole pixels
// (every unrotated text at the default font size). There x/image/draw's
// nearest-neighbour Transform becomes image/draw's DrawMask
// (drawGlyphOver: d' = (d·a + c·m_a)/m >> 8, a = (m − c_a·m_a/m)·0x101,
// m = 0xffff), while the bilinear one, whose weights at pixel centres are
// exactly 1 and 0, computes ⌊q·(m − p_a)/m⌋ + ⌊c·m_a/m⌋ >> 8 with q =
// 0x101·d and p_a = ⌊c_a·m_a/m⌋ (transform_Image_Image_Over). With c = 0
// both are ⌊d·0x101·(m − p_a)/m⌋ >> 8; the alpha, 255 on the opaque
// canvas (white at the start, and Over keeps it), stays 255 in both. It
// skips the weights' float arithmetic and allocations per pixel. That the
// transformation is a translation is known from the calls (no Rotate or
// Scale but the identity's since the figure began, tracked by fastPNG),
// not inferred from transformed points, which rounding can hide a tiny
// rotation in; that it is by whole pixels, from the translation itself.
// TestTextSamplingIsBilinear checks it against vgimg's drawing.
func (c *fastPNG) FillString(f font.Face, pt vg.Point, str string) {
	interp := xdraw.Interpolator(xdraw.BiLinear) // gg's default
	r, g, b, _ := c.colors[len(c.colors)-1].RGBA()
	if r|g|b == 0 && !c.turned[len(c.turned)-1] {
		// The transformation gg's drawString applies: vgimg's FillString
		// pushes the context and inverts Y once more (the inversions
		// cancel exactly: the height is a whole number).
		c.ctx.Push()
		c.ctx.InvertY()
		x, y := c.ctx.TransformPoint(0, 0)
		c.ctx.Pop()
		if x == math.Trunc(x) && y == math.Trunc(y) && math.Abs(x) < 1<<30 && math.Abs(y) < 1<<30 {
			interp = xdraw.NearestNeighbor
		}
	}
	c.ctx.SetInterpolator(interp)
	c.Canvas.FillString(f, pt, str)
}

// Rotate rotates the canvas; any angle but 0 makes the texts' sampling
// bilinear from here to the matching Pop.
func (c *fastPNG) Rotate(t float64) {
	c.Canvas.Rotate(t)
	if t != 0 {
		c.turned[len(c.turned)-1] = true
	}
}

// Scale scales the canvas; any factor but 1 makes the texts' sampling
// bilinear from here to the matching Pop.
func (c *fastPNG) Scale(x, y float64) {
	c.Canvas.Scale(x, y)
	if x != 1 || y != 1 {
		c.turned[len(c.turned)-1] = true
	}
}

// Fill fills p, unless that is opaque white on opaque white (fastPNG).
func (c *fastPNG) Fill(p vg.Path) {
	if c.whiteOnWhite(p) {
		return
	}
	c.Canvas.Fill(p)
}

// whiteOnWhite reports whether the current colour is opaque white, p has
// only straight segments, and every pixel of p's bounding box in the image
// (widened by a pixel each side, beyond what the rasterizer can touch) is
// opaque white.
func (c *fastPNG) whiteOnWhite(p vg.Path) bool {
	if r, g, b, a := c.colors[len(c.colors)-1].RGBA(); r&g&b&a != 0xffff || len(p) == 0 {
		return false
	}
	dpi := c.DPI()
	x0, y0 := math.Inf(1), math.Inf(1)
	x1, y1 := math.Inf(-1), math.Inf(-1)
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp, vg.LineComp:
			x, y := c.ctx.TransformPoint(comp.Pos.X.Dots(dpi), comp.Pos.Y.Dots(dpi))
			x0, x1 = math.Min(x0, x), math.Max(x1, x)
			y0, y1 = math.Min(y0, y), math.Max(y1, y)
		case vg.CloseComp:
		default:
			return false // arcs and curves: their extent is not their points'
		}
	}
	if !(x0 <= x1 && y0 <= y1) { // also NaN
		return false
	}
	b := c.img.Bounds()
	px0 := max(b.Min.X, int(math.Max(math.Floor(x0)-1, float64(b.Min.X))))
	px1 := min(b.Max.X, int(math.Min(math.Ceil(x1)+1, float64(b.Max.X))))
	py0 := max(b.Min.Y, int(math.Max(math.Floor(y0)-1, float64(b.Min.Y))))
	py1 := min(b.Max.Y, int(math.Min(math.Ceil(y1)+1, float64(b.Max.Y))))
	if px0 >= px1 || py0 >= py1 {
		return true // nothing in the image to paint
	}
	n := 4 * (px1 - px0)
	for y := py0; y < py1; y++ {
		i := c.img.PixOffset(px0, y)
		if !allFF(c.img.Pix[i : i+n]) {
			return false
		}
	}
	return true
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// allFF reports whether every byte of b is 0xff.
func allFF(b []byte) bool {
	for len(b) >= len(ffs) {
		if !bytes.Equal(b[:len(ffs)], ffs[:]) {
			return false
		}
		b = b[len(ffs):]
	}
	return bytes.Equal(b, ffs[:len(b)])
}

// ffs is a run of 0xff bytes for allFF's comparisons.
var ffs = func() (b [1024]byte) {
	for i := range b {
		b[i] = 0xff
	}
	return b
}()

// writeFigure calls render on a blank white canvas of the options' size and
// format and writes the result to path atomically (fsutil.ReplaceAtomic:
// a figure is drawn again at will, so it is not synced),
// creating its directory. Nothing is written when render fails, and a
// failed write leaves path as it was. Every figure carries smrl's mark
// (outdir.FigureFile): a PNG its tEXt chunk (writePNG), an SVG a comment
// (markSVG), a PDF its Creator (markPDF).
func writeFigure(path string, opt Options, render func(c draw.Canvas) error) error {
	var cv vg.CanvasWriterTo
	switch opt.Format {
	case "png":
		// Draw the figure at (about) the default size and scale it to
		// the requested pixels through the resolution, so that fonts,
		// lines and margins keep their proportions at any pixel size.
		scale := math.Min(float64(opt.Width/DefaultWidth), float64(opt.Height/DefaultHeight))
		dpi := min(max(int(math.Round(vgimg.DefaultDPI*scale)), minDPI), maxDPI)
		w := opt.Width * vgimg.DefaultDPI / vg.Length(dpi)
		h := opt.Height * vgimg.DefaultDPI / vg.Length(dpi)
		cv = newRaster(w, h, dpi)
	case "svg":
		// Embedded fonts make the figure look the same in every viewer;
		// without them a viewer lacking Liberation Sans substitutes a
		// wider font and long labels overflow.
		cv = newSVG(opt.Width, opt.Height)
	default:
		var err error
		cv, err = draw.NewFormattedCanvas(opt.Width, opt.Height, opt.Format)
		if err != nil {
			return fmt.Errorf("figure %s: %w", path, err)
		}
		if opt.Format == "pdf" {
			cv = pdfCanvas{cv}
		}
	}
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if f := opt.fontScale(); f != 1 {
		// Lay the figure out on a canvas f times smaller, drawn f times
		// larger: its fonts (in points) come out f times their size.
		dc.Scale(f, f)
		dc.Rectangle.Min = vg.Point{X: dc.Rectangle.Min.X / vg.Length(f), Y: dc.Rectangle.Min.Y / vg.Length(f)}
		dc.Rectangle.Max = vg.Point{X: dc.Rectangle.Max.X / vg.Length(f), Y: dc.Rectangle.Max.Y / vg.Length(f)}
	}
	if err := render(dc); err != nil {
		return fmt.Errorf("figure %s: %w", path, err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	return fsutil.ReplaceAtomic(path, func(w io.Writer) error {
		if opt.Format == "png" {
			_, err := cv.WriteTo(w)
			return err
		}
		var buf bytes.Buffer
		if _, err := cv.WriteTo(&buf); err != nil {
			return err
		}
		b := buf.Bytes()
		switch opt.Format {
		case "svg":
			b = markSVG(svgFontFallback(b))
		case "pdf":
			var err error
			if b, err = markPDF(b); err != nil {
				return err
			}
		}
		_, err := w.Write(b)
		return err
	})
}

// markSVG adds smrl's mark, the comment outdir.SVGComment, as the second
// line of a vgsvg figure (after the XML declaration), by which smrl knows
// an SVG it may replace.
func markSVG(svg []byte) []byte {
	i := 0
	if bytes.HasPrefix(svg, []byte("<?xml")) {
		i = bytes.IndexByte(svg, '\n') + 1
	}
	out := make([]byte, 0, len(svg)+len(outdir.SVGComment)+1)
	out = append(out, svg[:i]...)
	if i == 0 { // no declaration (not vgsvg's form): add one, for the mark's place
		out = append(out, `<?xml version="1.0"?>`+"\n"...)
	}
	out = append(out, outdir.SVGComment+"\n"...)
	return append(out, svg[i:]...)
}

// svgFontFallback adds metric-compatible fallbacks (Arial, Helvetica) to
// the font family of every text element of a vgsvg figure, for viewers
// that neither load the embedded font nor have Liberation Sans.
func svgFontFallback(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// safeDraw runs f and converts a panic inside gonum/plot (which panics on
// some degenerate inputs, e.g. a non-positive value on a log axis) into an
// error wrapping errs.ErrInternal: the figure code should have filtered
// such input, so it is a bug, but it never crashes the caller.
func safeDraw(f func() error) error {
	return errs.Protect(f)
}

// errNoData is returned by figure builders that have nothing to draw.
var errNoData = errors.New("no data to draw")

// guideLine is the dashed grey reference curve y = f(x) of the log–log
// figures (c/√n, c·√k), sampled at 50 points evenly spaced in log x.
func guideLine(xmin, xmax float64, f func(float64) float64) (*plotter.Line, error) {
	gx := linspace(math.Log(xmin), math.Log(xmax), 50)
	pts := make(plotter.XYs, len(gx))
	for i, lx := range gx {
		x := math.Exp(lx)
		pts[i] = plotter.XY{X: x, Y: f(x)}
	}
	gl, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	gl.Color = rewardGrey
	gl.Width = vg.Points(1.3)
	gl.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
	return gl, nil
}
