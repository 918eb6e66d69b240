package mcmc

import (
	"math/rand/v2"
	"testing"
)

// benchChain times one transition after warm-up (b.N transitions) on a
// correlated d-dimensional Gaussian; the allocations per transition must
// be 0.
func benchChain(b *testing.B, d int, s Settings) {
	_, prec := correlated(d, 0.6)
	c, err := NewChain(newGauss(make([]float64, d), prec), s, rand.NewPCG(1, 2))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(make([]float64, d)); err != nil {
		b.Fatal(err)
	}
	if err := c.Warmup(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := c.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(c.AcceptRate(), "accept")
}

func BenchmarkHMC2D(b *testing.B) {
	benchChain(b, 2, Settings{Warmup: 300, Leapfrog: 10, AdaptMass: true})
}
func BenchmarkHMC8D(b *testing.B) {
	benchChain(b, 8, Settings{Warmup: 300, Leapfrog: 10, AdaptMass: true})
}
func BenchmarkHMC32D(b *testing.B) {
	benchChain(b, 32, Settings{Warmup: 300, Leapfrog: 10, AdaptMass: true})
}
func BenchmarkMALA8D(b *testing.B) {
	benchChain(b, 8, Settings{Kind: MALA, Warmup: 300, AdaptMass: true})
}

// BenchmarkESS times the effective sample size of 4 chains of 2500 draws
// of an AR(1) with ρ = 0.9.
func BenchmarkESS(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	ch := [][]float64{ar1(2500, 0.9, rng), ar1(2500, 0.9, rng), ar1(2500, 0.9, rng), ar1(2500, 0.9, rng)}
	b.ResetTimer()
	for range b.N {
		ESS(ch)
	}
}
