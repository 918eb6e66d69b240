package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// upperFactor returns an m×m upper triangular matrix with row stride lda,
// zeros below the diagonal: u_ii = 1 + |z|, u_ij = z/√m above (z standard
// normal; a solve's growth stays bounded), three diagonal entries set to
// small (< 1: an ill-conditioned U) when small is below 1, and every 37th
// off-diagonal entry, the rows i ≡ 3 (mod 97) right of the diagonal and
// the columns j ≡ 5 (mod 89) above it set to 0 or −0 (gonum skips zero
// coefficients, and the packed product's full and partial tiles differ
// only in the sign of a zero: with rhs's zero rows these show).
func upperFactor(m, lda int, small float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	a := make([]float64, m*lda)
	sd := 1 / math.Sqrt(float64(m))
	for i := range m {
		a[i*lda+i] = 1 + math.Abs(rng.NormFloat64())
		for j := i + 1; j < m; j++ {
			switch {
			case i%97 == 3 || j%89 == 5 || (i*m+j)%37 == 0:
				a[i*lda+j] = math.Copysign(0, float64((i+j)%2)-0.5)
			default:
				a[i*lda+j] = sd * rng.NormFloat64()
			}
		}
	}
	if small < 1 {
		for _, i := range []int{m / 3, m / 2, m - 1} {
			a[i*lda+i] = small
		}
	}
	return a
}

// rhs returns an m×n right-hand side with row stride ldb, some entries ±0
// and the rows i ≡ 3 (mod 97) and i ≡ 5 (mod 89) all ±0.
func rhs(m, n, ldb int, seed uint64) []float64 {
	b := randMat(rand.New(rand.NewPCG(seed, 4)), m*ldb)
	for i := 0; i < len(b); i += 29 {
		b[i] = math.Copysign(0, float64(i%2)-0.5)
	}
	for i := range m {
		if i%97 == 3 || i%89 == 5 {
			for j := range n {
				b[i*ldb+j] = math.Copysign(0, float64(j%2)-0.5)
			}
		}
	}
	return b
}

// withNarrow runs f with the narrow solve on or off and the AVX-512 kernels
// on or off (their Go twins), restoring both.
func withNarrow(solve, simd bool, f func()) {
	defer func(s, k bool) { narrowSolve, useNarrow = s, k }(narrowSolve, useNarrow)
	narrowSolve, useNarrow = solve, simd
	f()
}

// narrowKernels are the settings of useNarrow the tests try: the Go twins,
// and the assembly where the CPU has it.
func narrowKernels() []bool {
	if useNarrow {
		return []bool{false, true}
	}
	return []bool{false}
}

// TestTrsmNarrowIsTrsm: the narrow solve (AVX-512 kernels and their Go
// twins) gives Impl.Dtrsm's general path's bits, both transpositions, for
// orders below and above the leaves, the product's size and MinPotrf, not
// multiples of 8 or 6, with 1 to 24 right-hand sides and a row stride
// wider than them, on a well and an ill conditioned factor.
func TestTrsmNarrowIsTrsm(t *testing.T) {
	if numeric.FusedMulAdd {
		t.Skip("gonum's Go loops may fuse multiply-adds in this build")
	}
	cases := []struct{ m, n, ldb int }{
		{1, 1, 1}, {5, 3, 3}, {31, 17, 17}, {32, 8, 9}, {33, 17, 17}, {100, 24, 24},
		{255, 17, 17}, {257, 17, 20}, {300, 1, 1}, {496, 17, 17}, {497, 17, 17},
		{600, 9, 9}, {731, 16, 16}, {1003, 17, 17}, {1040, 24, 24}, {1200, 13, 16},
		{128, 300, 301}, {128, 1872, 1872}, {128, 481, 483}, {64, 25, 25}, {200, 49, 49}, {130, 530, 530}, {128, 1100, 1100}, {160, 700, 703}, {1550, 7, 8},
	}
	for ci, c := range cases {
		small := 1.0
		if ci%2 == 1 {
			small = 1e-6
		}
		u := upperFactor(c.m, c.m+ci%3, small, uint64(ci))
		lda := c.m + ci%3
		for _, tr := range []blas.Transpose{blas.Trans, blas.NoTrans} {
			b0 := rhs(c.m, c.n, c.ldb, uint64(ci))
			want := append([]float64(nil), b0...)
			withNarrow(false, useNarrow, func() {
				Impl{}.Dtrsm(blas.Left, blas.Upper, tr, blas.NonUnit, c.m, c.n, 1, u, lda, want, c.ldb)
			})
			for i, v := range want {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("m %d n %d %c: the reference solution has %v at %d", c.m, c.n, tr, v, i)
				}
			}
			for _, k := range narrowKernels() {
				got := append([]float64(nil), b0...)
				withNarrow(true, k, func() {
					if c.m >= narrowMinOrder {
						Impl{}.Dtrsm(blas.Left, blas.Upper, tr, blas.NonUnit, c.m, c.n, 1, u, lda, got, c.ldb)
					} else { // Impl.Dtrsm keeps gonum's below narrowMinOrder
						trsmNarrow(tr == blas.Trans, c.m, c.n, u, lda, got, c.ldb)
					}
				})
				numeric.RequireSameBits(t, fmt.Sprintf("m %d n %d ldb %d %v avx512 %v", c.m, c.n, c.ldb, tr, k), got, want)
			}
		}
	}
}

