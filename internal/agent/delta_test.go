package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// With model.target delta an agent fits W to s' − s and its simulator adds
// s back: on exact data s' = 0.9 s + 0.5 a + 0.1 (2-D state, affine
// features) the fitted model of the difference is −0.1 s + 0.5 a + 0.1,
// and a mean rollout step from any (s, a) returns 0.9 s + 0.5 a + 0.1; the
// lds agent on its own linear features [s, a] has a W of d_s × (d_s + d_a)
// entries.
func TestDeltaTarget(t *testing.T) {
	fam, _ := expfam.NewGaussian(2, 1)
	spec := env.ModelSpec{Family: fam, Features: expfam.Affine{DS: 2, DA: 1}, LDSSigma: []float64{1, 1},
		LDSFeatures: expfam.Linear{DS: 2, DA: 1}, Delta: true}
	rng := rand.New(rand.NewPCG(1, 2))
	next := func(s, a []float64) []float64 {
		return []float64{0.9*s[0] + 0.5*a[0] + 0.1, 0.9*s[1] + 0.5*a[0] + 0.1}
	}
	for _, name := range []string{"sm", "lds"} {
		ag, err := New(name, spec, nil, Config{Lambda: 1e-9, Rollout: "mean"})
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			s, a := []float64{rng.NormFloat64(), rng.NormFloat64()}, []float64{rng.NormFloat64()}
			ag.Observe(s, a, next(s, a))
		}
		if err := ag.EndEpisode(); err != nil {
			t.Fatal(err)
		}
		if d, ok := ag.Sim.(deterministic); !ok || !d.Deterministic() {
			t.Errorf("%s: the mean simulator of the difference is not deterministic", name)
		}
		s, a, out := []float64{0.3, -1.1}, []float64{0.7}, make([]float64, 2)
		ag.Sim.Step(s, a, rng, out)
		want := next(s, a)
		tol := 1e-6
		if name == "lds" {
			// [s, a] without the constant: least squares cannot fit the +0.1.
			tol = 0.5
		}
		for i := range out {
			testutil.AbsClosef(t, out[i], want[i], tol, "%s: step = %v, want %v", name, out, want)
		}
		if name == "sm" && !testutil.AbsWithin(ag.Model.W[0], (-0.1), 1e-6) {
			t.Errorf("sm: W row 0 = %v, want the difference's coefficients [−0.1, 0, 0.5, 0.1]", ag.Model.W[:4])
		}
		if name == "lds" && len(ag.Model.W) != 2*3 {
			t.Errorf("lds: W has %d entries, want 2 × 3 on [s, a]", len(ag.Model.W))
		}
	}
}
