package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

const hint = " (header must be s,a,s_next or s0,…,a0,…,s_next0,…)"

func TestReadValid(t *testing.T) {
	for _, test := range []struct {
		name string
		in   string
		want Transitions
	}{
		{
			name: "1-D",
			in:   "s,a,s_next\n1,2,3\n4,5,6\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1, 4}, A: []float64{2, 5}, Next: []float64{3, 6}},
		},
		{
			name: "indexed 1-D",
			in:   "s0,a0,s_next0\n1,2,3\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "ds=1 da=2",
			in:   "s0,a0,a1,s_next0\n1,2,3,4\n",
			want: Transitions{StateDim: 1, ActionDim: 2, S: []float64{1}, A: []float64{2, 3}, Next: []float64{4}},
		},
		{
			name: "ds=2 da=1",
			in:   "s0,s1,a0,s_next0,s_next1\n1,2,3,4,5\n6,7,8,9,10\n",
			want: Transitions{StateDim: 2, ActionDim: 1, S: []float64{1, 2, 6, 7}, A: []float64{3, 8}, Next: []float64{4, 5, 9, 10}},
		},
		{
			name: "ds=3 da=2",
			in:   "s0,s1,s2,a0,a1,s_next0,s_next1,s_next2\n1,2,3,4,5,6,7,8\n",
			want: Transitions{StateDim: 3, ActionDim: 2, S: []float64{1, 2, 3}, A: []float64{4, 5}, Next: []float64{6, 7, 8}},
		},
		{
			name: "whitespace around names and values",
			in:   " s ,\ta\t, s_next \n 1 ,\t2 , 3\t\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "quoted names and values",
			in:   "\"s\",\"a\",\"s_next\"\n\"1\",2,\" 3 \"\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "CRLF",
			in:   "s0,s1,a0,s_next0,s_next1\r\n1,2,3,4,5\r\n6,7,8,9,10\r\n",
			want: Transitions{StateDim: 2, ActionDim: 1, S: []float64{1, 2, 6, 7}, A: []float64{3, 8}, Next: []float64{4, 5, 9, 10}},
		},
		{
			name: "CRLF with trailing empty line",
			in:   "s,a,s_next\r\n1,2,3\r\n\r\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "blank last line without a newline",
			in:   "s,a,s_next\n1,2,3\n \t",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "trailing empty lines",
			in:   "s,a,s_next\n1,2,3\n\n\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "trailing whitespace line",
			in:   "s,a,s_next\n1,2,3\n  \t\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "byte order mark",
			in:   "\ufeffs,a,s_next\n1,2,3\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}},
		},
		{
			name: "number syntax",
			in:   "s,a,s_next\n-0,1e-3,0.25\n+5,.5,5.\n0e-400,4.9e-324,-1.7976931348623157e308\n",
			want: Transitions{StateDim: 1, ActionDim: 1,
				S:    []float64{math.Copysign(0, -1), 5, 0},
				A:    []float64{1e-3, 0.5, 5e-324},
				Next: []float64{0.25, 5, -math.MaxFloat64}},
		},
		{
			name: "newline inside a quoted field",
			in:   "s,a,s_next\n1,\"2\n\",3\n4,5,6\n",
			want: Transitions{StateDim: 1, ActionDim: 1, S: []float64{1, 4}, A: []float64{2, 5}, Next: []float64{3, 6}},
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := Read(strings.NewReader(test.in), "data.csv")
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !sameTransitions(got, &test.want) {
				t.Errorf("got %+v, want %+v", *got, test.want)
			}
		})
	}
}

