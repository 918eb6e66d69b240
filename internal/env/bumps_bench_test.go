package env

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkBumpsRewards scores the paper's rollouts (d_s = 1, bumps at π/8
// and −3π/8 of width 10): τ − 1 = 4 states per call, and 64, with Rewards
// (the exponentials in vector lanes) and with one At call per state;
// reported per state.
func BenchmarkBumpsRewards(b *testing.B) {
	bumps := &Bumps{Width: 10, Centers: [][]float64{{0.39269908169872414}, {-1.1780972450961724}}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{4, 64} {
		xs, out := make([]float64, n), make([]float64, n)
		for i := range xs {
			xs[i] = 2 * (2*rng.Float64() - 1)
		}
		perState := func(b *testing.B) {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/state")
			b.ReportMetric(0, "ns/op")
		}
		b.Run(fmt.Sprint("batch/", n), func(b *testing.B) {
			for b.Loop() {
				bumps.Rewards(xs, nil, out)
			}
			perState(b)
		})
		b.Run(fmt.Sprint("at/", n), func(b *testing.B) {
			for b.Loop() {
				for i := range out {
					out[i] = bumps.At(xs[i : i+1])
				}
			}
			perState(b)
		})
	}
}
