package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expr"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// headerHint is appended to every error about the header.
const headerHint = "(header must be s,a,s_next or s0,…,a0,…,s_next0,…)"

// Read reads a data set in the format described in the package documentation
// from r. name identifies the input in error messages, usually by its path;
// an empty name is shown as "input".
//
// Every error about the contents of r wraps errs.ErrInvalidInput and has the
// form "name line N: what is wrong". An error returned by r itself does not
// wrap errs.ErrInvalidInput.
func Read(r io.Reader, name string) (*Transitions, error) {
	return read(r, name, sizeHint(r), Filter{}, true)
}

// ReadFile reads the data set in the file at path, which is also the name
// used in error messages (see Read). If the file cannot be opened, or is a
// directory, the error wraps errs.ErrInvalidInput.
func ReadFile(path string) (*Transitions, error) { return ReadFileFilter(path, Filter{}) }

// ReadFileFilter is ReadFile keeping only the transitions that f selects,
// which needs the run columns of a transitions log (LogHeader). A file
// whose name ends in .gz is read through gzip, whose trailer (length and
// CRC-32) tells a cut file: its last line need not end with a newline.
func ReadFileFilter(path string, f Filter) (*Transitions, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, errs.Invalid(fmt.Errorf("reading %s: is a directory", path))
	}
	hint := int64(-1)
	if fi.Mode().IsRegular() {
		hint = fi.Size()
	}
	if err := checkCompression(fh, path); err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(fh)
		if err != nil {
			return nil, errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
		}
		defer zr.Close()
		return read(gzData{zr}, path, -1, f, false)
	}
	return read(fh, path, hint, f, true)
}

// gzData reads a gzip stream, marking its errors (a cut stream's
// unexpected EOF, a checksum that does not match) as the file's fault.
type gzData struct{ r io.Reader }

func (g gzData) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = errs.Invalid(fmt.Errorf("%w (the gzip stream is cut short or corrupt)", err))
	}
	return n, err
}

// checkCompression refuses a file whose name and content disagree about
// gzip, with the fix: a gzip stream named .csv, which the CSV reader would
// misread (a bare quote somewhere in its binary), or a file named .gz that
// is not gzip. A file it cannot read at an offset (a pipe), or of fewer
// than two bytes, is left to the reader.
func checkCompression(fh *os.File, path string) error {
	var b [2]byte
	if n, _ := fh.ReadAt(b[:], 0); n < len(b) {
		return nil
	}
	gz := string(b[:]) == fsutil.GzipMagic
	switch named := strings.HasSuffix(path, ".gz"); {
	case gz && !named:
		return errs.Invalid(fmt.Errorf("reading %s: the file looks gzip-compressed (it starts with gzip's bytes 1f 8b): name it %s.gz, or decompress it", path, path))
	case !gz && named:
		return errs.Invalid(fmt.Errorf("reading %s: not gzip-compressed, as a file named .gz must be: name it %s, or compress it", path, strings.TrimSuffix(path, ".gz")))
	}
	return nil
}

// sizeHint returns the number of bytes left in r if r can tell cheaply,
// and -1 otherwise.
func sizeHint(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(r.Len())
	case *os.File:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil || off > fi.Size() {
			return -1
		}
		return fi.Size() - off
	}
	return -1
}

// parser holds the state of one call to Read.
type parser struct {
	name  string
	cr    *csv.Reader
	names []string // trimmed column names from the header
}

