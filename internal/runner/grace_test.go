package runner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/record"
)

// Issue 19, item 11: after SIGTERM the trials in flight ran to completion
// (9 minutes for long trials, against Kubernetes' 30 s). With a grace
// period, or when Abandon is closed, RunJobs returns at once: the trials in
// flight are abandoned (nil episodes, never journaled through OnTrial) and
// stop at their next episode.
func TestRunJobsAbandonsTrialsInFlight(t *testing.T) {
	for _, tc := range []struct {
		name    string
		grace   time.Duration
		abandon bool // close Abandon right after the cancellation
	}{
		{"grace runs out", 50 * time.Millisecond, false},
		{"second signal", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, m := paper(t)
			c.Seeds, c.Episodes, c.Planner.NRollouts = 1, 5000, 20 // a trial of many seconds
			ctx, cancel := context.WithCancel(context.Background())
			abandon := make(chan struct{})
			var episodes atomic.Int64
			go func() {
				for episodes.Load() == 0 {
					time.Sleep(time.Millisecond)
				}
				cancel()
				if tc.abandon {
					close(abandon)
				}
			}()
			called := false
			start := time.Now()
			res, err := Run(ctx, c, m, record.Trials(c)[:1], Options{Workers: 1, Episodes: &episodes, Grace: tc.grace, Abandon: abandon,
				OnTrial: func(int, []record.Episode) error { called = true; return nil }})
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("RunJobs returned %v after the cancellation", took)
			}
			if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrAbandoned) {
				t.Fatalf("err = %v, want context.Canceled and ErrAbandoned", err)
			}
			if res == nil || res.Episodes[0] != nil || called {
				t.Errorf("the abandoned trial was kept or reached OnTrial")
			}
		})
	}
}
