package plotting

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// svgCanvas is vgsvg's canvas with its fonts embedded as
// vgsvg.EmbedFonts(true) embeds them, byte for byte, but each font's
// @font-face block (its file in base64, half a megabyte) made once per
// process instead of once per figure: the canvas draws without embedding,
// notes the fonts of its texts in order, and WriteTo puts their blocks
// where vgsvg does, in the <defs><style> after the <svg> element's
// opening tag. TestSVGFontsAreEmbedFonts checks it against
// vgsvg.EmbedFonts(true).
type svgCanvas struct {
	*vgsvg.Canvas
	blocks []string        // the @font-face blocks, in the order of first use
	seen   map[string]bool // the blocks' heads: vgsvg's font name, by which it embeds each once
}

func newSVG(w, h vg.Length) *svgCanvas {
	return &svgCanvas{Canvas: vgsvg.NewWith(vgsvg.UseWH(w, h)), seen: map[string]bool{}}
}

// FillString draws str and notes its font.
func (c *svgCanvas) FillString(f font.Face, pt vg.Point, str string) {
	c.Canvas.FillString(f, pt, str)
	if f.Font.Size == 0 {
		return
	}
	b := fontBlock(f)
	if head := b.head; !c.seen[head] {
		c.seen[head] = true
		c.blocks = append(c.blocks, b.text)
	}
}

// svgOpenTag ends the <svg> element's opening tag that vgsvg writes first;
// the embedded fonts follow it.
const svgOpenTag = `xmlns:xlink="http://www.w3.org/1999/xlink">` + "\n"

// The <defs><style> around the @font-face blocks.
const (
	svgStyleOpen  = "<defs>\n\t<style>\n"
	svgStyleClose = "\t</style>\n</defs>\n"
)

// WriteTo writes the SVG with its fonts embedded.
func (c *svgCanvas) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if _, err := c.Canvas.WriteTo(&buf); err != nil {
		return 0, err
	}
	b := buf.Bytes()
	i := bytes.Index(b, []byte(svgOpenTag))
	if i < 0 {
		return 0, fmt.Errorf("svg: no <svg> element in vgsvg's output")
	}
	i += len(svgOpenTag)
	parts := append([]string{string(b[:i]), svgStyleOpen}, c.blocks...)
	parts = append(parts, svgStyleClose, string(b[i:]))
	var n int64
	for _, p := range parts {
		k, err := io.WriteString(w, p)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// svgFont is a font's @font-face block as vgsvg embeds it, and its head
// (the lines before the font's data: family, variant, weight and style,
// what vgsvg's name of the font says).
type svgFont struct{ head, text string }

// svgFonts caches fontBlock by typeface, variant, style and weight (the
// size is not in the block).
var svgFonts sync.Map // font.Font (Size 0) → svgFont

// fontBlock returns f's @font-face block, taken from what vgsvg embeds
// for a text in f, made once per font.
func fontBlock(f font.Face) svgFont {
	key := f.Font
	key.Size = 0
	if b, ok := svgFonts.Load(key); ok {
		return b.(svgFont)
	}
	c := vgsvg.NewWith(vgsvg.EmbedFonts(true))
	c.FillString(f, vg.Point{}, "x")
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		panic(fmt.Errorf("svg: embedding %v: %w", f.Font.Typeface, err))
	}
	out := buf.String()
	i := bytes.Index(buf.Bytes(), []byte(svgOpenTag+svgStyleOpen))
	j := bytes.Index(buf.Bytes(), []byte(svgStyleClose))
	if i < 0 || j < i {
		panic(fmt.Errorf("svg: no embedded font in vgsvg's output for %v", f.Font.Typeface))
	}
	text := out[i+len(svgOpenTag+svgStyleOpen) : j]
	head := text
	if k := bytes.Index([]byte(text), []byte("\t\t\tsrc:")); k >= 0 {
		head = text[:k]
	}
	b, _ := svgFonts.LoadOrStore(key, svgFont{head: head, text: text})
	return b.(svgFont)
}