// read implements Read. hint is the number of bytes in r, or negative if
// unknown; it is only used to size the slices up front. newline requires
// the last transition's line to end with a newline (see lastByte).
func read(r io.Reader, name string, hint int64, f Filter, newline bool) (*Transitions, error) {
	if name == "" {
		name = "input"
	}
	tail := &lastByte{r: r}
	br := bufio.NewReaderSize(tail, 64<<10)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
		hint -= 3
	}
	// A pipe (--data /dev/stdin) escapes checkCompression's look at the
	// file: gzip's magic bytes would read as a header of garbage.
	if b, err := br.Peek(2); err == nil && string(b) == fsutil.GzipMagic {
		return nil, errs.Invalid(fmt.Errorf("%s: the data look gzip-compressed (they start with gzip's bytes 1f 8b): decompress them first (zcat), or give the .gz file itself", name))
	}
	p := &parser{name: name, cr: csv.NewReader(br)}
	p.cr.FieldsPerRecord = -1
	p.cr.ReuseRecord = true

	rec, err := p.header()
	if err != nil {
		return nil, err
	}
	lead, trail, msg := runColumns(p.names)
	if msg != "" {
		return nil, p.errorf(1, "%s %s", msg, headerHint)
	}
	if f.any() && lead == 0 {
		return nil, p.errorf(1, "a filter (agent, seeds, episodes) needs the columns %s of a run's transitions.csv, which the file does not have", strings.Join(runLead, ","))
	}
	ds, da, msg := parseHeader(p.names[lead : len(p.names)-trail])
	if msg != "" {
		return nil, p.errorf(1, "%s %s", msg, headerHint)
	}
	ncols := lead + 2*ds + da + trail
	core := lead + 2*ds + da // end of the s, a, s_next columns
	prevEnd := endLine(p.cr, rec)
	headerEnd := p.cr.InputOffset()

	t := &Transitions{StateDim: ds, ActionDim: da}
	firstBlank := 0 // first blank line seen since the last transition
	for {
		rec, err := p.cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, p.readError(err)
		}
		line, _ := p.cr.FieldPos(0)
		if firstBlank == 0 && line > prevEnd+1 {
			firstBlank = prevEnd + 1 // empty lines skipped by encoding/csv
		}
		prevEnd = endLine(p.cr, rec)
		if isBlank(rec) {
			if firstBlank == 0 {
				firstBlank = line
			}
			continue
		}
		if firstBlank != 0 {
			return nil, p.errorf(firstBlank, "blank line (blank lines are allowed only at the end of the file)")
		}
		if len(rec) != ncols {
			return nil, p.errorf(line, "expected %d fields, got %d", ncols, len(rec))
		}
		if t.S == nil {
			n := estimateRows(hint, headerEnd, p.cr.InputOffset(), ncols)
			t.S = make([]float64, 0, n*ds)
			t.A = make([]float64, 0, n*da)
			t.Next = make([]float64, 0, n*ds)
		}
		if lead+trail > 0 {
			keep, err := p.runCells(rec, lead, core, f)
			if err != nil {
				return nil, err
			}
			if !keep {
				continue
			}
		}
		if t.S, err = p.appendCells(t.S, rec, lead, lead+ds); err != nil {
			return nil, err
		}
		if t.A, err = p.appendCells(t.A, rec, lead+ds, lead+ds+da); err != nil {
			return nil, err
		}
		if t.Next, err = p.appendCells(t.Next, rec, lead+ds+da, core); err != nil {
			return nil, err
		}
	}
	if t.Len() == 0 && f.any() {
		return nil, errs.Invalid(fmt.Errorf("%s: no transitions match the filter %s", name, f))
	}
	if t.Len() == 0 {
		return nil, errs.Invalid(fmt.Errorf("%s: no transitions after the header", name))
	}
	// A blank line after the last transition ends it with a newline.
	if newline && firstBlank == 0 && tail.last != '\n' {
		return nil, p.errorf(prevEnd, "no newline at the end of the file: it may have been cut short (a number cut in the middle still reads as a number); end its last line with a newline if the line is complete")
	}
	return t, nil
}

// header reads the header, the first record that is not all blank, which
// must be on line 1 (encoding/csv skips empty lines itself), into p.names,
// trimmed, and returns the record.
func (p *parser) header() ([]string, error) {
	for {
		rec, err := p.cr.Read()
		if err == io.EOF {
			return nil, errs.Invalid(fmt.Errorf("%s: empty file (no header)", p.name))
		}
		if err != nil {
			return nil, p.readError(err)
		}
		if isBlank(rec) {
			continue
		}
		if line, _ := p.cr.FieldPos(0); line != 1 {
			return nil, p.errorf(1, "blank line before the header %s", headerHint)
		}
		p.names = make([]string, len(rec))
		for i, s := range rec {
			p.names[i] = strings.TrimSpace(s)
		}
		return rec, nil
	}
}

// appendCells appends the numbers of rec's columns [lo, hi) to dst.
func (p *parser) appendCells(dst []float64, rec []string, lo, hi int) ([]float64, error) {
	for j := lo; j < hi; j++ {
		v, err := p.parse(rec, j)
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
	}
	return dst, nil
}

// lastByte is a reader that remembers the last byte it read. A plain
// file cut in the middle of its last number (a copy or download stopped
// short) reads as a shorter number: only the missing newline tells.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// estimateRows guesses the number of data rows from the size of the input
// (hint, negative if unknown), the offset of the end of the header and the
// offset of the end of the first data row. The guess never exceeds what the
// remaining bytes could hold, so a short first row cannot cause a huge
// allocation.
func estimateRows(hint, headerEnd, firstEnd int64, ncols int) int {
	const unknown = 16
	rowBytes := firstEnd - headerEnd
	rest := hint - firstEnd
	if hint < 0 || rowBytes <= 0 || rest < 0 {
		return unknown
	}
	n := rest / rowBytes
	// Add slack for rows longer than the first one, and the first row.
	n += n/8 + 1
	// Every field takes at least 2 bytes (a digit and a separator).
	if most := rest/int64(2*ncols) + 1; n > most {
		n = most
	}
	return int(n)
}

// endLine returns the line on which the record just read ends.
func endLine(cr *csv.Reader, rec []string) int {
	last := len(rec) - 1
	line, _ := cr.FieldPos(last)
	return line + strings.Count(rec[last], "\n")
}

