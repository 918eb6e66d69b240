package runner

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
)

// A panic inside a worker (here in the OnTrial hook) must come back from
// Run as an error wrapping errs.ErrInternal, not crash the process.
func TestWorkerPanicIsInternalError(t *testing.T) {
	c, m := paper(t)
	c.Seeds, c.Episodes = 2, 1
	_, err := Run(context.Background(), c, m, record.Trials(c), Options{Workers: 2,
		OnTrial: func(i int, eps []record.Episode) error {
			var w []float64
			_ = w[len(eps)] // index out of range
			return nil
		}})
	if !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("Run returned %v, want an error wrapping ErrInternal", err)
	}
	if !strings.Contains(err.Error(), "index out of range") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want the panic value on one line", err)
	}
}

// Options.Episodes counts every completed episode of every trial (5
// rollouts per action instead of the default 100: the count does not
// depend on the planning, which was the test's CPU).
func TestRunCountsEpisodes(t *testing.T) {
	c, m := paper(t)
	c.Seeds, c.Episodes, c.Planner.NRollouts = 2, 3, 5
	var n atomic.Int64
	if _, err := Run(context.Background(), c, m, record.Trials(c), Options{Workers: 2, Episodes: &n}); err != nil {
		t.Fatal(err)
	}
	if want := int64(len(record.Trials(c)) * c.Episodes); n.Load() != want {
		t.Errorf("counted %d episodes, want %d", n.Load(), want)
	}
}
