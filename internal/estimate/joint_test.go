package estimate

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// coupled4 is coupled-sin at d = 4, κ = 0.5, affine features, with the
// sampler's chains shortened for the test (steps).
func coupled4(steps string) string {
	return `
env:
  family: {kind: coupled-sin, dim: 4, coupling: 0.5}
  features: {kind: affine}
  w0: [[0.5, 0, 0, 0, 0.3, 0.1], [0, 0.5, 0, 0, -0.2, 0], [0, 0, 0.5, 0, 0.3, 0], [0, 0, 0, 0.5, 0, -0.1]]
sampler: {steps: ` + steps + `}
`
}

// smError is |Ŵ − W0|_F of score matching (λ = 1e-4) on n transitions
// drawn from mdp with the stream (seed, n, repeat).
func smError(t *testing.T, mdp *env.MDP, n, repeat int) float64 {
	t.Helper()
	d := Draw(mdp, n, rand.New(rand.NewPCG(uint64(n), uint64(repeat))))
	feat := mdp.Model.Features
	sm := estimator.NewSM(mdp.Model.Family, feat.Dim())
	phi := Features(mdp, d)
	dphi := feat.Dim()
	for i := range n {
		sm.Add(phi[i*dphi:(i+1)*dphi], d.NextState(i))
	}
	f, err := sm.Fit(1e-4)
	if err != nil {
		t.Fatal(err)
	}
	var e float64
	for i, w := range f.W {
		e += (w - mdp.Model.W0[i]) * (w - mdp.Model.W0[i])
	}
	return math.Sqrt(e)
}

// TestSMCoupledSinConsistency checks that score matching on d = 4
// coupled-sin (κ = 0.5; data drawn by the warm-started chains of the true
// environment) is consistent at the rate n^(−1/2): the slope of log mean
// |Ŵ − W0|_F on log n lies in [−0.75, −0.3] from n = 10³ to 10⁴ (4 and 2
// data sets, chains of 10 transitions; about a second of CPU). With
// SMRL_LONG=1 it runs 10³, 10⁴ and 10⁵ with 4 data sets each and the
// default sampler, and the slope must lie in [−0.65, −0.35].
func TestSMCoupledSinConsistency(t *testing.T) {
	sizes, repeats, steps, lo, hi := []int{1000, 10000}, []int{4, 2}, "10", -0.75, -0.3
	if os.Getenv("SMRL_LONG") == "1" {
		sizes, repeats, steps, lo, hi = []int{1000, 10000, 100000}, []int{4, 4, 4}, "20", -0.65, -0.35
	}
	c, err := testutil.LoadYAML(t, coupled4(steps))
	if err != nil {
		t.Fatal(err)
	}
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var xs, ys []float64
	for k, n := range sizes {
		var mean float64
		for r := range repeats[k] {
			mean += smError(t, mdp, n, r) / float64(repeats[k])
		}
		xs, ys = append(xs, math.Log(float64(n))), append(ys, math.Log(mean))
		t.Logf("n = %d: mean |Ŵ − W0|_F = %.4f", n, mean)
	}
	_, slope, ok := stats.LineFit(xs, ys)
	if !ok || slope < lo || slope > hi {
		t.Errorf("slope of log error on log n = %.3f, want in [%g, %g]", slope, lo, hi)
	}
}