// isBlank reports whether rec comes from a line holding only whitespace.
func isBlank(rec []string) bool {
	return len(rec) == 1 && strings.TrimSpace(rec[0]) == ""
}

// parse parses field j of rec as a finite float64.
func (p *parser) parse(rec []string, j int) (float64, error) {
	s := strings.TrimSpace(rec[j])
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && v-v == 0 && decimal(s) && !expr.Underflows(s, v) { // v-v is NaN for NaN and ±Inf
		return v, nil
	}
	var msg string
	switch {
	case s == "":
		msg = "empty field"
	case errors.Is(err, strconv.ErrRange):
		msg = quote(s) + " " + expr.TooLarge
	case err == nil && decimal(s) && expr.Underflows(s, v):
		msg = quote(s) + " " + expr.TooSmall
	case err != nil:
		msg = quote(s) + " is not a number"
	case v-v == 0:
		msg = quote(s) + " is not a number in decimal notation (digits, sign, point, exponent)"
	case v != v:
		msg = "NaN is not allowed"
	case v > 0:
		msg = "+Inf is not allowed"
	default:
		msg = "-Inf is not allowed"
	}
	line, _ := p.cr.FieldPos(j)
	return 0, errs.Invalid(fmt.Errorf("%s line %d column %s: %s", p.name, line, quote(p.names[j]), msg))
}

// readError converts an error from the csv.Reader.
func (p *parser) readError(err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("reading %s: %w", p.name, err)
	}
	if pe.StartLine != pe.Line {
		return p.errorf(pe.Line, "%v at byte %d (in the record that starts on line %d)", pe.Err, pe.Column, pe.StartLine)
	}
	return p.errorf(pe.Line, "%v at byte %d", pe.Err, pe.Column)
}

// errorf returns an invalid-input error "name line N: ...".
func (p *parser) errorf(line int, format string, args ...any) error {
	return errs.Invalid(fmt.Errorf("%s line %d: %s", p.name, line, fmt.Sprintf(format, args...)))
}

// parseHeader infers the state and action dimensions from the trimmed column
// names of the header. On error it returns a description of what is wrong.
func parseHeader(names []string) (ds, da int, msg string) {
	if looksLikeData(names) {
		return 0, 0, "missing header: the first line looks like data"
	}
	if names[0] == "s" {
		for i, w := range [...]string{"s", "a", "s_next"} {
			if i >= len(names) {
				return 0, 0, fmt.Sprintf("missing column %q", w)
			}
			if names[i] != w {
				return 0, 0, fmt.Sprintf("column %d is %s, expected %q", i+1, quote(names[i]), w)
			}
		}
		if len(names) > 3 {
			return 0, 0, fmt.Sprintf("unexpected column 4 %s after \"s_next\"", quote(names[3]))
		}
		return 1, 1, ""
	}

	i := 0
	for i < len(names) && names[i] == "s"+strconv.Itoa(i) {
		i++
	}
	ds = i
	if ds == 0 {
		return 0, 0, fmt.Sprintf("column 1 is %s, expected \"s\" or \"s0\"", quote(names[0]))
	}
	for i < len(names) && names[i] == "a"+strconv.Itoa(i-ds) {
		i++
	}
	da = i - ds
	if da == 0 {
		if i == len(names) {
			return 0, 0, `missing column "a0"`
		}
		return 0, 0, fmt.Sprintf("column %d is %s, expected \"s%d\" or \"a0\"", i+1, quote(names[i]), ds)
	}
	for k := range ds {
		w := "s_next" + strconv.Itoa(k)
		switch {
		case i >= len(names):
			return 0, 0, fmt.Sprintf("missing column %q", w)
		case names[i] != w && k == 0:
			return 0, 0, fmt.Sprintf("column %d is %s, expected \"a%d\" or %q", i+1, quote(names[i]), da, w)
		case names[i] != w:
			return 0, 0, fmt.Sprintf("column %d is %s, expected %q", i+1, quote(names[i]), w)
		}
		i++
	}
	if i < len(names) {
		if names[i] == "s_next"+strconv.Itoa(ds) {
			return 0, 0, fmt.Sprintf("column %d is %s: there must be as many s_next columns as s columns (%d)", i+1, quote(names[i]), ds)
		}
		return 0, 0, fmt.Sprintf("unexpected column %d %s after %s", i+1, quote(names[i]), quote(names[i-1]))
	}
	return ds, da, ""
}

// looksLikeData reports whether every name is a number, as when the header
// line is missing.
func looksLikeData(names []string) bool {
	for _, s := range names {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return false
		}
	}
	return true
}

// quote returns s quoted by strconv.Quote, shortened if it is long.
func quote(s string) string {
	const limit = 40
	if len(s) <= limit {
		return strconv.Quote(s)
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "…"
}

// decimal reports whether s is written in decimal notation: digits, sign,
// point, exponent. strconv.ParseFloat also takes 0x1p-2 and 1_0.
func decimal(s string) bool { return s != "" && strings.Trim(s, "0123456789+-.eE") == "" }
