package runner

import (
	"math"
	"os"
	"runtime/debug"

	"github.com/smrl-dev/smrl/internal/config"
)

// memoryBase is the memory a run needs beside its trials: the sampling
// tables, the MDPs, the results held for the files.
const memoryBase = 64 << 20

// limitMemory sets the Go runtime's soft memory limit to what workers
// trials may hold (config.MaxTrialFloats float64s each, the bound the
// config's validation enforces) plus memoryBase, and returns the function
// that restores the previous limit. Without it the garbage collector lets
// the heap grow to twice what is live (GOGC=100) before it collects the
// matrices each refit discards: a trial that holds 256 MiB peaked at
// 560 MB of resident memory after three episodes. A limit the user set
// (GOMEMLIMIT) is kept.
func limitMemory(workers int) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	want := int64(workers)*config.MaxTrialFloats*8 + memoryBase
	if workers <= 0 || want <= 0 || want > math.MaxInt64/2 {
		return func() {}
	}
	old := debug.SetMemoryLimit(-1)
	if want >= old {
		return func() {}
	}
	debug.SetMemoryLimit(want)
	return func() { debug.SetMemoryLimit(old) }
}
