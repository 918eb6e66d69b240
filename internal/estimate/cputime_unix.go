//go:build unix

package estimate

import (
	"syscall"
	"time"
)

// cpuSeconds is the process's CPU time so far, user plus system: the
// clock of Estimate.Seconds. smrl estimate fits its methods one at a time,
// so the difference over a fit is that fit's cost, whatever else shares
// the cores (wall time on a loaded machine can be several times larger).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Since(processStart).Seconds()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

var processStart = time.Now()
