//go:build !unix

package estimate

import "time"

// cpuSeconds is the wall time since the process started where no CPU
// clock of the process is at hand (see cputime_unix.go).
func cpuSeconds() float64 { return time.Since(processStart).Seconds() }

var processStart = time.Now()