func TestReadInvalid(t *testing.T) {
	const noNewline = "no newline at the end of the file: it may have been cut short (a number cut in the middle still reads as a number); end its last line with a newline if the line is complete"
	const h = "s,a,s_next\n"
	for _, test := range []struct {
		name string
		in   string
		want string // the whole error message
	}{
		// Empty files.
		{"empty", "", `data.csv: empty file (no header)`},
		{"only newlines", "\n\r\n\n", `data.csv: empty file (no header)`},
		{"only whitespace", "  \n\t\n", `data.csv: empty file (no header)`},
		{"header only", h, `data.csv: no transitions after the header`},
		{"header only without newline", "s,a,s_next", `data.csv: no transitions after the header`},
		// Issue 35, item 5: a file cut in its last number (6.25 → 6.2)
		// still parses; only the missing newline tells.
		{"cut in the last number", h + "1,2,3\n4,5,6.2", `data.csv line 3: ` + noNewline},
		{"no final newline, CRLF", "s,a,s_next\r\n1,2,3\r\n4,5,6", `data.csv line 3: ` + noNewline},
		{"no final newline after a multi-line field", h + "1,\"2\n\",3", `data.csv line 3: ` + noNewline},
		{"header and empty lines", h + "\n\n", `data.csv: no transitions after the header`},

		// The header.
		{"missing s_next", "s,a\n1,2\n", `data.csv line 1: missing column "s_next"` + hint},
		{"missing a", "s\n1\n", `data.csv line 1: missing column "a"` + hint},
		{"wrong plain name", "s,b,s_next\n1,2,3\n", `data.csv line 1: column 2 is "b", expected "a"` + hint},
		{"mixed forms", "s,a0,s_next\n1,2,3\n", `data.csv line 1: column 2 is "a0", expected "a"` + hint},
		{"extra plain column", "s,a,s_next,r\n1,2,3,4\n", `data.csv line 1: unexpected column 4 "r" after "s_next"` + hint},
		{"trailing comma in header", "s,a,s_next,\n1,2,3\n", `data.csv line 1: unexpected column 4 "" after "s_next"` + hint},
		{"upper case", "S,A,S_NEXT\n1,2,3\n", `data.csv line 1: column 1 is "S", expected "s" or "s0"` + hint},
		{"action first", "a0,s0,s_next0\n1,2,3\n", `data.csv line 1: column 1 is "a0", expected "s" or "s0"` + hint},
		{"state gap", "s0,s2,a0,s_next0,s_next1\n1,2,3,4,5\n", `data.csv line 1: column 2 is "s2", expected "s1" or "a0"` + hint},
		{"no actions", "s0,s1\n1,2\n", `data.csv line 1: missing column "a0"` + hint},
		{"no actions before next", "s0,s_next0\n1,2\n", `data.csv line 1: column 2 is "s_next0", expected "s1" or "a0"` + hint},
		{"next index", "s0,a0,s_next1\n1,2,3\n", `data.csv line 1: column 3 is "s_next1", expected "a1" or "s_next0"` + hint},
		{"too few next", "s0,s1,a0,s_next0\n1,2,3,4\n", `data.csv line 1: missing column "s_next1"` + hint},
		{"next gap", "s0,s1,a0,s_next0,s_next2\n1,2,3,4,5\n", `data.csv line 1: column 5 is "s_next2", expected "s_next1"` + hint},
		{"too many next", "s0,a0,s_next0,s_next1\n1,2,3,4\n",
			`data.csv line 1: column 4 is "s_next1": there must be as many s_next columns as s columns (1)` + hint},
		{"extra indexed column", "s0,a0,s_next0,r\n1,2,3,4\n", `data.csv line 1: unexpected column 4 "r" after "s_next0"` + hint},
		{"leading zero", "s00,a0,s_next0\n1,2,3\n", `data.csv line 1: column 1 is "s00", expected "s" or "s0"` + hint},
		{"no header", "1,2,3\n4,5,6\n", `data.csv line 1: missing header: the first line looks like data` + hint},
		{"long name", strings.Repeat("x", 100) + ",a,s_next\n",
			`data.csv line 1: column 1 is "` + strings.Repeat("x", 40) + `"…, expected "s" or "s0"` + hint},
		{"empty line before header", "\ns,a,s_next\n1,2,3\n", `data.csv line 1: blank line before the header` + hint},
		{"whitespace line before header", " \ns,a,s_next\n1,2,3\n", `data.csv line 1: blank line before the header` + hint},

		// Field counts.
		{"short row", h + "1,2,3\n4,5,6\n7,8\n", `data.csv line 4: expected 3 fields, got 2`},
		{"long row", h + "1,2,3,4\n", `data.csv line 2: expected 3 fields, got 4`},
		{"short row ds=3 da=2", "s0,s1,s2,a0,a1,s_next0,s_next1,s_next2\n1,2,3,4,5,6,7\n", `data.csv line 2: expected 8 fields, got 7`},
		{"trailing comma in row", h + "1,2,3,\n", `data.csv line 2: expected 3 fields, got 4`},

		// Values.
		{"not a number", h + "1,2,3\n1,2,3\n1,2,3\n1,2,3\n1,2,3\n1,abc,3\n", `data.csv line 7 column "a": "abc" is not a number`},
		{"NaN", h + strings.Repeat("1,2,3\n", 7) + "1,2,NaN\n", `data.csv line 9 column "s_next": NaN is not allowed`},
		{"nan", h + "nan,2,3\n", `data.csv line 2 column "s": NaN is not allowed`},
		{"+Inf", h + "1,+Inf,3\n", `data.csv line 2 column "a": +Inf is not allowed`},
		{"inf", h + "1,2,inf\n", `data.csv line 2 column "s_next": +Inf is not allowed`},
		{"-Infinity", h + "-Infinity,2,3\n", `data.csv line 2 column "s": -Inf is not allowed`},
		{"overflow", h + "1,2,1e400\n", `data.csv line 2 column "s_next": "1e400" is out of range: too large for a float64`},
		// Issue 35, item 12: a number that is not zero is not read as 0.
		{"underflow", h + "1,2,3\n1e-400,2,3\n", `data.csv line 3 column "s": "1e-400" is out of range: too small for a float64 (it would be 0)`},
		{"underflow, point and capital E", h + "1,-0.5E-330,3\n", `data.csv line 2 column "a": "-0.5E-330" is out of range: too small for a float64 (it would be 0)`},
		{"empty field", h + "1,,3\n", `data.csv line 2 column "a": empty field`},
		{"blank field", h + "1,2, \t\n", `data.csv line 2 column "s_next": empty field`},
		{"comma decimal", h + "\"1,5\",2,3\n", `data.csv line 2 column "s": "1,5" is not a number`},
		{"indexed column name", "s0,s1,s2,a0,a1,s_next0,s_next1,s_next2\n1,2,3,4,5,6,7,x\n", `data.csv line 2 column "s_next2": "x" is not a number`},
		{"CRLF bad value", "s,a,s_next\r\n1,2,3\r\n4,x,6\r\n", `data.csv line 3 column "a": "x" is not a number`},
		// Issue 19, item 12: forms strconv.ParseFloat takes that no data file means.
		{"hexadecimal", h + "1,2,0x1p-2\n", `data.csv line 2 column "s_next": "0x1p-2" is not a number in decimal notation (digits, sign, point, exponent)`},
		{"underscored", h + "1_0,2,3\n", `data.csv line 2 column "s": "1_0" is not a number in decimal notation (digits, sign, point, exponent)`},
		{"long value", h + "1,2," + strings.Repeat("9", 30) + strings.Repeat("z", 30) + "\n",
			`data.csv line 2 column "s_next": "` + strings.Repeat("9", 30) + strings.Repeat("z", 10) + `"… is not a number`},
		{"value after multi-line field", h + "1,\"2\n\",3\n4,5,x\n", `data.csv line 4 column "s_next": "x" is not a number`},

		// Blank lines.
		{"empty line in the middle", h + "1,2,3\n\n4,5,6\n", `data.csv line 3: blank line (blank lines are allowed only at the end of the file)`},
		{"empty line after header", h + "\n1,2,3\n", `data.csv line 2: blank line (blank lines are allowed only at the end of the file)`},
		{"whitespace line in the middle", h + "1,2,3\n  \n4,5,6\n", `data.csv line 3: blank line (blank lines are allowed only at the end of the file)`},
		{"several empty lines", h + "1,2,3\n\n\n4,5,6\n", `data.csv line 3: blank line (blank lines are allowed only at the end of the file)`},
		{"whitespace then empty", h + "1,2,3\n \n\n4,5,6\n", `data.csv line 3: blank line (blank lines are allowed only at the end of the file)`},
		{"empty then whitespace", h + "1,2,3\n\n \n4,5,6\n", `data.csv line 3: blank line (blank lines are allowed only at the end of the file)`},
		{"CRLF empty line", "s,a,s_next\r\n1,2,3\r\n\r\n4,5,6\r\n", `data.csv line 3: blank line (blank lines are allowed only at the end of the file)`},
		{"empty line after multi-line field", h + "1,\"2\n\",3\n\n4,5,6\n", `data.csv line 4: blank line (blank lines are allowed only at the end of the file)`},

		// CSV syntax.
		{"bare quote", h + "1,2\"x,3\n", `data.csv line 2: bare " in non-quoted-field at byte 4`},
		{"bad quote", h + "1,\"2\"x,3\n", `data.csv line 2: extraneous or missing " in quoted-field at byte 5`},
		{"unterminated quote", h + "1,\"2,3\n4,5,6\n", `data.csv line 3: extraneous or missing " in quoted-field at byte 7 (in the record that starts on line 2)`},
	} {
		t.Run(test.name, func(t *testing.T) {
			got, err := Read(strings.NewReader(test.in), "data.csv")
			if err == nil {
				t.Fatalf("no error, got %+v", *got)
			}
			if got != nil {
				t.Errorf("got non-nil Transitions with error")
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %q does not wrap errs.ErrInvalidInput", err)
			}
			if err.Error() != test.want {
				t.Errorf("error\n got %s\nwant %s", err, test.want)
			}
		})
	}
}

