package linalg

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Lapack is gonum's LAPACK with the Cholesky factorisation Dpotrf done
// right-looking in panels of potrfBlock columns when n > MinPotrf: the
// panel's diagonal block by gonum's Dpotrf, its row of U by one
// triangular solve, and the trailing matrix by one symmetric rank-potrfBlock
// update, the product that carries n³/3 of the work, on the packed kernel.
// Gonum's own Dpotrf (left-looking, 64 columns a step) runs below
// MinPotrf, so small factorisations keep their bits.
type Lapack struct{ gonum.Implementation }

const (
	// MinPotrf is the order from which Lapack.Dpotrf runs the blocked
	// factorisation (the size at which Impl's products pass MinWork).
	MinPotrf = 256
	// potrfBlock is the width of a panel: the k of the rank-k updates.
	potrfBlock = 128
)

// Dpotrf computes the Cholesky factor of the symmetric positive definite
// n×n matrix a (its ul triangle), A = UᵀU or LLᵀ, in place. It reports
// whether a is positive definite.
func (l Lapack) Dpotrf(ul blas.Uplo, n int, a []float64, lda int) bool {
	if n <= MinPotrf || ul != blas.Upper {
		return l.Implementation.Dpotrf(ul, n, a, lda)
	}
	var bi Impl
	for j := 0; j < n; j += potrfBlock {
		jb := min(potrfBlock, n-j)
		if !l.Implementation.Dpotrf(blas.Upper, jb, a[j*lda+j:], lda) {
			return false
		}
		rest := n - j - jb
		if rest == 0 {
			break
		}
		// U12 = U11⁻ᵀ A12, then A22 −= U12ᵀ U12.
		bi.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, jb, rest, 1, a[j*lda+j:], lda, a[j*lda+j+jb:], lda)
		bi.Dsyrk(blas.Upper, blas.Trans, rest, jb, -1, a[j*lda+j+jb:], lda, 1, a[(j+jb)*lda+j+jb:], lda)
	}
	return true
}
