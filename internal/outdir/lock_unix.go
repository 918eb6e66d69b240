//go:build unix

package outdir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// Lock takes an exclusive lock on dir (flock on dir/LockFile, which then
// holds this process's PID), so that no second smrl process writes into dir
// at the same time. A second holder is refused at once with an error
// wrapping errs.ErrInvalidInput that names dir and the PID of the holder.
// release removes the lock file and drops the lock; the kernel drops it
// too when the process dies, and a lock file left by a dead process is
// simply taken over.
func Lock(dir string) (release func() error, err error) {
	p := filepath.Join(dir, LockFile)
	// The holder removes the file before unlocking it, so the file we
	// locked may already be unlinked: then try again on the new one.
	for range 100 {
		f, err := fsutil.OpenNoFollow(p, os.O_RDWR|os.O_CREATE, 0o644)
		if errors.Is(err, fsutil.ErrLink) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("locking: %w", PathError(dir, err))
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder := readPID(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, errs.Invalid(fmt.Errorf("directory %s is in use by another smrl process (PID %s); wait for it to finish, or choose another directory", describe(dir), holder))
			}
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		locked, err1 := f.Stat()
		current, err2 := os.Stat(p)
		if err1 != nil || err2 != nil || !os.SameFile(locked, current) {
			f.Close()
			continue
		}
		if err := writePID(f); err != nil {
			os.Remove(p)
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		var once sync.Once
		var cerr error
		return func() error {
			once.Do(func() {
				os.Remove(p)
				cerr = f.Close()
			})
			return cerr
		}, nil
	}
	return nil, fmt.Errorf("locking %s: the lock file keeps being replaced", dir)
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// readPID returns the PID recorded in a lock file, or "unknown".
func readPID(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	if pid := string(bytes.TrimSpace(b[:n])); pid != "" {
		if _, err := strconv.Atoi(pid); err == nil {
			return pid
		}
	}
	return "unknown"
}