// TestTrsmNarrowSolves: the narrow solve's X satisfies op(U)·X = B to
// 1e-10 (an independent check of what TestTrsmNarrowIsTrsm holds to the
// general path's bits).
func TestTrsmNarrowSolves(t *testing.T) {
	m, n := 700, 17
	u := upperFactor(m, m, 1, 9)
	for _, tr := range []bool{false, true} {
		b := rhs(m, n, n, 9)
		x := append([]float64(nil), b...)
		trsmNarrow(tr, m, n, u, m, x, n)
		for i := range m {
			for j := range n {
				var s float64
				for p := range m {
					s += refAt(u, m, tr, i, p) * x[p*n+j]
				}
				if d := math.Abs(s - b[i*n+j]); d > 1e-10*(1+math.Abs(b[i*n+j])) {
					t.Fatalf("trans %v: (op(U)X)[%d,%d] = %v, want %v", tr, i, j, s, b[i*n+j])
				}
			}
		}
	}
}

// TestTrsvUpperIsGonum: the solve with Uᵀ (trsvUpperTrans) and Impl's
// Dtrsv, which the condition estimate and the diagnostics call, are
// gonum's Dtrsv bit for bit (kernels and twins).
func TestTrsvUpperIsGonum(t *testing.T) {
	if numeric.FusedMulAdd {
		t.Skip("gonum's Go loops may fuse multiply-adds in this build")
	}
	for _, n := range []int{1, 2, 9, 17, 300} {
		lda := n + n%3
		u := upperFactor(n, lda, 1e-6, uint64(n))
		x0 := rhs(n, 1, 1, uint64(n))
		for _, tr := range []blas.Transpose{blas.Trans, blas.NoTrans} {
			want := append([]float64(nil), x0...)
			gonum.Implementation{}.Dtrsv(blas.Upper, tr, blas.NonUnit, n, u, lda, want, 1)
			for _, k := range narrowKernels() {
				if tr == blas.Trans {
					got := append([]float64(nil), x0...)
					withNarrow(true, k, func() { trsvUpperTrans(n, u, lda, got) })
					numeric.RequireSameBits(t, fmt.Sprintf("n %d %c avx512 %v", n, tr, k), got, want)
				}
				// Impl's Dtrsv, which the condition estimate and the
				// diagnostics call: trsvUpperTrans above MinPotrf.
				got := append([]float64(nil), x0...)
				withNarrow(true, k, func() { Impl{}.Dtrsv(blas.Upper, tr, blas.NonUnit, n, u, lda, got, 1) })
				numeric.RequireSameBits(t, fmt.Sprintf("Impl.Dtrsv n %d %c avx512 %v", n, tr, k), got, want)
			}
		}
	}
}

// TestLansyIsGonum: Lapack.Dlansy's interleaved row sums give gonum's
// Dlansy bit for bit, the norm and every row's sum left in work (the 1-
// and ∞-norms of the upper triangle, orders
// above MinPotrf with and without a remainder of rows, a row stride wider
// than n), NaN where an entry is NaN, and the other cases are gonum's.
func TestLansyIsGonum(t *testing.T) {
	var ref lapackgonum.Implementation
	for _, n := range []int{MinPotrf + 1, 300, 1003} {
		lda := n + 3
		a := randMat(rand.New(rand.NewPCG(uint64(n), 8)), n*lda)
		for _, norm := range []lapack.MatrixNorm{lapack.MaxRowSum, lapack.MaxColumnSum, lapack.MaxAbs, lapack.Frobenius} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				gw, ww := make([]float64, n), make([]float64, n)
				got := Lapack{}.Dlansy(norm, ul, n, a, lda, gw)
				want := ref.Dlansy(norm, ul, n, a, lda, ww)
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n %d norm %c %c: %v, gonum's %v", n, norm, ul, got, want)
				}
				// every row's sum, not only the largest, as gonum's
				numeric.RequireSameBits(t, fmt.Sprintf("n %d norm %c %c: sums", n, norm, ul), gw, ww)
			}
		}
		a[(n/2)*lda+n-2] = math.NaN()
		if got := (Lapack{}).Dlansy(lapack.MaxRowSum, blas.Upper, n, a, lda, make([]float64, n)); !math.IsNaN(got) {
			t.Fatalf("n %d: %v with a NaN entry", n, got)
		}
	}
}
