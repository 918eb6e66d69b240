package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// benchRefit times one end-of-episode refit (EndEpisode) of the named
// agent on n transitions of the 2-d Gaussian truth of gaussTruth (affine
// features, d_phi = 4), with a fixed λ or, cv set, with lambda: cv over
// the default 11-point grid and 5 folds.
func benchRefit(b *testing.B, name string, n int, cv bool) {
	truth := gaussTruth(b, 0.5)
	c := Config{Lambda: 1e-4, Confidence: defaultConfidence(b), Rollout: "sample", Horizon: 10}
	if cv {
		c.CV = &CVConfig{Grid: []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4}, Folds: 5}
	}
	ag, err := New(name, specOf(truth, 0.5), nil, c)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	step := expfam.NewStepper(truth)
	s, a, next := make([]float64, 2), make([]float64, 1), make([]float64, 2)
	for range n {
		s[0], s[1], a[0] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		step.Step(s, a, rng, next)
		ag.Observe(s, a, next)
	}
	b.ResetTimer()
	for range b.N {
		if err := ag.EndEpisode(); err != nil {
			b.Fatal(err)
		}
	}
}

// The refit of lds, sm and mle on 10³ transitions (100 episodes of H =
// 10), with a fixed λ and with lambda: cv.
func BenchmarkRefitLDS1e3(b *testing.B)   { benchRefit(b, "lds", 1000, false) }
func BenchmarkRefitLDSCV1e3(b *testing.B) { benchRefit(b, "lds", 1000, true) }
func BenchmarkRefitSM1e3(b *testing.B)    { benchRefit(b, "sm", 1000, false) }
func BenchmarkRefitSMCV1e3(b *testing.B)  { benchRefit(b, "sm", 1000, true) }
func BenchmarkRefitMLE1e3(b *testing.B)   { benchRefit(b, "mle", 1000, false) }
func BenchmarkRefitMLECV1e3(b *testing.B) { benchRefit(b, "mle", 1000, true) }

// The same on 10⁴ transitions, lds only.
func BenchmarkRefitLDS1e4(b *testing.B)   { benchRefit(b, "lds", 10_000, false) }
func BenchmarkRefitLDSCV1e4(b *testing.B) { benchRefit(b, "lds", 10_000, true) }
