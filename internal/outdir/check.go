package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Check reports whether Claim would accept dir, without writing anything:
// nil when dir is missing, an empty directory or smrl's own, else the
// error Claim would return. Commands that write into several directories
// (smrl sweep: a root and a directory per grid point) check them all
// before they claim the first.
func Check(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if li, lerr := os.Lstat(dir); lerr == nil && li.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(dir)
			return errs.Invalid(fmt.Errorf("%s is a symbolic link to %s, which does not exist: create the directory it points to, or choose another directory", dir, target))
		}
		return nil
	case err != nil:
		return PathError(dir, err)
	case !fi.IsDir():
		return errs.Invalid(fmt.Errorf("%s exists and is not a directory", describe(dir)))
	case Owned(dir):
		return nil
	}
	empty, err := isEmpty(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	// The marker is looked at again after the listing: another smrl process
	// claiming dir at this moment may have created it in between, and it
	// is then the entry that made dir non-empty.
	if !empty && !Owned(dir) {
		return errs.Invalid(fmt.Errorf("directory %s is not empty and was not made by smrl (it has no %s marker); "+
			"smrl writes only into a new or empty directory, or one it made, so that it never replaces your files: choose another directory", describe(dir), MarkerFile))
	}
	return nil
}

// PathError is the error for a directory smrl cannot use because of the
// path the user chose (a parent that is a file, no permission, a read-only
// file system): invalid input, said plainly. Other errors are returned
// wrapped as they are.
func PathError(dir string, err error) error {
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return errs.Invalid(fmt.Errorf("directory %s: a parent of it is a file, not a directory", dir))
	case errors.Is(err, fs.ErrPermission):
		return errs.Invalid(fmt.Errorf("directory %s: permission denied: choose a directory you can write to", dir))
	case errors.Is(err, os.ErrNotExist):
		return errs.Invalid(fmt.Errorf("directory %s does not exist", dir))
	case errors.Is(err, syscall.EROFS):
		return errs.Invalid(fmt.Errorf("directory %s: on a read-only file system: choose a directory you can write to", dir))
	}
	return fmt.Errorf("directory %s: %w", dir, err)
}

// CheckWritable proves that files can be created in the existing directory
// dir (by creating and removing one), so that a command fails before its
// work rather than after it. Errors are PathError's.
func CheckWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".smrl-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write: %w", PathError(dir, err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
