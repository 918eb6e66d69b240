package env

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkAtan2 takes the angles of 64 points on and near the unit circle
// (a pendulum rollout's states), one atan2 call each, and with atan2s (the
// vector kernel where the CPU has AVX2); reported per angle.
func BenchmarkAtan2(b *testing.B) {
	const n = 64
	rng := rand.New(rand.NewPCG(1, 2))
	ys, xs, out := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range ys {
		s, c := math.Sincos(2 * math.Pi * (2*rng.Float64() - 1))
		r := 0.9 + 0.2*rng.Float64()
		ys[i], xs[i] = r*s, r*c
	}
	perAngle := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/angle")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for i := range out {
				out[i] = atan2(ys[i], xs[i])
			}
		}
		perAngle(b)
	})
	b.Run("batch", func(b *testing.B) {
		for b.Loop() {
			atan2s(ys, xs, out)
		}
		perAngle(b)
	})
}
