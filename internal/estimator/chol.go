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
	norm float64   // ‖A‖₁ by Dlansy, the norm Dpocon takes
	// cond is the 1-norm condition estimate of A, mat.Cholesky.Cond's, once
	// condKnown. newCholesky leaves it to the first Cond call when
	// condBound, a proven upper bound on it, settles the thresholds it is
	// compared with (condAbove, condWithin); +Inf when there is none.
	cond      float64
	condKnown bool
	condBound float64
}

// newCholesky factorises the symmetric matrix whose upper triangle u holds
// (row-major n×n, zeros below the diagonal), in place, as
// mat.Cholesky.Factorize does: the max-row-sum norm of A (Dlansy), the
// factor (Dpotrf), then cond = 1/Dpocon(U, norm). ok is false when A is
// not positive definite. minEig > 0 is a proven lower bound on the
// smallest eigenvalue of A (gramFloor; 0: none). With it the condition
// estimate, whose Hager–Higham solves are a fifth of a refit at n = 2000,
// may wait for the first Cond call: it is not computed while the bound
// it implies (certifyCond) settles every comparison made with it, and
// when it is computed its value is the same.
func newCholesky(u []float64, n int, minEig float64) (c *cholesky, ok bool) {
	sym := blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: max(1, n), Data: u}
	work := make([]float64, 3*n)
	norm := lapack64.Lansy(mat.CondNorm, sym, work)
	var tr float64 // A's trace, for certifyCond
	if minEig > 0 {
		for i := range n {
			tr += u[i*n+i]
		}
	}
	if _, ok := lapack64.Potrf(sym); !ok {
		return nil, false
	}
	c = &cholesky{n: n, u: u, norm: norm, condBound: certifyCond(n, norm, tr, minEig)}
	if math.IsInf(c.condBound, 1) {
		c.condEstimate(work)
	}
	return c, true
}

// condEstimate sets cond = 1/Dpocon(U, norm), mat.Cholesky's estimate.
func (c *cholesky) condEstimate(work []float64) {
	sym := blas64.Symmetric{Uplo: blas.Upper, N: c.n, Stride: max(1, c.n), Data: c.u}
	v := lapack64.Pocon(sym, c.norm, work, make([]int, c.n))
	c.cond, c.condKnown = 1/v, true
}

// Cond returns the estimate of A's condition number in the 1-norm,
// computed on the first call when newCholesky left it (that call writes:
// a cholesky is not for concurrent use, as its Fit; condAbove and
// condWithin write only where newCholesky computed nothing and the bound
// does not settle them, which factor settles before it returns). After
// Fit.Release, whose factor goes to the next refit, it must not be called.
func (c *cholesky) Cond() float64 {
	if !c.condKnown {
		c.condEstimate(make([]float64, 3*c.n))
	}
	return c.cond
}

// condAbove reports Cond() > limit, and condWithin Cond() ≤ limit (false
// for NaN), without computing the estimate when its proven bound is at
// most limit.
func (c *cholesky) condAbove(limit float64) bool { return !c.boundWithin(limit) && c.Cond() > limit }

func (c *cholesky) condWithin(limit float64) bool { return c.boundWithin(limit) || c.Cond() <= limit }

// boundWithin reports that the estimate, not computed, is proven at most
// limit.
func (c *cholesky) boundWithin(limit float64) bool { return !c.condKnown && c.condBound <= limit }

// unitRoundoff is u = 2⁻⁵³; gamma(k) = k·u/(1 − k·u) bounds the relative
// error of k roundings (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., §3.1).
const unitRoundoff = 0x1p-53

func gamma(k int) float64 {
	ku := float64(k) * unitRoundoff
	if ku >= 1 {
		return math.Inf(1) // no bound: every use then proves nothing
	}
	return ku / (1 - ku)
}

