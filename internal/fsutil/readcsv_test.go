package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string // content "" with name "missing": no file
		rows          int
		errHas        []string
	}{
		{name: "ok.csv", content: "a,b\n1,2\n", rows: 2},
		{name: "empty.csv", content: "", rows: 0},
		{name: "missing", errHas: []string{"missing not found: not run yet"}},
		{name: "truncated.csv", content: "a,b\n1,", errHas: []string{"truncated.csv does not end with a newline"}},
		{name: "ragged.csv", content: "a,b\n1,2,3\n", errHas: []string{"ragged.csv", "wrong number of fields"}},
		{name: "quote.csv", content: "a,b\n\"1,2\n", errHas: []string{"quote.csv"}},
		// A gzip stream (here the empty one, 1f 8b 08 …, ending in a newline
		// byte so that only the hint tells it) gets a hint, not "bare \"".
		{name: "gzipped.csv", content: "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\n", errHas: []string{"gzipped.csv looks gzip-compressed", "decompress it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if tc.name != "missing" {
				if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			recs, err := ReadCSV(path, "not run yet")
			if tc.errHas == nil {
				if err != nil || len(recs) != tc.rows {
					t.Fatalf("got %d rows, %v; want %d rows", len(recs), err, tc.rows)
				}
				return
			}
			if err == nil || !errors.Is(err, errs.ErrInvalidInput) {
				t.Fatalf("err = %v, want one wrapping ErrInvalidInput", err)
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("err %q does not contain %q", err, s)
				}
			}
		})
	}
}
