package estimator

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// cholesky is a factorisation A = UᵀU of a d×d symmetric positive definite
// matrix, with the methods of gonum's mat.Cholesky the estimators use and
// the same bits: U, the condition estimate, the solves, log det and the
// inverse come from the same LAPACK calls in the same order. What it saves
// is mat.Cholesky.Factorize's copy: factor writes scale·V + λI once, into
// the slice that becomes U, where Factorize copied a scratch copy again
// into a freshly allocated triangle (at d = 2000 two 32 MB passes and a
// 32 MB scratch kept per estimator).
type cholesky struct {
	n    int
	u    []float64 // row-major n×n: U in the upper triangle, zeros below
	cond float64   // the 1-norm condition estimate of A, mat.Cholesky.Cond's
}

// newCholesky factorises the symmetric matrix whose upper triangle u holds
// (row-major n×n, zeros below the diagonal), in place, as
// mat.Cholesky.Factorize does: the max-row-sum norm of A (Dlansy), the
// factor (Dpotrf), then cond = 1/Dpocon(U, norm). ok is false when A is
// not positive definite.
func newCholesky(u []float64, n int) (c *cholesky, ok bool) {
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: max(1, n), Data: u}
	work := make([]float64, 3*n)
	norm := lapack64.Lansy(mat.CondNorm, sym, work)
	if _, ok := lapack64.Potrf(sym); !ok {
		return nil, false
	}
	v := lapack64.Pocon(sym, norm, work, make([]int, n))
	return &cholesky{n: n, u: u, cond: 1 / v}, true
}

// Cond returns the estimate of A's condition number in the 1-norm.
func (c *cholesky) Cond() float64 { return c.cond }

func (c *cholesky) tri() blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: c.n, Stride: max(1, c.n), Data: c.u}
}

// LogDet returns log det A = Σ_i 2 log u_ii, summed in mat.Cholesky's
// order.
func (c *cholesky) LogDet() float64 {
	var det float64
	for i := range c.n {
		det += 2 * math.Log(c.u[i*c.n+i])
	}
	return det
}

// conditionErr is mat.Cholesky's warning on a solve with an
// ill-conditioned A (never for a factor that passed factor's maxCond).
func (c *cholesky) conditionErr() error {
	if c.cond > mat.ConditionTolerance {
		return mat.Condition(c.cond)
	}
	return nil
}

// SolveTo solves A X = B in place, B an n-row matrix (a view is fine):
// mat.Cholesky.SolveTo(b, b).
func (c *cholesky) SolveTo(b *mat.Dense) error {
	if r, _ := b.Dims(); r != c.n {
		panic(mat.ErrShape)
	}
	lapack64.Potrs(c.tri(), b.RawMatrix())
	return c.conditionErr()
}

// SolveVecTo solves A x = b into dst (empty or of length n): as
// mat.Cholesky.SolveVecTo.
func (c *cholesky) SolveVecTo(dst, b *mat.VecDense) error {
	if b.Len() != c.n {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAsVec(c.n)
	} else if dst.Len() != c.n {
		panic(mat.ErrShape)
	}
	if dst != b {
		dst.CopyVec(b)
	}
	raw := dst.RawVector()
	lapack64.Potrs(c.tri(), blas64.General{Rows: c.n, Cols: 1, Stride: raw.Inc, Data: raw.Data})
	return c.conditionErr()
}

// InverseTo writes A⁻¹ into dst (empty or n×n): U copied into dst's upper
// triangle, then LAPACK's Dpotri, as mat.Cholesky.InverseTo.
func (c *cholesky) InverseTo(dst *mat.SymDense) error {
	if dst.IsEmpty() {
		dst.ReuseAsSym(c.n)
	} else if dst.SymmetricDim() != c.n {
		panic(mat.ErrShape)
	}
	raw := dst.RawSymmetric()
	for i := range c.n {
		copy(raw.Data[i*raw.Stride+i:i*raw.Stride+c.n], c.u[i*c.n+i:(i+1)*c.n])
	}
	t := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: c.n, Stride: raw.Stride, Data: raw.Data}
	if _, ok := lapack64.Potri(t); !ok {
		return mat.Condition(math.Inf(1))
	}
	return c.conditionErr()
}
