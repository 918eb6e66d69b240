//go:build unix

package fsutil

import (
	"errors"
	"syscall"
)

// oNoFollow makes open fail (with ELOOP) when the last component of the
// path is a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW

// isLoop reports whether err is open's ELOOP (O_NOFOLLOW met a link).
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
