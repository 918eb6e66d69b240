// Package fsutil writes files atomically (a reader of the path sees either
// the old content or the complete new content, never a partial file) and
// reads back the complete CSV files smrl wrote.
package fsutil

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// WriteAtomic writes the output of write to path via a temporary file in the
// same directory, which is synced and renamed into place. On any error the
// temporary file is removed and path is left as it was; so it is when write
// panics. A new file gets mode
// 0644; a replaced regular file keeps its mode. Errors name the path.
func WriteAtomic(path string, write func(w io.Writer) error) error {
	return writeAtomic(path, write, true, true)
}

// WriteFileAtomic writes data to path as WriteAtomic does.
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ReplaceAtomic is WriteAtomic without the syncs: a reader still sees the
// old file or the complete new one, but a crash of the machine may lose
// the new content. For files derived from others and drawn again at will
// (figures), where nine fsyncs would cost more than the drawing.
func ReplaceAtomic(path string, write func(w io.Writer) error) error {
	return writeAtomic(path, write, false, false)
}

// File is one file of WriteFilesAtomic: its name and what writes it.
type File struct {
	Name  string
	Write func(w io.Writer) error
}

// WriteFilesAtomic writes files into dir in their order, each as
// WriteAtomic does (a synced temporary file renamed into place), with one
// sync of dir after the last rename instead of one after each. Each file
// is whole or absent, never partial; but a crash (a power loss) before that
// sync may leave any subset of the renames undone, where separate
// WriteAtomic calls could only lose the later files. The readers of a
// results directory check its journal, so a lost file is rebuilt or
// refused, never read half-written. It stops at the first error (the files
// before it written, dir synced), which names the file.
func WriteFilesAtomic(dir string, files []File) error {
	defer SyncDir(dir)
	for _, f := range files {
		if err := writeAtomic(filepath.Join(dir, f.Name), f.Write, true, false); err != nil {
			return err
		}
	}
	return nil
}

// writeAtomic writes path via a temporary file renamed into place; sync
// syncs the file before the rename, syncDir its directory after.
func writeAtomic(path string, write func(w io.Writer) error, sync, syncDir bool) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	perm := fs.FileMode(0o644)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed, renamed := false, false
	// Checks renamed rather than err so that a panic inside write (which
	// leaves err nil) does not leave the temporary file behind either.
	defer func() {
		if !renamed {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	closed = true
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	if syncDir {
		SyncDir(dir)
	}
	return nil
}

// SyncDir makes renames in dir durable where the system supports syncing a
// directory. Failure is ignored: the files themselves are already synced.
func SyncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// tempName matches the temporary files of WriteAtomic and ReplaceAtomic:
// "." + the target's name + ".tmp-" + digits.
var tempName = regexp.MustCompile(`^\..+\.tmp-[0-9]+$`)

// RemoveStaleTemps removes the temporary files that WriteAtomic and
// ReplaceAtomic left in dir when the process was killed mid-write (only
// regular files named as they name them). The caller must hold dir's lock,
// so that no write is in flight there.
func RemoveStaleTemps(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type().IsRegular() && tempName.MatchString(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
