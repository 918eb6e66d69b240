//go:build unix

package testutil

import "golang.org/x/sys/unix"

// threadCPUNanos is the calling thread's CPU time.
func threadCPUNanos() (int64, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, err
	}
	return ts.Nano(), nil
}
