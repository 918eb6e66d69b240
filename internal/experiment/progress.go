package experiment

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/periodic"
)

// progress counts the work of a run for its reports: trials and the
// episodes within them, so that a run of few long trials is not silent.
type progress struct {
	trials, episodes atomic.Int64
	totalTrials      int
	totalEpisodes    int
	// eta estimates the time left from the measured episode times per
	// agent; nil extrapolates the run's average rate.
	eta *metrics.ETA
}

// status returns the fraction done, the episode rate and the ETA (ok false
// until the first episode is done).
func (p *progress) status(el time.Duration) (eps int64, rate float64, eta time.Duration, ok bool) {
	eps = p.episodes.Load()
	sec := max(el.Seconds(), 1e-9)
	rate = float64(eps) / sec
	if eps == 0 {
		return eps, rate, 0, false
	}
	if p.eta != nil {
		eta, ok = p.eta.Remaining()
		return eps, rate, eta, ok
	}
	eta = time.Duration(sec / float64(eps) * float64(int64(p.totalEpisodes)-eps) * float64(time.Second))
	return eps, rate, eta, true
}

// startProgress reports p until the returned stop is called: as a redrawn
// bar on bar (a terminal) every 200 ms, or as a log record on log every
// period (5 s when 0). Both may be nil.
func startProgress(p *progress, log *slog.Logger, bar io.Writer, period time.Duration) (stop func()) {
	if (log == nil && bar == nil) || p.totalTrials == 0 {
		return func() {}
	}
	start := time.Now()
	if period <= 0 {
		period = 5 * time.Second
	}
	if bar != nil {
		period = 200 * time.Millisecond
	}
	report := func(final bool) {
		el := time.Since(start)
		d := int(p.trials.Load())
		eps, rate, eta, ok := p.status(el)
		etaText := "?"
		if ok {
			etaText = eta.Round(time.Second).String()
		}
		if bar != nil {
			const width = 30
			fill := width * int(eps) / max(p.totalEpisodes, 1)
			fmt.Fprintf(bar, "\r[%s%s] %d/%d trials  %d/%d episodes  %.1f episodes/s  elapsed %s  ETA %s ",
				strings.Repeat("=", fill), strings.Repeat(" ", width-fill), d, p.totalTrials, eps, p.totalEpisodes,
				rate, el.Round(time.Second), etaText)
			if final {
				fmt.Fprintln(bar)
			}
			return
		}
		attrs := []any{"trials_done", d, "trials", p.totalTrials, "episodes_done", eps, "episodes", p.totalEpisodes,
			"episodes_per_second", round1(rate), "elapsed_seconds", round1(el.Seconds())}
		if ok {
			attrs = append(attrs, "eta_seconds", round1(eta.Seconds()))
		}
		log.Info("progress", attrs...)
	}
	var final func()
	if bar != nil {
		final = func() { report(true) }
	}
	return periodic.Every(period, func() { report(false) }, final)
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
