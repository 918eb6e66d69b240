package plotting

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas works around two defects of gonum/plot's PDF backend (vgpdf,
// v0.17.0) by adapting what reaches it:
//
//   - vgpdf passes colours premultiplied by alpha to the PDF, so every
//     translucent fill (bands, density areas) comes out dark grey; SetColor
//     hands it a colour whose RGBA method reports straight (not
//     premultiplied) components instead.
//   - vgpdf embeds fonts with the cp1252 code page but writes strings as
//     UTF-8 bytes, so every non-ASCII character is garbled; FillString
//     converts text to cp1252 bytes, replacing characters outside cp1252
//     (−, ‖, √, Ŵ, ₀, ...) by close look-alikes.
type pdfCanvas struct {
	vg.CanvasWriterTo
}

// SetColor implements vg.Canvas.
func (c pdfCanvas) SetColor(clr color.Color) {
	if clr != nil {
		if n := color.NRGBAModel.Convert(clr).(color.NRGBA); n.A != 0xff {
			clr = straightColor(n)
		}
	}
	c.CanvasWriterTo.SetColor(clr)
}

// FillString implements vg.Canvas.
func (c pdfCanvas) FillString(f font.Face, pt vg.Point, text string) {
	c.CanvasWriterTo.FillString(f, pt, toCP1252(text))
}

// straightColor is a colour whose RGBA method returns non-premultiplied
// components, the form vgpdf expects; it is only ever handed to vgpdf.
type straightColor color.NRGBA

// RGBA returns the straight components scaled to 16 bits.
func (s straightColor) RGBA() (r, g, b, a uint32) {
	return uint32(s.R) * 0x101, uint32(s.G) * 0x101, uint32(s.B) * 0x101, uint32(s.A) * 0x101
}

// cp1252Special maps the characters that cp1252 places in 0x80–0x9f.
var cp1252Special = map[rune]byte{
	'€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87,
	'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e, '‘': 0x91,
	'’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, '˜': 0x98,
	'™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
}

// pdfLookAlikes replaces characters missing from cp1252.
var pdfLookAlikes = map[rune]string{
	'−': "\x96", // minus sign → en dash
	'‖': "||",
	'√': "sqrt ",
	'Ŵ': "W^",
	'ŵ': "w^",
	'₀': "0", '₁': "1", '₂': "2", '₃': "3",
	'≈': "~", '≤': "<=", '≥': ">=", '×': "\xd7",
}

// toCP1252 encodes s as cp1252 bytes, replacing characters that cp1252
// lacks by look-alikes or '?'.
func toCP1252(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r >= 0xa0 && r <= 0xff:
			b.WriteByte(byte(r))
		default:
			if c, ok := cp1252Special[r]; ok {
				b.WriteByte(c)
			} else if l, ok := pdfLookAlikes[r]; ok {
				b.WriteString(l)
			} else {
				b.WriteByte('?')
			}
		}
	}
	return b.String()
}
