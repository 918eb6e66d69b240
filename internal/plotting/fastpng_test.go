package plotting

import (
	"bytes"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// Skipping white fills on white (fastPNG.Fill) leaves every pixel as
// filling would: rectangles at fractional positions over a blank canvas
// (skipped), over drawn content and half off the image (filled), with the
// colour set inside Push/Pop and under a scaled transform, against the same
// calls on vgimg's canvas, which fills every time.
func TestWhiteOnWhiteIsNoOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	skipped, filled := 0, 0
	for trial := range 30 {
		fast := newRaster(300, 200, 96+trial)
		plain := newRaster(300, 200, 96+trial)
		var ops []func(c vg.Canvas)
		rect := func() vg.Path {
			x, y := vg.Length(rng.Float64()*340-20), vg.Length(rng.Float64()*240-20)
			w, h := vg.Length(rng.Float64()*120), vg.Length(rng.Float64()*80)
			var p vg.Path
			p.Move(vg.Point{X: x, Y: y})
			p.Line(vg.Point{X: x + w, Y: y})
			p.Line(vg.Point{X: x + w, Y: y + h})
			p.Line(vg.Point{X: x, Y: y + h})
			p.Close()
			return p
		}
		if trial%3 == 1 {
			ops = append(ops, func(c vg.Canvas) { c.Scale(1.3, 1.3) })
		}
		for k := range 12 {
			p := rect()
			switch {
			case k%4 == 1: // content: translucent blue
				ops = append(ops, func(c vg.Canvas) {
					c.SetColor(color.NRGBA{B: 200, A: 120})
					c.Fill(p)
				})
			case k%4 == 3: // white inside Push/Pop, black after
				ops = append(ops, func(c vg.Canvas) {
					c.Push()
					c.SetColor(color.White)
					c.Fill(p)
					c.Pop()
					c.Fill(p) // black: never skipped
				})
			default:
				ops = append(ops, func(c vg.Canvas) {
					c.SetColor(color.White)
					if f, ok := c.(*fastPNG); ok {
						if f.whiteOnWhite(p) {
							skipped++
						} else {
							filled++
						}
					}
					c.Fill(p)
				})
			}
		}
		for _, op := range ops {
			op(plain.Canvas) // vgimg's own Fill: every fill painted
		}
		for _, op := range ops {
			op(fast)
		}
		if !bytes.Equal(fast.img.Pix, plain.img.Pix) {
			t.Fatalf("trial %d: the pixels differ from filling every time", trial)
		}
	}
	if skipped == 0 || filled == 0 {
		t.Errorf("white fills: %d skipped, %d filled; want some of each", skipped, filled)
	}
	// A white fill over content is not skipped.
	c := newRaster(100, 100, 96)
	var p vg.Path
	p.Move(vg.Point{X: 10, Y: 10})
	p.Line(vg.Point{X: 50.3, Y: 10})
	p.Line(vg.Point{X: 50.3, Y: 40.7})
	p.Close()
	c.SetColor(color.Black)
	c.Fill(p)
	c.SetColor(color.White)
	if c.whiteOnWhite(p) {
		t.Error("white over black taken as a no-op")
	}
}

// Texts drawn with nearest-neighbour sampling where fastPNG finds it
// exact have the pixels of gg's bilinear sampling (what vgimg's canvas
// draws every time): black and coloured texts of several alphas over
// translucent coloured boxes and over each other, at fractional points,
// after translations by fractions of a pixel, rotated by π/2 and by a
// small angle, on a scaled canvas, in several sizes.
func TestTextSamplingIsBilinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 6 {
		fast := newRaster(300, 200, 96+7*trial)
		plain := newRaster(300, 200, 96+7*trial)
		var ops []func(c vg.Canvas)
		if trial%4 == 3 {
			ops = append(ops, func(c vg.Canvas) { c.Scale(1.25, 1.25) })
		}
		for k := range 12 {
			pt := vg.Point{X: vg.Length(rng.Float64() * 200), Y: vg.Length(rng.Float64() * 140)}
			face := font.DefaultCache.Lookup(sans(0), vg.Length(7+rng.IntN(12)))
			var clr color.Color = color.NRGBA{A: uint8(60 + rng.IntN(196))} // black
			if k%4 == 2 {
				clr = color.NRGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: 40, A: uint8(60 + rng.IntN(196))}
			}
			box := color.NRGBA{R: uint8(rng.IntN(256)), G: uint8(rng.IntN(256)), B: uint8(rng.IntN(256)), A: uint8(rng.IntN(256))}
			shift := vg.Point{X: vg.Length(rng.Float64() * 3), Y: vg.Length(rng.IntN(3))}
			angle := []float64{0, 0, math.Pi / 2, 0.01}[k%4]
			var under vg.Path
			under.Move(pt)
			under.Line(vg.Point{X: pt.X + 90, Y: pt.Y})
			under.Line(vg.Point{X: pt.X + 90, Y: pt.Y + 12})
			under.Line(vg.Point{X: pt.X, Y: pt.Y + 12})
			under.Close()
			ops = append(ops, func(c vg.Canvas) {
				c.Push()
				c.SetColor(box)
				c.Fill(under)
				c.SetColor(clr)
				if k%2 == 1 {
					c.Translate(shift)
				}
				c.Rotate(angle)
				c.FillString(face, pt, "Regret −1.5 (μ, σ²) Wg")
				c.Pop()
			})
		}
		for _, op := range ops {
			op(plain.Canvas) // vgimg's own FillString: bilinear
		}
		for _, op := range ops {
			op(fast)
		}
		if !bytes.Equal(fast.img.Pix, plain.img.Pix) {
			t.Fatalf("trial %d: the text's pixels differ from bilinear sampling", trial)
		}
	}
}
