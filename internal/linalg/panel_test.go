package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// MulABtPanel8 gives MulABt's bits for B given as its transpose, by the
// AVX-512 kernel where the CPU has it and by panel8Go, for row counts
// below, at and above a group of eight (17 = d_s of the scale benchmark)
// and step counts around the kc blocks; and it is the product to 1e-13
// (an independent triple loop in float64).
func TestMulABtPanel8IsMulABt(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	avx512 := usePanel512
	defer func() { usePanel512 = avx512 }()
	for _, tc := range []struct{ m, k int }{
		{1, 1}, {3, 7}, {8, 256}, {9, 257}, {17, 2000}, {17, 513}, {24, 100}, {5, 1024},
	} {
		lda := tc.k + 3
		a := randMat(rng, tc.m*lda)
		bt := randMat(rng, 8*tc.k) // B (8×k) row-major
		bp := make([]float64, 8*tc.k)
		for j := range 8 {
			for p := range tc.k {
				bp[8*p+j] = bt[j*tc.k+p]
			}
		}
		want := make([]float64, 8*tc.m)
		MulABt(tc.m, 8, tc.k, a, lda, bt, tc.k, want, 8)
		for r := range tc.m {
			for j := range 8 {
				var s float64
				for p := range tc.k {
					s += a[r*lda+p] * bt[j*tc.k+p]
				}
				if d := math.Abs(want[8*r+j] - s); d > 1e-13*float64(tc.k) {
					t.Fatalf("%+v: MulABt (%d, %d) = %v, triple loop %v", tc, r, j, want[8*r+j], s)
				}
			}
		}
		for _, wide := range []bool{true, false} {
			if wide && !avx512 {
				continue
			}
			usePanel512 = wide
			got := make([]float64, 8*tc.m)
			MulABtPanel8(tc.m, tc.k, a, lda, bp, got)
			// two panels at once: bp and its reverse in order of p
			rev := make([]float64, len(bp))
			for p := range tc.k {
				copy(rev[8*p:8*p+8], bp[8*(tc.k-1-p):8*(tc.k-p)])
			}
			got0, got1, want1 := make([]float64, 8*tc.m), make([]float64, 8*tc.m), make([]float64, 8*tc.m)
			MulABtPanel8(tc.m, tc.k, a, lda, rev, want1) // checked against MulABt by got's loop
			MulABtPanel8x2(tc.m, tc.k, a, lda, bp, rev, got0, got1)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%+v, AVX-512 %v: entry %d = %v, MulABt %v", tc, wide, i, got[i], want[i])
				}
				if math.Float64bits(got0[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%+v, AVX-512 %v, two panels: entry %d = %v, MulABt %v", tc, wide, i, got0[i], want[i])
				}
			}
			// the reversed panel by MulABt itself
			brev := make([]float64, 8*tc.k)
			for j := range 8 {
				for p := range tc.k {
					brev[j*tc.k+p] = rev[8*p+j]
				}
			}
			wantRev := make([]float64, 8*tc.m)
			MulABt(tc.m, 8, tc.k, a, lda, brev, tc.k, wantRev, 8)
			for i := range wantRev {
				if math.Float64bits(want1[i]) != math.Float64bits(wantRev[i]) || math.Float64bits(got1[i]) != math.Float64bits(wantRev[i]) {
					t.Fatalf("%+v, AVX-512 %v, second panel: entry %d = %v / %v, MulABt %v", tc, wide, i, want1[i], got1[i], wantRev[i])
				}
			}
		}
	}
}
