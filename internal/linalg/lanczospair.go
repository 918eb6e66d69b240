package linalg

import "gonum.org/v1/gonum/blas/gonum"

// UtUPair applies, in one pass over the rows of the n×n upper triangular,
// non-unit U at a (row stride lda) each way, the operators of the two
// Lanczos iterations of the refit's diagnostics (estimator's
// Conditioning), in place:
//
//	x ← Uᵀ(U x)      with the bits of gonum's Dtrmv, NoTrans then Trans
//	                 (mat.VecDense.MulVec of U, then of Uᵀ);
//	y ← (UᵀU)⁻¹ y    with the bits of Impl.Dtrsv, Trans then NoTrans;
//
// bit for bit but for the sign and payload of a NaN result (which operand
// of an addition a NaN comes from is the compiler's choice). Either vector
// may be nil; x and y must not overlap. Each row does both iterations' operations in
// their own order: the four routines' passes over U become two, and the
// U solve's chain of additions, which waits on each one, runs alongside
// the product's streaming of the row.
func UtUPair(n int, a []float64, lda int, x, y []float64) {
	if n == 0 {
		return
	}
	_ = a[(n-1)*lda+n-1]
	if x != nil {
		_ = x[n-1]
	}
	if y != nil {
		_ = y[n-1]
	}
	if n == 1 && x != nil { // Dtrmv's own case: no sum, so no + 0 (−0 stays −0)
		x[0] *= a[0]
		x[0] *= a[0]
		x = nil
	}
	var g gonum.Implementation
	for i := range n { // U x, then Uᵀ y's forward solve
		row := a[i*lda+i+1 : i*lda+n]
		if x != nil {
			// Rounded before the sum, as in Dtrmv, where the product is one
			// arm of a branch and so never fused with it (GOAMD64=v3).
			tmp := float64(a[i*lda+i] * x[i])
			x[i] = tmp + g.Ddot(n-i-1, row, 1, x[i+1:], 1)
		}
		if y != nil {
			y[i] /= a[i*lda+i]
			if n > MinPotrf {
				subScaled(y[i+1:n], row, y[i]) // Impl.Dtrsv's trsvUpperTrans
				continue
			}
			yi := y[i] // gonum's Dtrsv below MinPotrf
			for j, v := range row {
				jv := j + i + 1
				y[jv] -= v * yi
			}
		}
	}
	for i := n - 1; i >= 0; i-- { // Uᵀ x, then U's backward solve
		row := a[i*lda+i+1 : i*lda+n]
		if x != nil {
			xi := x[i]
			axpyUnitary(xi, row, x[i+1:n])
			x[i] *= a[i*lda+i]
		}
		if y != nil {
			var sum float64
			for j, v := range row {
				jv := i + j + 1
				sum += y[jv] * v
			}
			y[i] -= sum
			y[i] /= a[i*lda+i]
		}
	}
}

// axpyUnitary is gonum's f64.AxpyUnitary, y += alpha·x with each product
// rounded, which its Dtrmv calls whatever alpha: Daxpy for alpha ≠ 0 (the
// same assembly) and the same operations in Go for alpha = 0, which Daxpy
// skips (0·x can turn y's −0 into +0, or put a NaN into y). It matters
// only for a U with a diagonal entry ≤ 0, not for a Cholesky factor, but
// keeps UtUPair gonum's for any U.
func axpyUnitary(alpha float64, x, y []float64) {
	if alpha != 0 {
		gonum.Implementation{}.Daxpy(len(y), alpha, x, 1, y, 1)
		return
	}
	x = x[:len(y)]
	for i, v := range x {
		y[i] += float64(alpha * v)
	}
}
