package outdir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// pngWith returns a small PNG (image/png's encoding) with the chunk typ
// holding data inserted after IHDR, or, with afterData, before IEND.
func pngWith(t *testing.T, typ string, data []byte, afterData bool) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	if typ == "" {
		return raw
	}
	var c bytes.Buffer
	binary.Write(&c, binary.BigEndian, uint32(len(data)))
	c.WriteString(typ)
	c.Write(data)
	binary.Write(&c, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	at := 8 + 12 + 13
	if afterData {
		at = len(raw) - 12
	}
	return append(append(append([]byte{}, raw[:at]...), c.Bytes()...), raw[at:]...)
}

// A file at a path the user chose may be replaced only when smrl wrote it:
// a CSV whose first line is the header smrl writes, a figure with smrl's
// mark. Anything else there is refused, naming the path.
func TestCheckFile(t *testing.T) {
	const header = "method,n,repeat,frobenius_error"
	mark := PNGTextChunk()
	svg := `<?xml version="1.0"?>` + "\n" + SVGComment + "\n<svg></svg>\n"
	pdf := "%PDF-1.4\n" + strings.Repeat("x", 100<<10) + "\n11 0 obj\n<<\n" + PDFCreatorEntry + "/Producer (FPDF)\n>>\nendobj\n%%EOF\n"
	for _, tc := range []struct {
		name    string
		content []byte // nil: no file
		kind    FileKind
		errHas  string // "": accepted
	}{
		{"missing.csv", nil, CSVFile(header), ""},
		{"own.csv", []byte(header + "\nsm,10,0,1\n"), CSVFile(header), ""},
		{"header-only.csv", []byte(header + "\n"), CSVFile(header), ""},
		{"user.csv", []byte("precious\n"), CSVFile(header), "is not the CSV file smrl writes there (its first line is " + header + ")"},
		{"empty.csv", []byte{}, CSVFile(header), "is not the CSV file"},
		{"crlf.csv", []byte(header + "\r\nsm,10,0,1\r\n"), CSVFile(header), "is not the CSV file"},
		{"longer-header.csv", []byte(header + ",x\n"), CSVFile(header), "is not the CSV file"},
		{"other-smrl.csv", []byte("agent,seed,episode\n"), CSVFile(header), "is not the CSV file"},
		{"own.png", pngWith(t, "tEXt", mark, false), FigureFile("png"), ""},
		{"plain.png", pngWith(t, "", nil, false), FigureFile("png"), "is not a PNG figure smrl wrote (with the tEXt chunk Software=smrl)"},
		{"other-text.png", pngWith(t, "tEXt", []byte("Software\x00GIMP"), false), FigureFile("png"), "is not a PNG figure"},
		{"mark-after-data.png", pngWith(t, "tEXt", mark, true), FigureFile("png"), "is not a PNG figure"},
		{"text.png", []byte("img\n"), FigureFile("png"), "is not a PNG figure"},
		{"own.svg", []byte(svg), FigureFile("svg"), ""},
		{"user.svg", []byte(`<?xml version="1.0"?>` + "\n<svg></svg>\n"), FigureFile("svg"), "is not an SVG figure smrl wrote"},
		{"late-comment.svg", []byte(`<?xml version="1.0"?>` + "\n<svg>" + SVGComment + "\n</svg>\n"), FigureFile("svg"), "is not an SVG figure"},
		{"own.pdf", []byte(pdf), FigureFile("pdf"), ""},
		{"user.pdf", []byte(strings.Replace(pdf, PDFCreatorEntry, "/Creator (LaTeX)\n", 1)), FigureFile("pdf"), "is not a PDF figure smrl wrote (with Creator smrl)"},
		{"not.pdf", []byte(strings.Replace(pdf, "%PDF-", "%XYZ-", 1)), FigureFile("pdf"), "is not a PDF figure"},
		{"own.png-as-svg", pngWith(t, "tEXt", mark, false), FigureFile("svg"), "is not an SVG figure"},
		{"any.gif", []byte("GIF89a"), FigureFile("gif"), "it marks no gif files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			if tc.content != nil {
				if err := os.WriteFile(path, tc.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckFile(path, tc.kind)
			if tc.errHas == "" {
				if err != nil {
					t.Fatalf("CheckFile: %v", err)
				}
				return
			}
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.errHas) ||
				!strings.Contains(err.Error(), "smrl never replaces a file it did not write") {
				t.Fatalf("CheckFile: %v, want an invalid-input error naming %s and %q", err, path, tc.errHas)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, tc.content) {
				t.Error("the file changed")
			}
		})
	}
}

// A directory or a symbolic link (even to a file smrl wrote) is refused.
func TestCheckFileNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	const header = "a,b"
	if err := CheckFile(dir, CSVFile(header)); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	own := filepath.Join(dir, "own.csv")
	os.WriteFile(own, []byte(header+"\n"), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(own, link); err != nil {
		t.Skip(err)
	}
	if err := CheckFile(link, CSVFile(header)); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("symbolic link: %v", err)
	}
}
