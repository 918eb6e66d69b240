// Package linalg is smrl's level-3 BLAS: a matrix product on packed panels
// with a 6×8 register tile (AVX2/FMA assembly on amd64, the same bits in
// Go elsewhere), and the symmetric rank-k update and triangular solve
// built on it. Impl is gonum's pure-Go BLAS with these three routines
// replaced above a size (below it gonum's own code runs, so small
// problems keep their bits); Install makes it the implementation of
// gonum's blas64, so gonum's LAPACK (Cholesky, its solves) and mat run on
// it. (No OpenBLAS build: docs/performance.md says why.)
package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Impl is gonum's BLAS with Dgemm, Dsyrk and Dtrsm (left side) done by
// this package's blocked product when the work m·n·k reaches MinWork.
type Impl struct{ gonum.Implementation }

// MinWork is the size m·n·k (n·n·k for Dsyrk, m·m·n for Dtrsm) from which
// Impl's routines run the blocked product; smaller calls run gonum's code,
// bit for bit as before. 2²² is 161³: at the paper's and the pendulum's
// sizes (d_phi ≤ 200) every factorisation stays on gonum's code.
const MinWork = 1 << 22

func big(m, n, k int) bool { return float64(m)*float64(n)*float64(k) >= MinWork }

// Dgemm computes C = alpha·op(A)·op(B) + beta·C (row-major).
func (im Impl) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !big(m, n, k) {
		im.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	scale(whole, m, n, beta, c, ldc)
	gemm(whole, m, n, k, alpha, operand{a, lda, tA != blas.NoTrans}, operand{b, ldb, tB != blas.NoTrans}, c, ldc)
}

// Dsyrk computes the ul triangle of C = alpha·A·Aᵀ + beta·C (NoTrans, A
// n×k) or alpha·Aᵀ·A + beta·C (Trans, A k×n).
func (im Impl) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if !big(n, n, k) {
		im.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	pt := upperPart
	if ul == blas.Lower {
		pt = lowerPart
	}
	t := tA != blas.NoTrans
	scale(pt, n, n, beta, c, ldc)
	gemm(pt, n, n, k, alpha, operand{a, lda, t}, operand{a, lda, !t}, c, ldc)
}

// Dtrsv solves op(A) x = b in place (gonum's Dtrsv, bit for bit): for an
// upper, non-unit A of order n > MinPotrf transposed (the Cholesky factor's
// Uᵀ, in the condition estimate and the refit's diagnostics), row i of A
// is subtracted from x eight lanes at a time (trsvUpperTrans); everything
// else runs gonum's code. Uᵀ's rows are contiguous in a row-major A, where
// gonum walks them one element per call.
func (im Impl) Dtrsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	if ul == blas.Upper && tA != blas.NoTrans && d == blas.NonUnit && incX == 1 && n > MinPotrf {
		trsvUpperTrans(n, a, lda, x)
		return
	}
	im.Implementation.Dtrsv(ul, tA, d, n, a, lda, x, incX)
}

// scale multiplies the part pt of C by beta (beta = 0: sets it to zero,
// whatever it held).
func scale(pt part, m, n int, beta float64, c []float64, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		lo, hi := 0, n
		switch pt {
		case upperPart:
			lo = i
		case lowerPart:
			hi = i + 1
		}
		row := c[i*ldc+lo : i*ldc+hi]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// trsmBase is the number of rows at and below which Dtrsm hands a
// diagonal block to gonum's solve.
const trsmBase = 32

// Dtrsm solves op(A)·X = alpha·B (side Left) or X·op(A) = alpha·B (Right,
// gonum's code) for triangular A, overwriting B with X. The left solve
// splits A's rows in two recursively: one half is solved, its product with
// the off-diagonal block is subtracted from the other half's right-hand
// sides by gemm, then the other half is solved; blocks of up to trsmBase
// rows are gonum's solve.
func (im Impl) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if s == blas.Left && ul == blas.Upper && d == blas.NonUnit && alpha == 1 && m >= narrowMinOrder && narrowSolve {
		trsmNarrow(tA != blas.NoTrans, m, n, a, lda, b, ldb) // the same bits (narrow.go)
		return
	}
	if s != blas.Left || !big(m, m, n) {
		im.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if alpha != 1 {
		scale(whole, m, n, alpha, b, ldb)
	}
	im.trsmLeft(ul, tA != blas.NoTrans, d, m, n, a, lda, b, ldb)
}

// trsmLeft solves op(A)·X = B in place for the m×m triangle at a.
// op(A) is lower triangular (solved top down) for Upper with Trans or
// Lower without; else upper (solved bottom up).
func (im Impl) trsmLeft(ul blas.Uplo, t bool, d blas.Diag, m, n int, a []float64, lda int, b []float64, ldb int) {
	tA := blas.NoTrans
	if t {
		tA = blas.Trans
	}
	if m <= trsmBase {
		im.Implementation.Dtrsm(blas.Left, ul, tA, d, m, n, 1, a, lda, b, ldb)
		return
	}
	m1 := trsmHalf(m)
	m2 := m - m1
	// op(A) = [A11 A12; A21 A22] with A11 m1×m1; the off-diagonal block is
	// stored at row 0, column m1 (Upper) or row m1, column 0 (Lower).
	b1, b2 := b, b[m1*ldb:]
	a22 := a[m1*lda+m1:]
	if (ul == blas.Upper) == t { // lower triangular op(A): A21 = op(A)[m1:, :m1]
		im.trsmLeft(ul, t, d, m1, n, a, lda, b1, ldb)
		off := operand{a[m1*lda:], lda, false} // Lower, NoTrans: rows m1.. of A
		if ul == blas.Upper {
			off = operand{a[m1:], lda, true} // Upper, Trans: A21 = (A[:m1, m1:])ᵀ
		}
		im.sub(m2, n, m1, off, b1, ldb, b2)
		im.trsmLeft(ul, t, d, m2, n, a22, lda, b2, ldb)
		return
	}
	// Upper triangular op(A): A12 = op(A)[:m1, m1:].
	im.trsmLeft(ul, t, d, m2, n, a22, lda, b2, ldb)
	off := operand{a[m1:], lda, false} // Upper, NoTrans: columns m1.. of rows :m1
	if ul == blas.Lower {
		off = operand{a[m1*lda:], lda, true} // Lower, Trans: A12 = (A[m1:, :m1])ᵀ
	}
	im.sub(m1, n, m2, off, b2, ldb, b1)
	im.trsmLeft(ul, t, d, m1, n, a, lda, b1, ldb)
}

// trsmHalf is the order of the first half of trsmLeft's (and narrowRec's)
// split of an m×m triangle: a multiple of 8 near m/2. The two recursions'
// bits are the same only while they split alike.
func trsmHalf(m int) int { return roundUp(m/2, 8) }

// sub computes C −= op(A)·X for op(A) m×k, X k×n and C m×n (both with row
// stride ldb), by the blocked product or, when small, gonum's.
func (im Impl) sub(m, n, k int, a operand, x []float64, ldb int, c []float64) {
	if !big(m, n, k) {
		tA := blas.NoTrans
		if a.t {
			tA = blas.Trans
		}
		im.Implementation.Dgemm(tA, blas.NoTrans, m, n, k, -1, a.x, a.ld, x, ldb, 1, c, ldb)
		return
	}
	gemm(whole, m, n, k, -1, a, operand{x, ldb, false}, c, ldb)
}
