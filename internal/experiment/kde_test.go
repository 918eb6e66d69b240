package experiment

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestKDEOfNormalDraws checks the kernel density estimate behind the
// marginals of families sampled by MCMC against the standard normal
// density, at 20000 draws: within 0.01 (its bias at Silverman's bandwidth
// is about h²/2·φ” ≈ 0.006 at 0, its noise about 0.003).
func TestKDEOfNormalDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 20000)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	f := kde(xs)
	var mass float64
	for x := -6.0; x < 6; x += 0.01 {
		mass += f(x) * 0.01
	}
	testutil.AbsClosef(t, mass, 1, 1e-3, "∫ kde = %v", mass)
	for _, x := range []float64{-2, -1, 0, 0.5, 1.5} {
		if want := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi); !testutil.AbsWithin(f(x), want, 0.01) {
			t.Errorf("kde(%v) = %v, want %v ± 0.01", x, f(x), want)
		}
	}
}
