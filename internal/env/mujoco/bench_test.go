//go:build mujoco

package mujoco

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkStep measures environment steps per second through smrl's
// stepping path: the true simulator's ScoredStep (the runner's call),
// each from the observation it wrote last, under random actions.
func BenchmarkStep(b *testing.B) {
	for _, sp := range []*spec{invertedPendulum, reacher, halfCheetah, hopper} {
		b.Run(sp.alias, func(b *testing.B) {
			t, err := sp.load()
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			s, next := make([]float64, sp.dim), make([]float64, sp.dim)
			a := make([]float64, sp.nu)
			t.init(rng, s)
			sim := t.NewSimulator().(*trueSim)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%sp.horizon == 0 {
					t.init(rng, s)
				}
				for j := range a {
					a[j] = sp.ctrlRange * (2*rng.Float64() - 1)
				}
				sim.ScoredStep(s, a, rng, next)
				s, next = next, s
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// BenchmarkMeanStep measures the oracle's step: the state restored from
// the observation (mj_forward), then the frame skip's steps.
func BenchmarkMeanStep(b *testing.B) {
	for _, sp := range []*spec{invertedPendulum, halfCheetah} {
		b.Run(sp.alias, func(b *testing.B) {
			t, err := sp.load()
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			s, next := make([]float64, sp.dim), make([]float64, sp.dim)
			a := make([]float64, sp.nu)
			t.init(rng, s)
			sim := t.NewMean()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sim.Step(s, a, rng, next)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
