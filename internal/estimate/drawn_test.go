package estimate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// With rff features the build's corner check of a gamma family's natural
// parameters does not decide: η₂ = W0 phi(s, a) turns negative inside the
// initial box. Drawing there clamped the rate (lds then reported Ŵ of
// −611 for a W0 of 1); now Run and Sweep stop naming env.w0 and the state.
func TestDrawnDataOutsideTheNaturalSpaceIsRefused(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Env.Family = config.Family{Kind: "gamma", Dim: 1}
	c.Env.Features = config.Features{Kind: "rff"}
	testutil.Set(t, c, "env.features.dim", 2, "env.features.length", 1.0, "env.features.seed", uint64(7))
	c.Env.W0 = [][]float64{{0.5, 0.5}, {1, 1}}
	c.Env.InitLow, c.Env.InitHigh = 0.1, 2
	c.Estimate.N = 2000
	_, err := Run(context.Background(), c, Options{Methods: []string{"lds"}})
	if !errors.Is(err, errs.ErrInvalidInput) || err == nil || !strings.Contains(err.Error(), "drawn transition 0: env.w0: η = W0·phi(s, a) has η_1 = -") {
		t.Errorf("Run: %v, want invalid input naming env.w0 and the drawn transition", err)
	}
	c.Estimate.SweepN, c.Estimate.Repeats = []int{100}, 1
	_, err = Sweep(context.Background(), c, SweepOptions{Methods: []string{"lds"}})
	if !errors.Is(err, errs.ErrInvalidInput) || err == nil || !strings.Contains(err.Error(), "n = 100, repeat 0: drawn transition 0: env.w0:") {
		t.Errorf("Sweep: %v, want invalid input naming env.w0 and the drawn transition", err)
	}
}
