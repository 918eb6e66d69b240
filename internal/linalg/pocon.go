package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Dpocon estimates the reciprocal condition number of the Cholesky-
// factorised a (mat.Cholesky calls it after every factorisation): gonum's
// algorithm (Hager–Higham iterations of Dlacn2, each a solve with Uᵀ and
// one with U), with the solves of n > MinPotrf by Dlatrs below. Gonum's own
// Dlatrs, which its Dpocon calls, takes its careful, scaled path on an
// ill-conditioned U of a regression's Gram matrix, and that path walks the
// columns of a row-major U: at n = 2000 it cost a third of a refit
// (docs/performance.md). Below MinPotrf it is gonum's Dpocon, bit for bit.
func (l Lapack) Dpocon(uplo blas.Uplo, n int, a []float64, lda int, anorm float64, work []float64, iwork []int) float64 {
	if n <= MinPotrf {
		return l.Implementation.Dpocon(uplo, n, a, lda, anorm, work, iwork)
	}
	if anorm == 0 {
		return 0
	}
	const smlnum = 0x1p-1022 // dlamch('S'), as gonum's Dpocon
	var (
		normin bool
		ainvnm float64
		kase   int
		isave  [3]int
	)
	t1, t2 := blas.Trans, blas.NoTrans
	if uplo == blas.Lower {
		t1, t2 = blas.NoTrans, blas.Trans
	}
	for {
		ainvnm, kase = l.Implementation.Dlacn2(n, work[n:], work, iwork, ainvnm, kase, &isave)
		if kase == 0 {
			if ainvnm != 0 {
				return (1 / ainvnm) / anorm
			}
			return 0
		}
		sl := l.Dlatrs(uplo, t1, blas.NonUnit, normin, n, a, lda, work, work[2*n:])
		normin = true
		su := l.Dlatrs(uplo, t2, blas.NonUnit, normin, n, a, lda, work, work[2*n:])
		if scale := sl * su; scale != 1 {
			ix := gonum.Implementation{}.Idamax(n, work, 1)
			if scale == 0 || scale < math.Abs(work[ix])*smlnum {
				return 0
			}
			l.Implementation.Drscl(n, scale, work, 1)
		}
	}
}

// Dlatrs solves the triangular system op(A) x = s·b, overwriting x, and
// returns the scale s. For n > MinPotrf it first tries the plain solve
// (Dtrsv, which reads a row-major triangle by rows), with b kept in cnorm,
// and keeps it when every entry is finite and below 2⁹⁰⁰ (s = 1);
// otherwise, and below MinPotrf, it is gonum's Dlatrs, which scales
// against overflow, on b again, with the column norms recomputed (normin
// false). So above MinPotrf cnorm is scratch, neither read nor left
// holding the norms: Dpocon, its one caller, needs neither. The plain
// solve is Impl's Dtrsv: gonum's bit for bit.
func (l Lapack) Dlatrs(uplo blas.Uplo, trans blas.Transpose, diag blas.Diag, normin bool, n int, a []float64, lda int, x []float64, cnorm []float64) float64 {
	if n <= MinPotrf {
		return l.Implementation.Dlatrs(uplo, trans, diag, normin, n, a, lda, x, cnorm)
	}
	saved := cnorm[:n] // x kept for the fallback, which recomputes cnorm
	copy(saved, x[:n])
	Impl{}.Dtrsv(uplo, trans, diag, n, a, lda, x, 1)
	ok := true
	for _, v := range x[:n] {
		if !(math.Abs(v) < 0x1p900) {
			ok = false
			break
		}
	}
	if ok {
		return 1
	}
	copy(x, saved)
	return l.Implementation.Dlatrs(uplo, trans, diag, false, n, a, lda, x, cnorm)
}

// trsvUpperTrans solves Uᵀ x = b in place for the n×n upper triangular,
// non-unit U at a (row stride lda): gonum's Dtrsv (Upper, Trans, NonUnit,
// incX 1) bit for bit, x_i /= u_ii and then x_j −= u_ij·x_i for j > i,
// row i of U read once, eight lanes at a time with AVX-512 (subScaled).
func trsvUpperTrans(n int, a []float64, lda int, x []float64) {
	_ = a[(n-1)*lda+n-1]
	_ = x[n-1]
	for i := range n {
		x[i] /= a[i*lda+i]
		subScaled(x[i+1:n], a[i*lda+i+1:i*lda+n], x[i])
	}
}
