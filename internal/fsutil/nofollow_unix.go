//go:build unix

package fsutil

import "syscall"

// oNoFollow makes open fail (with ELOOP) when the last component of the
// path is a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW
