package estimate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
)

// TestKernelKeyErrorSingular: a singular V + λI from the kernel fit is
// invalid input (exit 2) naming the bandwidth and λ keys, not an
// internal error.
func TestKernelKeyErrorSingular(t *testing.T) {
	err := kernelKeyError(fmt.Errorf("eigendecomposition of the preconditioner failed: %w", estimator.ErrSingular), "env.family")
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.HasPrefix(err.Error(), "env.family.bandwidth, lambda:") {
		t.Errorf("got %v, want invalid input naming env.family.bandwidth and lambda", err)
	}
}

// TestCVLossJSON: a +Inf entry of the cross-validation grid (a candidate
// that did not converge) is written as null, which encoding/json refuses
// as a number, and read back as +Inf.
func TestCVLossJSON(t *testing.T) {
	c := CVLoss{{math.Inf(1), 0.25}, {-1.5, math.Inf(1)}}
	b, err := json.Marshal(KernelCoord{CV: c})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"cv_loss":[[null,0.25],[-1.5,null]]`) {
		t.Errorf("JSON %s", b)
	}
	var back KernelCoord
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back.CV) != fmt.Sprint(c) {
		t.Errorf("read back %v, want %v", back.CV, c)
	}
}
