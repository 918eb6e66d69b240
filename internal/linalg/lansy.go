package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
)

// Dlansy returns a norm of the symmetric n×n matrix a (its ul triangle):
// gonum's Dlansy, except for n > MinPotrf, the upper triangle and the
// 1- or ∞-norm (mat.Cholesky's CondNorm, taken before every factorisation),
// where four rows' sums run at once. Gonum sums row i's |a_ij| into one
// accumulator, a chain of n − i dependent additions per row (6 ms at
// n = 2000, bound by the adder's latency); here four rows' chains
// interleave, and every sum gets its terms in gonum's order (a row's from
// left to right, a column's from top to bottom), so the bits are gonum's
// (TestLansyIsGonum).
func (l Lapack) Dlansy(norm lapack.MatrixNorm, ul blas.Uplo, n int, a []float64, lda int, work []float64) float64 {
	if n <= MinPotrf || ul != blas.Upper || (norm != lapack.MaxRowSum && norm != lapack.MaxColumnSum) {
		return l.Implementation.Dlansy(norm, ul, n, a, lda, work)
	}
	_ = a[(n-1)*lda+n-1]
	work = work[:n]
	clear(work)
	i := 0
	for ; i+4 <= n; i += 4 {
		for r := i; r < i+4; r++ { // the block's own triangle, row by row
			work[r] += math.Abs(a[r*lda+r])
			for j := r + 1; j < i+4; j++ {
				v := math.Abs(a[r*lda+j])
				work[r] += v
				work[j] += v
			}
		}
		s0, s1, s2, s3 := work[i], work[i+1], work[i+2], work[i+3]
		a0, a1 := a[i*lda:i*lda+n], a[(i+1)*lda:(i+1)*lda+n]
		a2, a3 := a[(i+2)*lda:(i+2)*lda+n], a[(i+3)*lda:(i+3)*lda+n]
		for j := i + 4; j < n; j++ {
			v0, v1, v2, v3 := math.Abs(a0[j]), math.Abs(a1[j]), math.Abs(a2[j]), math.Abs(a3[j])
			s0 += v0
			s1 += v1
			s2 += v2
			s3 += v3
			w := work[j] + v0
			w += v1
			w += v2
			work[j] = w + v3
		}
		work[i], work[i+1], work[i+2], work[i+3] = s0, s1, s2, s3
	}
	for ; i < n; i++ {
		work[i] += math.Abs(a[i*lda+i])
		for j := i + 1; j < n; j++ {
			v := math.Abs(a[i*lda+j])
			work[i] += v
			work[j] += v
		}
	}
	var m float64
	for _, v := range work {
		if math.IsNaN(v) {
			return math.NaN()
		}
		m = max(m, v)
	}
	return m
}
