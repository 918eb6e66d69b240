package plotting

import (
	"bytes"
	"compress/zlib"
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

// upFilteredRGB's stream is that of filtering byte by byte (the encoder's
// definition: RGB, each byte minus the one above it mod 256, written row by
// row to zlib at BestSpeed), byte for byte: widths odd and even (the pair
// loop and its tail), random bytes (borrows in every lane) and flat runs;
// and a pixel with alpha below 255 anywhere makes it decline.
func TestUpFilterIsBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, width := range []int{1, 2, 3, 4, 5, 8, 9, 37, 800} {
		const height = 7
		img := image.NewRGBA(image.Rect(0, 0, width, height))
		for i := range img.Pix {
			img.Pix[i] = uint8(rng.IntN(256))
			if i%4 == 3 {
				img.Pix[i] = 255
			} else if rng.IntN(3) == 0 {
				img.Pix[i] = 250
			}
		}
		var want bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&want, zlib.BestSpeed)
		prev := make([]byte, 3*width)
		for y := range height {
			cur := []byte{2}
			for x := range width {
				for c := range 3 {
					v := img.Pix[y*img.Stride+4*x+c]
					cur = append(cur, v-prev[3*x+c])
					prev[3*x+c] = v
				}
			}
			zw.Write(cur)
		}
		zw.Close()
		got, opaque, err := upFilteredRGB(img)
		if err != nil || !opaque {
			t.Fatalf("width %d: opaque %v, %v", width, opaque, err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("width %d: the stream differs from the bytewise filter's", width)
		}
		for _, at := range []int{0, width - 1, width * height / 2} {
			translucent := image.NewRGBA(img.Rect)
			copy(translucent.Pix, img.Pix)
			translucent.Pix[4*at+3] = 254
			if _, opaque, _ := upFilteredRGB(translucent); opaque {
				t.Fatalf("width %d: alpha 254 at pixel %d taken as opaque", width, at)
			}
		}
	}
}
