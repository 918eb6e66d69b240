package stats

import (
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

func TestLineFit(t *testing.T) {
	a, b, ok := LineFit([]float64{0, 1, 2, 3}, []float64{1, 3, 5, 7})
	if !ok || !numeric.AbsWithin(a, 1, 1e-14) || !numeric.AbsWithin(b, 2, 1e-14) {
		t.Errorf("exact line: a=%g b=%g ok=%v", a, b, ok)
	}
	// Least squares through (0,0), (1,1), (2,1): b = 0.5, a = 1/6.
	a, b, ok = LineFit([]float64{0, 1, 2}, []float64{0, 1, 1})
	if !ok || !numeric.AbsWithin(a, 1.0/6, 1e-14) || !numeric.AbsWithin(b, 0.5, 1e-14) {
		t.Errorf("a=%g b=%g", a, b)
	}
	if _, _, ok := LineFit([]float64{1, 1}, []float64{1, 2}); ok {
		t.Error("no spread in x accepted")
	}
}

func TestRegretFit(t *testing.T) {
	var ks, sq, lin []float64
	for k := 1.0; k <= 50; k++ {
		ks = append(ks, k)
		sq = append(sq, 3*math.Sqrt(k))
		lin = append(lin, 2*k)
	}
	a, b, lo, hi, ok := RegretFit(ks, sq)
	if !ok || !numeric.AbsWithin(b, 0.5, 1e-12) || !numeric.AbsWithin(a, math.Log(3), 1e-12) || lo != 26 || hi != 50 {
		t.Errorf("√k: a=%g b=%g range [%g, %g]", a, b, lo, hi)
	}
	if _, b, _, _, _ := RegretFit(ks, lin); !numeric.AbsWithin(b, 1, 1e-12) {
		t.Errorf("linear: b=%g", b)
	}
	flat := make([]float64, len(ks))
	for i := range flat {
		flat[i] = 0.7
	}
	if _, b, _, _, ok := RegretFit(ks, flat); !ok || b != 0 {
		t.Errorf("flat: b=%g ok=%v", b, ok)
	}
	if _, _, _, _, ok := RegretFit(ks, make([]float64, len(ks))); ok {
		t.Error("zero regret has no slope")
	}
}

// KS against closed forms: n evenly spread uniform quantiles (i+½)/n give
// exactly 1/(2n); shifting them by δ gives 1/(2n) + δ.
func TestKS(t *testing.T) {
	const n = 100
	uniform := func(x float64) float64 { return min(max(x, 0), 1) }
	xs := make([]float64, n)
	for i := range xs {
		xs[n-1-i] = (float64(i) + 0.5) / n // unsorted on purpose
	}
	if d := KS(xs, uniform); !numeric.AbsWithin(d, 0.5/n, 1e-15) {
		t.Errorf("KS of the midpoints = %g, want %g", d, 0.5/n)
	}
	for i := range xs {
		xs[i] += 0.1
	}
	if d := KS(xs, uniform); !numeric.AbsWithin(d, (0.5/n + 0.1), 1e-12) {
		t.Errorf("KS of the shifted midpoints = %g, want %g", d, 0.5/n+0.1)
	}
}
