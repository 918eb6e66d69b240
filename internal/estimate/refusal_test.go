package estimate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Data beyond the state range smrl supports is refused naming the file,
// line and column (it used to give estimates of 1e140 and, with --plot, a
// panic in the density figure).
func TestRunRefusesOutOfRangeData(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(p, []byte("s,a,s_next\n0.1,1,0.5\n0.2,-1,1e200\n"), 0o644)
	_, err := Run(context.Background(), testutil.LoadConfig(t, ""), Options{Data: p})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), p+` line 3 column "s_next": 1e+200 is outside [−1024, 1024]`) {
		t.Errorf("Run: %v", err)
	}
	d := &dataset.Transitions{}
	d.Append([]float64{1, 2}, []float64{-3000}, []float64{0, 0})
	if err := CheckRange(d, "x.csv"); err == nil || !strings.Contains(err.Error(), `x.csv line 2 column "a": -3000`) {
		t.Errorf("CheckRange: %v", err)
	}
}

// Sizes are checked before anything is allocated: the methods' matrices
// and the data set with its features.
func TestRunRefusesHugeSizes(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Env.Features = config.Features{Kind: "rff"}
	testutil.Set(t, c, "env.features.dim", 5000, "env.features.length", 1.0, "env.features.seed", uint64(7))
	c.Env.W0 = [][]float64{make([]float64, 5000)}
	_, err := Run(context.Background(), c, Options{Methods: []string{"lds"}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "--method lds: the model has 1 × 1 statistics and d_phi = 5000 features") {
		t.Errorf("matrices: %v", err)
	}
	c = testutil.LoadConfig(t, "")
	c.Estimate.N = 20_000_000
	if _, err := Run(context.Background(), c, Options{Methods: []string{"lds"}}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "estimate.n: 20000000 transitions") {
		t.Errorf("data: %v", err)
	}
	c.Estimate.SweepN = []int{100, 20_000_000}
	if _, err := Sweep(context.Background(), c, SweepOptions{Methods: []string{"lds"}}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "estimate.sweep_n") {
		t.Errorf("sweep: %v", err)
	}
}
