package fsutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// DropPartialLine keeps everything up to the last newline, across the
// blocks it reads backwards in, and reports whether it cut.
func TestDropPartialLine(t *testing.T) {
	long := strings.Repeat("x", 70<<10) + "\n" // a line longer than a block
	for _, c := range []struct{ in, want string }{
		{"a\nb\n", "a\nb\n"},
		{"a\nb\npart", "a\nb\n"},
		{"part", ""},
		{"", ""},
		{long + strings.Repeat("y", 100<<10), long},
	} {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := DropPartialLine(f, p)
		f.Close()
		got, _ := os.ReadFile(p)
		if err != nil || string(got) != c.want || cut != (c.in != c.want) {
			t.Errorf("%.20q: cut %v, err %v, left %d bytes; want %d bytes", c.in, cut, err, len(got), len(c.want))
		}
	}
}
