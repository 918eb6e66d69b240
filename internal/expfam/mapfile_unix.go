//go:build unix

package expfam

import (
	"os"
	"syscall"
)

// mapFile returns the content of path mapped read-only into memory: the
// table cache's rows are decoded from it on demand, so mapping spares
// copying a file of tens of megabytes that a run reads only in part. The
// mapping lives until unmapFile (loadFile unmaps a file it rejects, and
// the mapping of a loaded file when its table becomes unreachable).
func mapFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := fi.Size()
	if n == 0 || n != int64(int(n)) {
		return nil, os.ErrInvalid
	}
	return syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ, syscall.MAP_SHARED)
}

// unmapFile releases a mapping of mapFile; nothing may use b afterwards.
func unmapFile(b []byte) { syscall.Munmap(b) }
