package outdir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/smrl-dev/smrl/internal/errs"
)

// The marks by which smrl knows a file it wrote at a path the user chose
// (smrl estimate --out and --plot, smrl plot --sweep): the writers put
// them into every file of their kind, and CheckFile looks for them.
const (
	// PNGKeyword and PNGText are the tEXt chunk that every PNG smrl writes
	// carries right after its header chunk.
	PNGKeyword = "Software"
	PNGText    = "smrl"
	// SVGComment is the second line of every SVG smrl writes, after the
	// XML declaration.
	SVGComment = "<!-- Generator: smrl -->"
	// PDFCreator is the Creator of the document information dictionary
	// of every PDF smrl writes.
	PDFCreator = "smrl"
)

// PNGTextChunk is the data of the tEXt chunk with PNGKeyword and PNGText.
func PNGTextChunk() []byte { return []byte(PNGKeyword + "\x00" + PNGText) }

// PDFCreatorEntry is the line of the document information dictionary that
// names PDFCreator.
const PDFCreatorEntry = "/Creator (" + PDFCreator + ")\n"

// FileKind is a kind of file smrl writes at a path the user chose, and how
// to recognise one that smrl wrote.
type FileKind struct {
	what  string // for messages: "a CSV file smrl wrote (its first line is ...)"
	owned func(f *os.File, size int64) bool
}

// CSVFile is a CSV file whose first line smrl writes as header.
func CSVFile(header string) FileKind {
	return FileKind{
		what: fmt.Sprintf("the CSV file smrl writes there (its first line is %s)", header),
		owned: func(f *os.File, size int64) bool {
			want := header + "\n"
			b := readAt(f, 0, len(want))
			return string(b) == want
		},
	}
}

// PrefixFile is a file smrl writes beginning with prefix (e.g. a JSON
// file whose first key names its format); what describes it for messages.
func PrefixFile(prefix, what string) FileKind {
	return FileKind{
		what: what,
		owned: func(f *os.File, size int64) bool {
			return string(readAt(f, 0, len(prefix))) == prefix
		},
	}
}

// FigureFile is a figure in format png, svg or pdf, which smrl marks as
// its own: a PNG by its tEXt chunk PNGKeyword=PNGText, an SVG by the
// comment SVGComment, a PDF by its Creator PDFCreator.
func FigureFile(format string) FileKind {
	switch format {
	case "png":
		return FileKind{what: fmt.Sprintf("a PNG figure smrl wrote (with the tEXt chunk %s=%s)", PNGKeyword, PNGText), owned: pngOwned}
	case "svg":
		return FileKind{what: "an SVG figure smrl wrote (with the comment " + SVGComment + ")", owned: svgOwned}
	case "pdf":
		return FileKind{what: "a PDF figure smrl wrote (with Creator " + PDFCreator + ")", owned: pdfOwned}
	}
	// A format smrl has no mark for: no existing file is smrl's.
	return FileKind{what: fmt.Sprintf("a file smrl can tell it wrote (it marks no %s files)", format), owned: func(*os.File, int64) bool { return false }}
}

// CheckFile reports whether smrl may write a file of kind at path, without
// writing anything: nil when nothing is there or the file there is one
// smrl wrote (it carries kind's mark), so that running a command again
// replaces its own output. Anything else, a file of the user's, a
// directory or a symbolic link, is refused with an error wrapping
// errs.ErrInvalidInput that names path. Commands check every file they
// will write before they start any work.
func CheckFile(path string, kind FileKind) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case fi.IsDir():
		return errs.Invalid(fmt.Errorf("%s is a directory; give the file to write", describe(path)))
	case !fi.Mode().IsRegular():
		return errs.Invalid(fmt.Errorf("%s exists and is not a regular file (%s); smrl never replaces a file it did not write: choose another path", describe(path), fi.Mode().Type()))
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	if kind.owned(f, fi.Size()) {
		return nil
	}
	return errs.Invalid(fmt.Errorf("%s exists and is not %s; smrl never replaces a file it did not write: choose another path, or remove the file first", describe(path), kind.what))
}

// readAt returns up to n bytes of f from offset off.
func readAt(f *os.File, off int64, n int) []byte {
	b := make([]byte, n)
	m, err := f.ReadAt(b, off)
	if err != nil && err != io.EOF {
		return nil
	}
	return b[:m]
}

// pngOwned reports whether f is a PNG with smrl's tEXt chunk among the
// chunks before its image data.
func pngOwned(f *os.File, size int64) bool {
	const sig = "\x89PNG\r\n\x1a\n"
	if string(readAt(f, 0, len(sig))) != sig {
		return false
	}
	want := PNGTextChunk()
	off := int64(len(sig))
	for range 64 {
		h := readAt(f, off, 8)
		if len(h) < 8 {
			return false
		}
		n := int64(binary.BigEndian.Uint32(h[:4]))
		switch string(h[4:]) {
		case "tEXt":
			if n == int64(len(want)) && bytes.Equal(readAt(f, off+8, len(want)), want) {
				return true
			}
		case "IDAT", "IEND":
			return false
		}
		off += 12 + n
		if off >= size {
			return false
		}
	}
	return false
}

// svgOwned reports whether f begins with an XML declaration line followed
// by SVGComment.
func svgOwned(f *os.File, _ int64) bool {
	head := readAt(f, 0, 512)
	i := bytes.IndexByte(head, '\n')
	return i >= 0 && bytes.HasPrefix(head, []byte("<?xml")) && bytes.HasPrefix(head[i+1:], []byte(SVGComment+"\n"))
}

// pdfOwned reports whether f is a PDF whose document information, near
// its end, names PDFCreator.
func pdfOwned(f *os.File, size int64) bool {
	if string(readAt(f, 0, 5)) != "%PDF-" {
		return false
	}
	const tail = 64 << 10
	off := max(size-tail, 0)
	return bytes.Contains(readAt(f, off, int(size-off)), []byte("\n<<\n"+PDFCreatorEntry))
}
