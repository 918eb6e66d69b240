package expfam

import "runtime/debug"

// readMapped runs f, which reads the memory mapping of a table-cache file,
// and reports whether it ran without a memory fault. A cache file that is
// truncated in place while a run has it mapped (cp or rsync --inplace over
// it) makes a read of the pages past its new end fault (SIGBUS), which
// would end the process with a goroutine dump; with debug.SetPanicOnFault
// the fault is a panic that readMapped recovers, and the caller falls back
// to building the rows. Any other panic is passed on.
//
// The cost is one SetPanicOnFault call before and after f and a deferred
// recover: tens of nanoseconds, against the microseconds of checking and
// decoding one row.
func readMapped(f func()) (ok bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			ok = false
		}
	}()
	f()
	return true
}
