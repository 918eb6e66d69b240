//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Issue 19, item 7: --config /dev/zero grew to gigabytes and died with
// "fatal error: out of memory"; a FIFO hung. A config must be a regular
// file of at most MaxFileBytes, refused at once otherwise: the first file
// and every file layered over it (--config A --config B).
func TestConfigFileMustBeSmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	os.WriteFile(first, []byte("seeds: 1\n"), 0o644)
	for _, layered := range []bool{false, true} {
		t.Run(map[bool]string{false: "first", true: "layered"}[layered], func(t *testing.T) {
			testConfigFileMustBeSmallRegularFile(t, t.TempDir(), func(path string) Options {
				if layered {
					return Options{Path: first, Paths: []string{path}}
				}
				return Options{Path: path}
			})
		})
	}
}

func testConfigFileMustBeSmallRegularFile(t *testing.T, dir string, opts func(string) Options) {
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	big := filepath.Join(dir, "big.yaml")
	os.WriteFile(big, []byte("seeds: 1\n#"+strings.Repeat("x", MaxFileBytes)+"\n"), 0o644)
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "not a regular file (a device)"},
		{fifo, "not a regular file (a named pipe)"},
		{dir, "is a directory"},
		{big, "larger than 16 MiB"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(opts(tc.path))
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load(%s) = %v, want invalid input naming it and saying %q", tc.path, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Load(%s) hangs", tc.path)
		}
	}
}
