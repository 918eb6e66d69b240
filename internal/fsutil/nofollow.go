package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/smrl-dev/smrl/internal/errs"
)

// ErrLink is the reason for refusing a symbolic link where smrl writes a
// file or directory of its own: smrl never writes, truncates or deletes
// through a link, which could point at any file of the user's.
var ErrLink = errors.New("is a symbolic link")

// LinkError is the error for path, an entry of smrl's own that is a
// symbolic link: invalid input, naming path and its target.
func LinkError(path string) error {
	target, _ := os.Readlink(path)
	return errs.Invalid(fmt.Errorf("%s %w (to %s); smrl never writes or deletes through a link inside a directory it made: remove the link", path, ErrLink, target))
}

// NoLink returns LinkError when path is a symbolic link, nil when it is
// anything else or missing.
func NoLink(path string) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return LinkError(path)
	}
	return nil
}

// OpenNoFollow is os.OpenFile that refuses, with LinkError, a path whose
// last component is a symbolic link (O_NOFOLLOW where the system has it).
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if oNoFollow == 0 {
		if err := NoLink(path); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, flag|oNoFollow, perm)
	if err != nil && isLoop(err) {
		if lerr := NoLink(path); lerr != nil {
			return nil, lerr
		}
	}
	return f, err
}
