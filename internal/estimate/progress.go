package estimate

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/smrl-dev/smrl/internal/periodic"
)

// defaultProgressEvery is the period of progress lines.
const defaultProgressEvery = 5 * time.Second

// heartbeat writes "smrl estimate: <status> (<elapsed>)" to w every period
// (default 5 s) until stop is called. The first line comes after one
// period, so that quick work prints nothing. w nil: no lines.
func heartbeat(w io.Writer, period time.Duration, status func(elapsed time.Duration) string) (stop func()) {
	if w == nil {
		return func() {}
	}
	if period <= 0 {
		period = defaultProgressEvery
	}
	start := time.Now()
	return periodic.Every(period, func() {
		el := time.Since(start)
		fmt.Fprintf(w, "smrl estimate: %s (%s)\n", status(el), el.Round(time.Second))
	}, nil)
}

// stage is the step a long estimate is at, for its progress lines.
type stage struct {
	mu   sync.Mutex
	what string
}

func (s *stage) set(what string) { s.mu.Lock(); s.what = what; s.mu.Unlock() }
func (s *stage) get(time.Duration) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.what
}
