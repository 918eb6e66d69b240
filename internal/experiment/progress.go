package experiment

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// startProgress reports trials done out of total until the returned stop
// is called: as a redrawn bar on bar (a terminal), or as a log record
// every 5 seconds on log. Both may be nil.
func startProgress(done *atomic.Int64, total, episodes int, log *slog.Logger, bar io.Writer) (stop func()) {
	if (log == nil && bar == nil) || total == 0 {
		return func() {}
	}
	start := time.Now()
	period := 5 * time.Second
	if bar != nil {
		period = 200 * time.Millisecond
	}
	report := func(final bool) {
		d := int(done.Load())
		el := time.Since(start).Seconds()
		rate := float64(d*episodes) / max(el, 1e-9)
		eta := 0.0
		if d > 0 {
			eta = el / float64(d) * float64(total-d)
		}
		if bar != nil {
			const width = 30
			fill := width * d / total
			fmt.Fprintf(bar, "\r[%s%s] %d/%d trials  %.0f episodes/s  ETA %s ",
				strings.Repeat("=", fill), strings.Repeat(" ", width-fill), d, total, rate, time.Duration(eta*float64(time.Second)).Round(time.Second))
			if final {
				fmt.Fprintln(bar)
			}
			return
		}
		log.Info("progress", "trials_done", d, "trials", total, "episodes_per_second", round1(rate), "eta_seconds", round1(eta))
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-quit:
				if bar != nil {
					report(true)
				}
				return
			case <-t.C:
				report(false)
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
