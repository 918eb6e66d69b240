package plotting

import (
	"bytes"
	"image/color"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// svgCanvas writes the bytes of vgsvg's canvas with EmbedFonts(true): the
// densities figure (texts in several sizes of one font), a canvas with
// texts in two weights of it (the regular one's block from the cache by
// then), and one with no text.
func TestSVGFontsAreEmbedFonts(t *testing.T) {
	est := map[string][]float64{"sm": {0.7, 0.5}, "lds": {1.1, 0.3}}
	opt, err := Options{}.normalize()
	if err != nil {
		t.Fatal(err)
	}
	bold := font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold, Size: 12}
	draws := map[string]func(c draw.Canvas){
		"densities": func(c draw.Canvas) {
			if err := densitiesFigure(c, gaussSource{sigma: 0.6}, finalsOf(est), runDensitiesTitle, opt); err != nil {
				t.Fatal(err)
			}
		},
		"two weights": func(c draw.Canvas) {
			sty := plot.New().Title.TextStyle
			sty.Font = sans(10)
			c.FillText(sty, vg.Point{X: 10, Y: 10}, "regular")
			sty.Font = bold
			c.FillText(sty, vg.Point{X: 10, Y: 30}, "bold")
			sty.Font = sans(14)
			c.FillText(sty, vg.Point{X: 10, Y: 50}, "regular again")
		},
		"no text": func(c draw.Canvas) {
			c.SetColor(color.Black)
			c.Fill(c.Rectangle.Path())
		},
	}
	for _, name := range []string{"densities", "two weights", "no text"} {
		want := vgsvg.NewWith(vgsvg.UseWH(300, 200), vgsvg.EmbedFonts(true))
		got := newSVG(300, 200)
		draws[name](draw.New(want))
		draws[name](draw.New(got))
		var wb, gb bytes.Buffer
		if _, err := want.WriteTo(&wb); err != nil {
			t.Fatal(err)
		}
		n, err := got.WriteTo(&gb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gb.Bytes(), wb.Bytes()) || n != int64(gb.Len()) {
			t.Fatalf("%s: %d bytes (count %d), vgsvg with EmbedFonts %d, equal %v", name, gb.Len(), n, wb.Len(), bytes.Equal(gb.Bytes(), wb.Bytes()))
		}
	}
}

// finalsOf wraps estimates as the finals of a run.
func finalsOf(est map[string][]float64) map[string]finalW {
	f := map[string]finalW{}
	for a, w := range est {
		f[a] = finalW{W: w}
	}
	return f
}