func TestReadName(t *testing.T) {
	for _, test := range []struct {
		name, want string
	}{
		{"", "input: empty file (no header)"},
		{"dir/x.csv", "dir/x.csv: empty file (no header)"},
	} {
		_, err := Read(strings.NewReader(""), test.name)
		if err == nil || err.Error() != test.want {
			t.Errorf("Read(%q): got error %v, want %s", test.name, err, test.want)
		}
	}
}

func TestReadIOError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("s,a,s_next\n1,2,3\n"), iotest.ErrReader(boom))
	_, err := Read(r, "data.csv")
	if !errors.Is(err, boom) {
		t.Fatalf("got error %v, want it to wrap %v", err, boom)
	}
	if errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("I/O error %q wraps errs.ErrInvalidInput", err)
	}
	if want := "reading data.csv: boom"; err.Error() != want {
		t.Errorf("got error %q, want %q", err, want)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(good, []byte("s,a,s_next\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("s,a,s_next\n1,2,3\n4,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.csv")

	got, err := ReadFile(good)
	if err != nil {
		t.Fatalf("ReadFile(good): %v", err)
	}
	want := &Transitions{StateDim: 1, ActionDim: 1, S: []float64{1}, A: []float64{2}, Next: []float64{3}}
	if !sameTransitions(got, want) {
		t.Errorf("ReadFile(good) = %+v, want %+v", *got, *want)
	}

	for _, test := range []struct {
		name, path, want string
		notExist         bool
	}{
		{"missing", missing, "reading " + missing + ": open " + missing + ": no such file or directory", true},
		{"directory", dir, "reading " + dir + ": is a directory", false},
		{"bad data", bad, bad + " line 3: expected 3 fields, got 2", false},
	} {
		t.Run(test.name, func(t *testing.T) {
			_, err := ReadFile(test.path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Errorf("error %q does not wrap errs.ErrInvalidInput", err)
			}
			if test.notExist && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("error %q does not wrap fs.ErrNotExist", err)
			}
			if err.Error() != test.want {
				t.Errorf("error\n got %s\nwant %s", err, test.want)
			}
		})
	}
}

// TestReadPrealloc checks that reading a file of known size sizes the slices
// from it instead of growing them.
func TestReadPrealloc(t *testing.T) {
	want := randomTransitions(3, 2, 5000, 1)
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, test := range []struct {
		name string
		read func() (*Transitions, error)
	}{
		{"ReadFile", func() (*Transitions, error) { return ReadFile(path) }},
		{"Read *os.File", func() (*Transitions, error) { return Read(f, path) }},
	} {
		got, err := test.read()
		if err != nil {
			t.Fatalf("%s: %v", test.name, err)
		}
		if !sameTransitions(got, want) {
			t.Fatalf("%s: data differ", test.name)
		}
		n := want.Len()
		if c := cap(got.S) / got.StateDim; c < n || c > n+n/4 {
			t.Errorf("%s: cap(S) holds %d transitions, want between %d and %d", test.name, c, n, n+n/4)
		}
	}
}

func TestEstimateRows(t *testing.T) {
	for _, test := range []struct {
		name                      string
		hint, headerEnd, firstEnd int64
		ncols, want               int
	}{
		{"unknown size", -1, 10, 20, 3, 16},
		{"exact", 10 + 10*100, 10, 20, 3, 99 + 99/8 + 1},
		{"only row", 20, 10, 20, 3, 1},
		{"short first row", 10 + 6 + 1000, 10, 16, 3, 1000/6 + 1},
		{"inconsistent hint", 5, 10, 20, 3, 16},
	} {
		if got := estimateRows(test.hint, test.headerEnd, test.firstEnd, test.ncols); got != test.want {
			t.Errorf("%s: got %d, want %d", test.name, got, test.want)
		}
	}
}

// sameTransitions reports whether a and b have the same dimensions and
// bitwise identical values.
func sameTransitions(a, b *Transitions) bool {
	return a.StateDim == b.StateDim && a.ActionDim == b.ActionDim &&
		numeric.SameBits(a.S, b.S) && numeric.SameBits(a.A, b.A) && numeric.SameBits(a.Next, b.Next)
}

// A plain file must end its last transition with a newline (a file cut in
// its last number reads as another number); a .gz file need not, since
// gzip's trailer tells a cut file, which is refused.
func TestReadFileFinalNewline(t *testing.T) {
	dir := t.TempDir()
	body := []byte("s,a,s_next\n1,2,3\n4,5,6.25")
	plain := filepath.Join(dir, "cut.csv")
	if err := os.WriteFile(plain, body[:len(body)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(plain); err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.HasPrefix(err.Error(), plain+" line 3: no newline at the end of the file") {
		t.Errorf("plain file cut in its last number: error %v", err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(body)
	zw.Close()
	gz := filepath.Join(dir, "whole.csv.gz")
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(gz)
	if err != nil || got.Len() != 2 || got.Next[1] != 6.25 {
		t.Fatalf("whole .gz file without a final newline: %v, %+v", err, got)
	}
	cut := filepath.Join(dir, "cut.csv.gz")
	if err := os.WriteFile(cut, zb.Bytes()[:zb.Len()-4], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(cut); err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "cut short or corrupt") {
		t.Errorf("cut .gz file: error %v", err)
	}
}
