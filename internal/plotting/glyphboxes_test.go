package plotting

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// A plot whose lines and scatters give only their decisive glyph boxes
// (addLean) lays out as with all of them, bit for bit: the data canvas of
// random plots (points beyond the axes' ranges, near-ties at the
// extremes, several line widths and glyph sizes) on canvases wide, narrow,
// of no width and flipped.
func TestLeanBoxesSameLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	canvases := []vg.Rectangle{
		{Max: vg.Point{X: 600, Y: 450}},
		{Min: vg.Point{X: 30, Y: 20}, Max: vg.Point{X: 31, Y: 21}},
		{Min: vg.Point{X: 50, Y: 40}, Max: vg.Point{X: 50, Y: 40}},    // no width
		{Min: vg.Point{X: 80, Y: 60}, Max: vg.Point{X: 20, Y: 10}},    // flipped
		{Min: vg.Point{X: 10, Y: 10}, Max: vg.Point{X: 10.5, Y: 200}}, // narrow
	}
	for trial := range 100 {
		var plain, lean []plot.Plotter
		for k := range 1 + rng.IntN(4) {
			n := 1 + rng.IntN(40)
			xy := make(plotter.XYs, n)
			for i := range xy {
				xy[i] = plotter.XY{X: rng.NormFloat64(), Y: rng.NormFloat64()}
				switch rng.IntN(10) {
				case 0:
					xy[i].X = 40 * rng.NormFloat64() // beyond the fixed ranges
				case 1:
					xy[i].Y = -5 + 1e-14*rng.Float64() // near-ties at the bottom
				case 2:
					xy[i].X = 5 + 1e-14*rng.Float64() // and at the right
				}
			}
			if k%2 == 0 {
				l, _ := plotter.NewLine(xy)
				l.Width = vg.Length(rng.IntN(4)) // 0: no size
				plain = append(plain, l)
				l2 := *l
				lean = append(lean, &l2)
			} else {
				s, _ := plotter.NewScatter(xy)
				s.GlyphStyle.Radius = vg.Length(rng.Float64() * 5)
				plain = append(plain, s)
				s2 := *s
				lean = append(lean, &s2)
			}
		}
		for _, c := range canvases {
			p, q := plot.New(), plot.New()
			p.Add(plain...)
			addLean(q, lean...)
			if trial%3 == 0 { // points beyond the ranges
				p.X.Min, p.X.Max, q.X.Min, q.X.Max = -0.5, 0.5, -0.5, 0.5
				p.Y.Min, p.Y.Max, q.Y.Min, q.Y.Max = -0.3, 0.8, -0.3, 0.8
			}
			dc := draw.Canvas{Canvas: &recorder.Canvas{}, Rectangle: c}
			a, b := p.DataCanvas(dc).Rectangle, q.DataCanvas(dc).Rectangle
			if fmt.Sprint(a) != fmt.Sprint(b) { // NaN too, on a degenerate canvas
				t.Fatalf("trial %d, canvas %v: data canvas %v, with the lean boxes %v", trial, c, a, b)
			}
		}
	}
}
