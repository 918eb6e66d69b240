package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// A file whose name and content disagree about gzip is refused with the
// fix, naming the file: a gzip stream named .csv (it was "bare \" in
// non-quoted-field" with no hint, issue 35 defect 10), a plain file named
// .gz. Files that agree are read.
func TestReadFileCompressionMismatch(t *testing.T) {
	const body = "s,a,s_next\n0.5,1,0.25\n"
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte(body))
	zw.Close()
	dir := t.TempDir()
	files := map[string][]byte{"gz.csv": zb.Bytes(), "plain.csv.gz": []byte(body), "ok.csv": []byte(body), "ok.csv.gz": zb.Bytes()}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"gz.csv":       "looks gzip-compressed (it starts with gzip's bytes 1f 8b): name it " + filepath.Join(dir, "gz.csv.gz"),
		"plain.csv.gz": "not gzip-compressed, as a file named .gz must be: name it " + filepath.Join(dir, "plain.csv"),
	} {
		path := filepath.Join(dir, name)
		_, err := ReadFile(path)
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want invalid input naming it and %q", name, err, want)
		}
	}
	for _, name := range []string{"ok.csv", "ok.csv.gz"} {
		if d, err := ReadFile(filepath.Join(dir, name)); err != nil || d.Len() != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A gzip stream read from a pipe (--data /dev/stdin), which
// checkCompression cannot look at, is refused with the fix, not read as a
// header of garbage ("column 1 is \x1f\x8b…").
func TestReadGzipStreamFromAPipe(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("s,a,s_next\n0.5,1,0.25\n"))
	zw.Close()
	_, err := Read(&buf, "/dev/stdin")
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "/dev/stdin: the data look gzip-compressed") || !strings.Contains(err.Error(), "zcat") {
		t.Errorf("err = %v", err)
	}
}
