package plotting

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
)

// writePNG's output decodes (with image/png) to exactly the pixels written,
// for an opaque image (its own RGB encoder) and a translucent one
// (image/png's).
func TestWritePNGRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, alpha := range []uint8{255, 128} {
		img := image.NewRGBA(image.Rect(0, 0, 37, 23))
		for y := range 23 {
			for x := range 37 {
				v := uint8(rng.IntN(256))
				if x%5 == 0 { // flat runs, as in figures
					v = 200
				}
				// RGBA is premultiplied: no channel above alpha.
				pm := func(c uint8) uint8 { return uint8(uint32(c) * uint32(alpha) / 255) }
				img.SetRGBA(x, y, color.RGBA{pm(v), pm(uint8(x * 6)), pm(uint8(y * 10)), alpha})
			}
		}
		var b bytes.Buffer
		if err := writePNG(&b, img); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("alpha %d: %v", alpha, err)
		}
		for y := range 23 {
			for x := range 37 {
				// Premultiplied 16-bit values: exact when opaque; through
				// image/png's non-premultiplied storage, within rounding.
				r0, g0, b0, a0 := img.At(x, y).RGBA()
				r1, g1, b1, a1 := got.At(x, y).RGBA()
				tol := uint32(0)
				if alpha < 255 {
					tol = 0x202
				}
				for _, d := range [][2]uint32{{r0, r1}, {g0, g1}, {b0, b1}, {a0, a1}} {
					if max(d[0], d[1])-min(d[0], d[1]) > tol {
						t.Fatalf("alpha %d: pixel (%d, %d) = %v, want %v", alpha, x, y, got.At(x, y), img.At(x, y))
					}
				}
			}
		}
	}
}
