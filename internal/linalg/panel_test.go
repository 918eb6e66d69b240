package linalg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// MulABtPanel8 gives MulABt's bits for B given as its transpose, by the
// AVX-512 kernel where the CPU has it and by panel8Go, for row counts
// below, at and above a group of eight or nine (17 = d_s of the scale
// benchmark: 9 + 8)
// and step counts around the kc blocks; and it is the product to 1e-13
// (an independent triple loop in float64).
func TestMulABtPanel8IsMulABt(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	avx512 := usePanel512
	defer func() { usePanel512 = avx512 }()
	for _, tc := range []struct{ m, k int }{
		{1, 1}, {2, 3}, {3, 7}, {4, 9}, {6, 10}, {7, 11}, {8, 256}, {9, 257}, {17, 2000}, {17, 513}, {24, 100}, {5, 1024}, {23, 40}, {18, 300}, {26, 257}, {9, 2000},
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

// The 6×16 and 6×24 AVX-512 tiles give the bits of two and three kern6x8Go
// tiles, and gemm gives the same bits with triples and pairs of tiles on
// them, with pairs alone and with neither, for every part
// of C (the Cholesky's trailing update is the lower part), sizes with odd
// numbers of column panels and partial tiles, and α ≠ 1.
func TestWideTileSameBits(t *testing.T) {
	if !useWide {
		t.Skip("no AVX-512F (or SMRL_NOSIMD, purego): macro runs kern6x8 alone")
	}
	defer func(w3 bool) { useWide, useWide3 = true, w3 }(useWide3)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{1, 7, 256} {
		a, b0, b1, b2 := randMat(rng, mr*k), randMat(rng, nr*k), randMat(rng, nr*k), randMat(rng, nr*k)
		c1 := randMat(rng, mr*27)
		c2 := append([]float64(nil), c1...)
		c3 := append([]float64(nil), c1...)
		kern6x16(k, a, b0, b1, c1, 27, -1.3)
		kern6x24(k, a, b0, b1, b2, c3, 27, -1.3)
		kern6x8Go(k, a, b0, c2, 27, -1.3)
		kern6x8Go(k, a, b1, c2[nr:], 27, -1.3)
		for i := range c1 {
			if math.Float64bits(c1[i]) != math.Float64bits(c2[i]) {
				t.Fatalf("k=%d entry %d: 6×16 %v, two 6×8 in Go %v", k, i, c1[i], c2[i])
			}
		}
		kern6x8Go(k, a, b2, c2[2*nr:], 27, -1.3)
		for i := range c3 {
			if math.Float64bits(c3[i]) != math.Float64bits(c2[i]) {
				t.Fatalf("k=%d entry %d: 6×24 %v, three 6×8 in Go %v", k, i, c3[i], c2[i])
			}
		}
	}
	for _, sz := range []struct{ m, n, k int }{{37, 45, 300}, {61, 61, 257}, {12, 40, 9}, {100, 130, 128}} {
		for _, pt := range []part{whole, upperPart, lowerPart} {
			n := sz.n
			if pt != whole {
				n = sz.m
			}
			a, b := randMat(rng, sz.m*sz.k), randMat(rng, n*sz.k)
			c0 := randMat(rng, sz.m*n)
			var got [3][]float64
			for w, wide := range [][2]bool{{false, false}, {true, false}, {true, true}} {
				useWide, useWide3 = wide[0], wide[1]
				got[w] = append([]float64(nil), c0...)
				gemm(pt, sz.m, n, sz.k, 0.7, operand{a, sz.k, false}, operand{b, sz.k, true}, got[w], n)
			}
			for w := 1; w < 3; w++ {
				for i := range c0 {
					if math.Float64bits(got[w][i]) != math.Float64bits(got[0][i]) {
						t.Fatalf("%+v part %d entry %d: with 6×16 (and 6×24: %v) tiles %v, with 6×8 alone %v", sz, pt, i, w == 2, got[w][i], got[0][i])
					}
				}
			}
		}
	}
}

// TestMulABtPanel8x2Allocates0: the rollouts call MulABtPanel8x2 for every
// sixteen states at every step, so it allocates nothing (an indirect call
// to its kernels moved the row pointers and the tile to the heap: six
// allocations a call).
func TestMulABtPanel8x2Allocates0(t *testing.T) {
	m, k := 17, 300
	a := make([]float64, m*k)
	bp0, bp1 := make([]float64, 8*k), make([]float64, 8*k)
	c0, c1 := make([]float64, 8*m), make([]float64, 8*m)
	if n := testing.AllocsPerRun(20, func() { MulABtPanel8x2(m, k, a, k, bp0, bp1, c0, c1) }); n != 0 {
		t.Errorf("MulABtPanel8x2 allocates %v times a call, want 0", n)
	}
}

// TestMulABtAllocates0: the Gaussian rollouts without AVX-512 call MulABt
// at every step; below parallelWork it allocates nothing (blocksOf's rows
// and the workers' closure allocated 19 times a call).
func TestMulABtAllocates0(t *testing.T) {
	m, n, k := 17, 64, 2000
	a, b, c := make([]float64, m*k), make([]float64, n*k), make([]float64, m*n)
	MulABt(m, n, k, a, k, b, k, c, n) // fills the pool's buffers
	if got := testing.AllocsPerRun(20, func() { MulABt(m, n, k, a, k, b, k, c, n) }); got != 0 {
		t.Errorf("MulABt allocates %v times a call, want 0", got)
	}
}
