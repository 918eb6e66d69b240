package plotting

import (
	"math"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// addLean adds ps to p as p.Add does, each line and each scatter of one
// glyph size wrapped so that its glyph boxes are only those that can
// decide the plot's padding (leanLine, leanScatter).
//
// gonum/plot pads a plot so that no glyph box sticks out of it: padX and
// padY run on every Plot.Draw (four times) and DataCanvas (each
// plot.Align), and each asks every plotter for a box per data point: 300
// per density curve. Only the extremes count: leftMost, rightMost,
// bottomMost and topMost pick, among the boxes of positive size whose
// normalised X (Y) lies in [0, 1] (Plot.GlyphBoxes drops the others, and
// NaN never wins), the first of those extreme in c.X(b.X) + b.Min.X (and
// the like), which for boxes of one size is monotone in b.X (b.Y),
// increasing or, on a flipped canvas, decreasing. The boxes decisiveBoxes
// keeps, in their order, give the same pick as all of them, so the same
// layout to the bit (TestLeanBoxesSameLayout).
func addLean(p *plot.Plot, ps ...plot.Plotter) {
	for i, q := range ps {
		switch q := q.(type) {
		case *plotter.Line:
			ps[i] = &leanLine{Line: q}
		case *plotter.Scatter:
			if q.GlyphStyleFunc == nil {
				ps[i] = &leanScatter{Scatter: q}
			}
		}
	}
	p.Add(ps...)
}

// leanLine is a line whose GlyphBoxes are its decisive ones (addLean).
type leanLine struct {
	*plotter.Line
	cache boxCache
}

func (l *leanLine) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	return l.cache.get(p, l.XYs, 0.5*l.LineStyle.Width)
}

// leanScatter is a scatter of one glyph style whose GlyphBoxes are its
// decisive ones (addLean).
type leanScatter struct {
	*plotter.Scatter
	cache boxCache
}

func (s *leanScatter) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	return s.cache.get(p, s.XYs, s.GlyphStyle.Radius)
}

// boxCache keeps a plotter's decisive boxes for the axes they were
// computed on: a plot asks for them six times or more per drawing (padX
// and padY in Draw and DataCanvas) on the same axes. The boxes depend on
// the points, the size and each axis's scale and range alone (Axis.Norm),
// so the key is those; only the scales of plain values (LinearScale,
// LogScale) are compared, any other is computed every time.
type boxCache struct {
	mu    sync.Mutex
	valid bool
	key   boxKey
	r     vg.Length
	boxes []plot.GlyphBox
}

type boxKey struct {
	sx, sy                 plot.Normalizer
	xmin, xmax, ymin, ymax float64
}

func (c *boxCache) get(p *plot.Plot, xy plotter.XYs, r vg.Length) []plot.GlyphBox {
	plain := func(s plot.Normalizer) bool {
		switch s.(type) {
		case plot.LinearScale, plot.LogScale:
			return true
		}
		return false
	}
	if !plain(p.X.Scale) || !plain(p.Y.Scale) {
		return decisiveBoxes(p, xy, r)
	}
	key := boxKey{p.X.Scale, p.Y.Scale, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid || c.key != key || c.r != r {
		c.boxes = decisiveBoxes(p, xy, r)
		c.valid, c.key, c.r = true, key, r
	}
	return c.boxes
}

// decisiveBoxes returns, of the boxes of half-size r at the points xy
// (plotter.Line's and plotter.Scatter's GlyphBoxes), those Plot.GlyphBoxes
// keeps that can decide padX or padY (addLean), in their order: the first
// kept, and every one whose normalised X or Y lies within tieBand of the
// least or the greatest. The band keeps the pick exact where rounding
// makes two nearby boxes tie in c.X(b.X) + b.Min.X (the first of them wins
// there, not the least): such a tie needs |ΔX·width| below an ulp of the
// sum, so a canvas narrower than 1e-5 pt, and one of no width at all ties
// every box, which the first kept box settles.
func decisiveBoxes(p *plot.Plot, xy plotter.XYs, r vg.Length) []plot.GlyphBox {
	if r <= 0 {
		return nil // of no size: every pad ignores it
	}
	kept := func(x, y float64) bool { return x >= 0 && x <= 1 && y >= 0 && y <= 1 } // false for NaN, never picked
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, pt := range xy {
		if x, y := p.X.Norm(pt.X), p.Y.Norm(pt.Y); kept(x, y) {
			x0, x1 = math.Min(x0, x), math.Max(x1, x)
			y0, y1 = math.Min(y0, y), math.Max(y1, y)
		}
	}
	if x0 > x1 {
		return nil // none kept
	}
	rect := vg.Rectangle{Min: vg.Point{X: -r, Y: -r}, Max: vg.Point{X: r, Y: r}}
	var boxes []plot.GlyphBox
	for _, pt := range xy {
		x, y := p.X.Norm(pt.X), p.Y.Norm(pt.Y)
		if !kept(x, y) {
			continue
		}
		if len(boxes) == 0 || x <= x0+tieBand || x >= x1-tieBand || y <= y0+tieBand || y >= y1-tieBand {
			boxes = append(boxes, plot.GlyphBox{X: x, Y: y, Rectangle: rect})
		}
	}
	return boxes
}

// tieBand is decisiveBoxes' margin around the extremes, in normalised
// units.
const tieBand = 1e-6
