package estimator

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

func benchSM(b *testing.B, n int) {
	m := paperModel(b, []float64{1, 1})
	phis, nexts := draw(b, m, n, rand.New(rand.NewPCG(1, 2)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sm := NewSM(m.Dist, 2)
		for j := range phis {
			sm.Add(phis[j], nexts[j])
		}
		if _, err := sm.Fit(1e-4); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/transition")
}

// BenchmarkSMCustomSin1e4 and 1e6: accumulate V, b and solve (one core).
func BenchmarkSMCustomSin1e4(b *testing.B) { benchSM(b, 10_000) }
func BenchmarkSMCustomSin1e6(b *testing.B) { benchSM(b, 1_000_000) }

// BenchmarkSMGaussian20x50: d_s = d_psi = 20, d_phi = 50, n = 10⁴.
func BenchmarkSMGaussian20x50(b *testing.B) {
	const ds, dphi, n = 20, 50, 10_000
	g, _ := expfam.NewGaussian(ds, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	phis := make([]float64, n*dphi)
	nexts := make([]float64, n*ds)
	for i := range phis {
		phis[i] = rng.NormFloat64()
	}
	for i := range nexts {
		nexts[i] = rng.NormFloat64()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sm := NewSM(g, dphi)
		for t := 0; t < n; t++ {
			sm.Add(phis[t*dphi:(t+1)*dphi], nexts[t*ds:(t+1)*ds])
		}
		if _, err := sm.Fit(1e-4); err != nil {
			b.Fatal(err)
		}
	}
}
