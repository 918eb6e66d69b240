package fsutil

import (
	"bytes"
	"fmt"
	"os"
)

// DropPartialLine truncates f (named path in errors), a file of lines
// appended one write at a time, after its last newline: a last line a
// kill cut short is removed, so that the next line starts on its own. It
// reads backwards in blocks, not the whole file, and reports whether it
// cut anything (the caller syncs the cut when it must be durable).
func DropPartialLine(f *os.File, path string) (cut bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	size := fi.Size()
	keep := int64(0)
	buf := make([]byte, 64<<10)
	for end := size; end > 0 && keep == 0; {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil {
			return false, fmt.Errorf("reading %s: %w", path, err)
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			keep = start + int64(i) + 1
		}
		end = start
	}
	if keep == size {
		return false, nil
	}
	if err := f.Truncate(keep); err != nil {
		return false, fmt.Errorf("cutting the partial last line of %s: %w", path, err)
	}
	return true, nil
}
