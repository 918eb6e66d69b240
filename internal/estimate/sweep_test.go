package estimate

import (
	"context"
	"errors"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// A panic in a sweep worker comes back as an error wrapping ErrInternal.
func TestSweepWorkerPanicIsInternalError(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Estimate.SweepN, c.Estimate.Repeats, c.Workers = []int{50, 100}, 2, 2
	old := runSweepJob
	defer func() { runSweepJob = old }()
	runSweepJob = func(mdp *env.MDP, c *config.Config, methods []string, n, r int) ([]jobResult, error) {
		if r == 1 {
			panic("boom")
		}
		return old(mdp, c, methods, n, r)
	}
	_, err := Sweep(context.Background(), c, SweepOptions{Methods: []string{"sm"}})
	if !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("Sweep returned %v, want an error wrapping ErrInternal", err)
	}
}
