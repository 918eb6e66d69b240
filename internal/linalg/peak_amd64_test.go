//go:build !purego

package linalg

import (
	"testing"

	"github.com/smrl-dev/smrl/internal/simd"
)

// BenchmarkPeakFMA is the machine's peak rate of double-precision fused
// multiply-adds on one core (GFLOP/s, an FMA counting two), with AVX2's
// 256-bit and AVX-512's 512-bit registers: the ceiling of the kernels'
// rates (docs/performance.md). The fastest group of calls by the thread's
// CPU clock, as the other kernel benchmarks.
func BenchmarkPeakFMA(b *testing.B) {
	const rounds = 100_000
	for _, c := range []struct {
		name  string
		lanes int
		run   func(int)
		ok    bool
	}{{"ymm", 4, peakFMA256, simd.AVX2}, {"zmm", 8, peakFMA512, simd.AVX512}} {
		b.Run(c.name, func(b *testing.B) {
			if !c.ok {
				b.Skip("no such registers on this CPU (or SMRL_NOSIMD set)")
			}
			best := fastest(b, func() { c.run(rounds) })
			b.ReportMetric(rounds*12*float64(c.lanes)*2/best, "GFLOP/s")
		})
	}
}
