package testutil

import (
	"math"
	"runtime"
	"testing"
)

// FastestCPU runs op b.N times in groups of group calls on one locked OS
// thread and returns the least thread CPU time per call of a group in
// nanoseconds, which it also reports as min-cpu-ns/op: on a machine
// shared with other jobs the fastest group is the one least disturbed
// (preemption, the other hyperthread's load). Work op hands to other
// goroutines is not counted. Where the thread's CPU clock is not
// available (threadCPUNanos), the wall clock stands in.
func FastestCPU(b *testing.B, group int, op func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := math.Inf(1)
	b.ResetTimer()
	for i := 0; i < b.N; i += group {
		n := min(group, b.N-i)
		t0 := ThreadCPU(b)
		for range n {
			op()
		}
		best = min(best, float64(ThreadCPU(b)-t0)/float64(n))
	}
	b.ReportMetric(best, "min-cpu-ns/op")
	return best
}

// ThreadCPU returns the CPU time of the calling thread in nanoseconds
// (lock the goroutine to its thread around the span it measures); it
// fails tb if the clock cannot be read.
func ThreadCPU(tb testing.TB) int64 {
	ns, err := threadCPUNanos()
	if err != nil {
		tb.Fatal(err)
	}
	return ns
}