// certifyCond returns an upper bound on the condition estimate Dpocon
// gives for the factored n×n A, from minEig > 0, a lower bound on the
// smallest eigenvalue of A as stored before Dpotrf, its trace tr and
// Dlansy's ‖A‖₁, norm; +Inf when no bound follows. The estimate is
// norm·‖x̂‖₁/‖v‖₁ for computed solutions x̂ of UᵀU x = v (Dlacn2's vectors),
// and the computed U and the two substitutions solve exactly
// (A + P) x̂ = v with ‖P‖₂ ≤ (γ_{n+4} + 2γ_{n+4} + γ_{n+4}²)·‖U‖_F²: the
// backward errors of the Cholesky factorisation and of substitution, in
// any order of their inner products and with a division or a reciprocal
// per entry (Higham, Theorems 10.3 and 8.5), with ‖|U|ᵀ|U|‖₂ ≤ ‖U‖_F² and
// ‖U‖_F² = tr(UᵀU) ≤ tr A/((1 − γ_n)(1 − γ_{n+4})). So
// ‖x̂‖₁ ≤ √n‖x̂‖₂ ≤ √n‖v‖₁/(minEig − ‖P‖₂), and ‖A‖₁ ≤ norm/(1 − γ_n); the
// last factor covers the roundings of v, of ‖x̂‖₁ and of Dpocon's 1/(1/x)/y.
// The analysis assumes no underflow or overflow: where a solution could
// grow near 2⁹⁰⁰ (n^{3/2}/lo, Dlacn2's sign vectors having 1-norm n),
// Dlatrs would take its scaled path, which may set the estimate to +Inf
// (λ near underflow with nothing else on the diagonal), so there is no
// bound there; below 2⁸⁰⁰ the solutions stay clear of it and the errors
// of underflow (2⁻¹⁰⁷⁵ an operation) are far below lo·u.
func certifyCond(n int, norm, tr, minEig float64) float64 {
	if !(minEig > 0) || !(norm > 0) || math.IsInf(norm, 1) || !(tr > 0) || math.IsInf(tr, 1) {
		return math.Inf(1)
	}
	g := gamma(n + 4)
	frob := tr / ((1 - gamma(n)) * (1 - g))
	lo := minEig - (3*g+g*g)*frob
	if !(lo > 0) || float64(n)*math.Sqrt(float64(n))/lo > 0x1p800 {
		return math.Inf(1)
	}
	return norm / (1 - gamma(n)) * math.Sqrt(float64(n)) / lo * (1 + gamma(n+10))
}

// gramFloor returns a lower bound on the smallest eigenvalue of
// A = fl(scale·a + λI) as factor forms it, when the d×d a (upper triangle)
// is the floating-point sum, in any order and blocking, of outer products
// w·g gᵀ with weights w ≥ 0, at most terms of them in each entry and each
// rounded at most eight times (score matching's V without weights, least
// squares' G); 0 when the bound cannot be shown (terms, scale or λ not
// positive, a diagonal entry negative or not finite). Why: the exact sum V
// of the rounded products is positive semidefinite, and
// |a − V| ≤ γ_{terms+8}·Σ w|g||g|ᵀ entrywise (Higham §3.1, §4.2), so
// ‖a − V‖₂ ≤ γ_{terms+8}·tr V, with tr V ≤ tr a/((1 − γ_d)(1 − γ_{terms+8}))
// because every term of the diagonal is ≥ 0. Forming A rounds each entry
// at most twice: an error of 2-norm at most 2.01u‖A‖_F ≤ 2.01u·tr(scale·V
// + λI) up to those errors. So λ_min(A) ≥ λ − scale·γ_{terms+8}·tr V −
// 3u·(scale·tr V + dλ), each factor with a little slack.
func gramFloor(a []float64, d int, scale, lambda float64, terms int) float64 {
	if terms <= 0 || !(scale > 0) || math.IsInf(scale, 1) || !(lambda > 0) || math.IsInf(lambda, 1) {
		return 0
	}
	var tr float64
	for i := range d {
		x := a[i*d+i]
		if !(x >= 0) || math.IsInf(x, 1) {
			return 0
		}
		tr += x
	}
	g := gamma(terms + 8)
	trV := tr / ((1 - gamma(d)) * (1 - g)) * (1 + gamma(2))
	lo := lambda - scale*g*trV - 3*unitRoundoff*(scale*trV+float64(d)*lambda)
	if !(lo > 0) || math.IsInf(lo, 0) {
		return 0
	}
	return lo
}

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
	if c.condAbove(mat.ConditionTolerance) {
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
