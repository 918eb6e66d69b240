package estimate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Gamma targets of 1e-300 make score matching's ψ” = −1/x² infinite and
// its weight 0: sm named the data, line and column rather than blaming λ
// (it said "V + λI is singular" with a --lambda hint); lds still fits.
func TestScoreOverflowNamesTheData(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Env.Family = config.Family{Kind: "gamma", Dim: 1}
	c.Env.Features = config.Features{Kind: "affine"}
	c.Env.W0 = [][]float64{{0.5, 0, 1}, {0.3, 0, 2}}
	c.Env.InitLow, c.Env.InitHigh = 0.1, 1
	p := filepath.Join(t.TempDir(), "tiny.csv")
	var b strings.Builder
	b.WriteString("s,a,s_next\n")
	for i := range 20 {
		b.WriteString([]string{"0.5,1,1.5\n", "0.2,-1,0.7\n", "0.9,1,2.5\n"}[i%3])
	}
	b.WriteString("0.3,1,1e-300\n") // line 22
	os.WriteFile(p, []byte(b.String()), 0o644)
	_, err := Run(context.Background(), c, Options{Data: p, Methods: []string{"sm"}})
	want := p + ` line 22 column "s_next": 1e-300 is too close to the boundary of the support (0, +Inf) for the gamma family of coordinate 0`
	if !errors.Is(err, errs.ErrInvalidInput) || errors.Is(err, estimator.ErrSingular) || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("sm: %v, want invalid input with %q and no ErrSingular", err, want)
	}
	if _, err := Run(context.Background(), c, Options{Data: p, Methods: []string{"lds"}}); err != nil {
		t.Errorf("lds: %v", err)
	}
}
