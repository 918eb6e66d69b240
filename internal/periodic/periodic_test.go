package periodic

import (
	"sync/atomic"
	"testing"
	"time"
)

// Ticks come every period, none after stop, and final once at stop.
func TestEvery(t *testing.T) {
	var ticks, finals atomic.Int64
	stop := Every(5*time.Millisecond, func() { ticks.Add(1) }, func() { finals.Add(1) })
	time.Sleep(60 * time.Millisecond)
	stop()
	n := ticks.Load()
	if n < 2 {
		t.Errorf("%d ticks in 60 ms at a 5 ms period, want at least 2", n)
	}
	time.Sleep(20 * time.Millisecond)
	if ticks.Load() != n || finals.Load() != 1 {
		t.Errorf("after stop: %d ticks (was %d), %d finals (want 1)", ticks.Load(), n, finals.Load())
	}
	// Quick work reports nothing.
	var quick atomic.Int64
	Every(time.Hour, func() { quick.Add(1) }, nil)()
	if quick.Load() != 0 {
		t.Error("a tick before the first period")
	}
}
