package numeric

import (
	"os"
	"runtime/debug"
)

// TestGCPercent is the garbage collector's target that FewerGCs sets: the
// heap may grow to five times the live data between collections instead of
// twice. Measured on the 2-core machine on 2026-11-28, the internal/experiment
// test binary took 24.9–26.0 s of CPU with Go's default (GOGC=100, 250 MB at
// most) and 20.6–22.7 s with 400 (500 MB at most).
const TestGCPercent = 400

// FewerGCs sets the garbage collector's target to TestGCPercent for a test
// binary (from TestMain), unless GOGC is set in the environment: the tests'
// heaps are small, and the collector was a tenth of the suite's CPU. It
// changes when memory is reclaimed, nothing a test computes or checks.
func FewerGCs() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(TestGCPercent)
	}
}
