// Package periodic runs the periodic reports of long work: a goroutine
// that calls a report function on a ticker until stopped.
package periodic

import (
	"sync"
	"time"
)

// Every calls tick every period until the returned stop is called; stop
// then calls final (if not nil) and returns once the goroutine has ended,
// so no report is written after stop returns. The first tick comes after
// one period, so that quick work reports nothing. period must be > 0.
func Every(period time.Duration, tick, final func()) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				if final != nil {
					final()
				}
				return
			case <-t.C:
				tick()
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}
