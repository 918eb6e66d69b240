package plotting

import (
	"bytes"
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/smrl-dev/smrl/internal/outdir"
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

// markPDF adds smrl's mark, the entry outdir.PDFCreatorEntry, at the start
// of the document information dictionary of the PDF b that vgpdf (fpdf)
// wrote, by which smrl knows a PDF it may replace. The bytes after the
// insertion move, so the cross-reference offsets beyond it and startxref
// are moved with them; b must have fpdf's layout (one classic xref table,
// "N 0 obj\n<<\n" objects), else it is an error.
func markPDF(b []byte) ([]byte, error) {
	bad := func(what string) ([]byte, error) {
		return nil, fmt.Errorf("marking the PDF as smrl's: %s", what)
	}
	const sx = "\nstartxref\n"
	i := bytes.LastIndex(b, []byte(sx))
	if i < 0 {
		return bad("no startxref")
	}
	nl := bytes.IndexByte(b[i+len(sx):], '\n')
	if nl < 0 {
		return bad("no end of line after startxref")
	}
	numEnd := i + len(sx) + nl
	xref, err := strconv.Atoi(string(b[i+len(sx) : numEnd]))
	if err != nil || xref <= 0 || xref >= i || !bytes.HasPrefix(b[xref:], []byte("xref\n0 ")) {
		return bad("no cross-reference table at startxref")
	}
	// "xref\n0 M\n", then M entries of 20 bytes, then the trailer.
	line := b[xref+len("xref\n0 "):]
	m, err := strconv.Atoi(string(line[:max(bytes.IndexByte(line, '\n'), 0)]))
	entries := xref + len("xref\n0 ") + bytes.IndexByte(line, '\n') + 1
	const entry = 20
	if err != nil || m < 1 || entries+m*entry > i {
		return bad("malformed cross-reference table")
	}
	trailer := b[entries+m*entry : i]
	k := bytes.Index(trailer, []byte("/Info "))
	if k < 0 {
		return bad("no /Info in the trailer")
	}
	var info int
	if _, err := fmt.Sscanf(string(trailer[k:]), "/Info %d 0 R", &info); err != nil || info < 1 || info >= m {
		return bad("malformed /Info in the trailer")
	}
	offset := func(n int) (int, error) {
		e := b[entries+n*entry : entries+(n+1)*entry]
		return strconv.Atoi(string(e[:10]))
	}
	at, err := offset(info)
	obj := fmt.Sprintf("%d 0 obj\n<<\n", info)
	if err != nil || at <= 0 || at >= xref || !bytes.HasPrefix(b[at:], []byte(obj)) {
		return bad("no document information dictionary at its offset")
	}
	ins := at + len(obj)
	d := len(outdir.PDFCreatorEntry)
	out := make([]byte, 0, len(b)+d+4)
	out = append(out, b[:ins]...)
	out = append(out, outdir.PDFCreatorEntry...)
	out = append(out, b[ins:entries]...)
	for n := range m {
		e := b[entries+n*entry : entries+(n+1)*entry]
		off, err := offset(n)
		if err != nil {
			return bad("malformed cross-reference entry")
		}
		if e[17] == 'n' && off >= ins {
			out = append(out, fmt.Sprintf("%010d", off+d)...)
			out = append(out, e[10:]...)
			continue
		}
		out = append(out, e...)
	}
	out = append(out, b[entries+m*entry:i+len(sx)]...)
	out = strconv.AppendInt(out, int64(xref+d), 10)
	return append(out, b[numEnd:]...), nil
}
