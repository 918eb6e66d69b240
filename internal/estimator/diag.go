package estimator

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/linalg"
)

// Conditioning describes how well a fit's data determine Ŵ: the spectrum
// of the regularised normal matrix V + λI the estimate solves with (the
// observed information, the negative Hessian of the log-likelihood at Ŵ,
// for MLE).
type Conditioning struct {
	// Cond is the 2-norm condition number λ_max/λ_min of V + λI. V + λI is
	// block diagonal, so its eigenvalues are those of its blocks, and the
	// extremes are taken over all of them. Row scales (the LDS fit's
	// 1/σ²) are not applied: it is the spectrum of V + λI, not of P.
	Cond float64
	// MinEig is the smallest eigenvalue of V itself (without λ):
	// λ_min(V + λI) − λ. Rounding can leave it slightly below zero when V
	// is singular.
	MinEig float64
}

// epsilon is the float64 machine epsilon, 2⁻⁵².
const epsilon = 0x1p-52

// lanczosSteps is the number of Lanczos steps of each eigenvalue
// estimate: the extremes of a block of at most this size are exact (up to
// rounding), those of a larger one are inner bounds.
const lanczosSteps = 8

// Conditioning returns the spectrum summary of f's V + λI from its
// factorisations V_b + λI = UᵀU = A, without forming or decomposing any
// b×b matrix: λ_max(A) is the largest Ritz value of lanczosSteps Lanczos
// steps on A (x ↦ Uᵀ(U x)), λ_min(A) the reciprocal of the largest on
// A⁻¹ (x ↦ two triangular solves), each from one fixed start vector with
// full reorthogonalisation. A step costs b² multiply-adds per distinct
// block of size b, so both estimates together cost about one
// factorisation, where an eigen decomposition would cost several. For
// b ≤ lanczosSteps the Krylov space is the whole space and the extremes
// are exact; for larger blocks the Ritz values lie inside the spectrum
// and converge to its ends fastest where an extreme stands apart, while
// within a cluster of nearly equal extremes they lie in the cluster. A
// Cond above ~1e15 only says "numerically singular" and is capped at
// 1/ε ≈ 4.5e15. ok is false for a fit without blocks, or when the Ritz
// values cannot be computed or the inverse's is not positive.
func (f *Fit) Conditioning() (c Conditioning, ok bool) {
	f.live()
	lo, hi := math.Inf(1), math.Inf(-1)
	seen := map[*cholesky]bool{}
	for _, b := range f.blocks {
		if seen[b.c] {
			continue
		}
		seen[b.c] = true
		l, h, ok := b.c.extremes()
		if !ok {
			return Conditioning{}, false
		}
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	if len(seen) == 0 {
		return Conditioning{}, false
	}
	minEig := lo - f.Lambda
	// A computed λ_min of a numerically singular matrix can be ≤ 0: cap
	// the condition number at 1/ε, where it means "singular".
	// Both estimates are inner ones: where the extremes nearly coincide,
	// rounding could put them the wrong way round.
	lo = math.Max(lo, hi*epsilon)
	return Conditioning{Cond: math.Max(hi/lo, 1), MinEig: minEig}, true
}

// extremes returns the estimates of the smallest and largest eigenvalues
// of the factorised matrix A = UᵀU of Conditioning: the two Lanczos
// iterations, on A (x ↦ Uᵀ(U x)) and on A⁻¹ (two triangular solves), step
// together, each step of both one pass over U each way
// (linalg.UtUPair), with the bits of running them one after the other.
func (c *cholesky) extremes() (lo, hi float64, ok bool) {
	n, u := c.n, c.upper()
	onA, onInv := newLanczos(n), newLanczos(n)
	for {
		xa, wa := onA.next()
		xi, wi := onInv.next()
		if xa == nil && xi == nil {
			break
		}
		if xa != nil {
			copy(wa, xa)
		}
		if xi != nil {
			copy(wi, xi)
		}
		linalg.UtUPair(n, u, n, wa, wi)
		if xa != nil {
			onA.took()
		}
		if xi != nil {
			onInv.took()
		}
	}
	hi, ok = onA.max()
	if !ok {
		return 0, 0, false
	}
	inv, ok := onInv.max()
	return 1 / inv, hi, ok && inv > 0
}

// lanczos is min(n, lanczosSteps) Lanczos steps with a symmetric positive
// definite n×n operator, from a fixed start vector, reorthogonalising
// every step against all earlier vectors; the caller applies the
// operator: next gives x and the vector w to hold A x, took takes it.
type lanczos struct {
	n, k        int
	q           [][]float64
	alpha, beta []float64
	w           []float64 // the step's A x, between next and took
	done        bool
}

func newLanczos(n int) *lanczos {
	k := min(n, lanczosSteps)
	l := &lanczos{n: n, k: k, q: make([][]float64, 0, k+1), alpha: make([]float64, 0, k), beta: make([]float64, 0, k)}
	q0 := make([]float64, n)
	for i := range q0 {
		// Fixed and generic: no eigenvector of a structured matrix is
		// orthogonal to it by design.
		q0[i] = 1 + 0.5*math.Sin(float64(i)+1)
	}
	normalise(q0)
	l.q = append(l.q, q0)
	l.done = k == 0
	return l
}

// next returns the vector the next step applies the operator to and the
// vector for the result, or nils when the steps are done.
func (l *lanczos) next() (x, w []float64) {
	if l.done {
		return nil, nil
	}
	l.w = make([]float64, l.n)
	return l.q[len(l.q)-1], l.w
}

// took completes the step whose w = A x next returned.
func (l *lanczos) took() {
	j, w, q := len(l.alpha), l.w, l.q
	var a float64
	for i, v := range w {
		a += v * q[j][i]
	}
	l.alpha = append(l.alpha, a)
	for range 2 { // twice is enough (Kahan)
		for _, qi := range q {
			var d float64
			for i, v := range w {
				d += v * qi[i]
			}
			for i := range w {
				w[i] -= d * qi[i]
			}
		}
	}
	var b float64
	for _, v := range w {
		b += v * v
	}
	b = math.Sqrt(b)
	if j == l.k-1 || b <= 1e-14*math.Abs(a) {
		l.done = true // k steps, or an invariant subspace: T's spectrum is exact
		return
	}
	l.beta = append(l.beta, b)
	for i := range w {
		w[i] /= b
	}
	l.q = append(l.q, w)
}

// max returns the largest Ritz value of the steps taken; ok is false when
// the tridiagonal matrix's eigen decomposition fails.
func (l *lanczos) max() (float64, bool) {
	alpha, beta := l.alpha, l.beta
	m := len(alpha)
	t := mat.NewSymDense(m, nil)
	for i := range m {
		t.SetSym(i, i, alpha[i])
		if i+1 < m {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var e mat.EigenSym
	if !e.Factorize(t, false) {
		return 0, false
	}
	v := e.Values(nil)
	return v[m-1], true
}

// normalise scales x to unit length.
func normalise(x []float64) {
	var s float64
	for _, v := range x {
		s += v * v
	}
	s = 1 / math.Sqrt(s)
	for i := range x {
		x[i] *= s
	}
}
