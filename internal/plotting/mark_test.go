package plotting

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"gonum.org/v1/plot/vg/draw"

	"github.com/smrl-dev/smrl/internal/outdir"
)

// Every figure smrl writes carries its mark, so that the same command run
// again may replace it (outdir.CheckFile), in every format; a second write
// replaces the first.
func TestFiguresCarrySmrlsMark(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"png", "svg", "pdf"} {
		path := filepath.Join(dir, "f."+format)
		opt, err := Options{Format: format, Width: 200, Height: 150}.normalize()
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := writeFigure(path, opt, func(c draw.Canvas) error {
				p := newPlot("a title with − and Ŵ", "x", "y")
				p.Draw(c)
				return nil
			}); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if err := outdir.CheckFile(path, outdir.FigureFile(format)); err != nil {
				t.Errorf("%s: %v", format, err)
			}
		}
		if format == "pdf" {
			b, _ := os.ReadFile(path)
			checkPDFXref(t, b)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("left %v, want the three figures only", ents)
	}
}

// checkPDFXref checks that every in-use entry of b's cross-reference table
// points at its object and startxref at the table.
func checkPDFXref(t *testing.T, b []byte) {
	t.Helper()
	i := bytes.LastIndex(b, []byte("startxref\n"))
	var x, m int
	fmt.Sscanf(string(b[i:]), "startxref\n%d", &x)
	if !bytes.HasPrefix(b[x:], []byte("xref\n0 ")) {
		t.Fatalf("startxref %d does not point at the xref table", x)
	}
	fmt.Sscanf(string(b[x:]), "xref\n0 %d", &m)
	entries := x + bytes.IndexByte(b[x+5:], '\n') + 6
	for n := 1; n < m; n++ {
		e := b[entries+20*n : entries+20*n+20]
		off, _ := strconv.Atoi(string(e[:10]))
		if !bytes.HasPrefix(b[off:], []byte(fmt.Sprintf("%d 0 obj", n))) {
			t.Errorf("xref entry %d: offset %d does not point at its object", n, off)
		}
	}
	if !bytes.Contains(b, []byte("0 obj\n<<\n"+outdir.PDFCreatorEntry+"/Producer")) {
		t.Error("the Creator is not in the document information dictionary")
	}
}

// A PDF not in fpdf's layout is an error, not a damaged file.
func TestMarkPDFRefusesOtherLayouts(t *testing.T) {
	for _, b := range []string{"", "%PDF-1.4\n%%EOF\n", "%PDF-1.4\nstartxref\n12\n%%EOF\n", "%PDF-1.4\nstartxref\n999"} {
		if _, err := markPDF([]byte(b)); err == nil {
			t.Errorf("markPDF(%q) succeeded", b)
		}
	}
}

// writePNG marks both of its encodings with the tEXt chunk.
func TestWritePNGMark(t *testing.T) {
	for _, alpha := range []uint8{255, 128} {
		img := image.NewRGBA(image.Rect(0, 0, 5, 4))
		for i := range img.Pix {
			img.Pix[i] = alpha
		}
		img.SetRGBA(0, 0, color.RGBA{0, 0, 0, alpha})
		path := filepath.Join(t.TempDir(), "a.png")
		var b bytes.Buffer
		if err := writePNG(&b, img); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, b.Bytes(), 0o644)
		if err := outdir.CheckFile(path, outdir.FigureFile("png")); err != nil {
			t.Errorf("alpha %d: %v", alpha, err)
		}
	}
}
