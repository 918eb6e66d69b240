package estimator

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ErrSingular is returned when V + λI cannot be factorised: with λ = 0 this
// happens whenever the data do not span every feature direction.
var ErrSingular = errors.New("V + λI is singular or not positive definite")

// maxCond is the largest condition number of V + λI accepted before the
// solve is declared singular.
const maxCond = 1e14

// Fit is an estimate Ŵ together with the factorised precision matrix of its
// confidence set,
//
//	P = S (V + λI),   S = diag(s_0 I, …, s_{d_psi−1} I)   (d×d, d = d_psi·d_phi),
//
// where V + λI is the estimator's regularised normal matrix and s_k > 0
// scales row k of W (s_k = 1 for SM and MLE, 1/σ_k² for the LDS fit of
// FitNoise). V + λI is block diagonal in vec(W): each block covers a
// contiguous range of vec(W) (one row of W, one coordinate's rows, or all of
// it; a block spanning several rows has s = 1), and several blocks may
// share one factorisation (when V = C ⊗ G with constant C, every row's
// block is the same c·G + λI). Norm, InvSqrt and Ridge use P; LogDet uses
// V/λ, on which S has no effect. A Fit is not safe for concurrent use: it
// caches the triangular factors of its blocks.
type Fit struct {
	W          []float64 // d_psi×d_phi, row-major
	DPsi, DPhi int
	Lambda     float64
	N          int
	blocks     []fitBlock
	pool       *factorPool // the estimator's, for Release; nil: none
	released   bool
}

// factorPool keeps the factors of an estimator's released Fits for its
// next refits to write into (Fit.Release). At d = 2000 a factor is 32 MB,
// whose fresh allocation (zeroed, then its pages touched) cost about a
// tenth of the refit; a learner refitting every episode alternates
// between two.
type factorPool struct{ free [][]float64 }

// get returns a d×d slice that is zero below the diagonal, as factor needs:
// a released factor of order d (a Cholesky factor's strict lower triangle
// is never written: Dpotrf, Dpocon and the solves read and write the upper
// one), else a new one.
func (p *factorPool) get(d int) []float64 {
	if p != nil {
		for i, u := range p.free {
			if len(u) == d*d {
				p.free = slices.Delete(p.free, i, i+1)
				return u
			}
		}
	}
	return make([]float64, d*d)
}

// put keeps u, a d×d slice zero below its diagonal, for get.
func (p *factorPool) put(u []float64) {
	if p != nil {
		p.free = append(p.free, u)
	}
}

// Release hands f's factorisations back to the estimator that made it, for
// its next Fit to write into. The caller promises not to use f again: every
// method of f that reads them panics afterwards, and its W is left alone.
// Fits of estimators without a pool (and a Fit released before) are not
// changed. The agents release the fit a refit replaces.
func (f *Fit) Release() {
	if f == nil || f.pool == nil {
		return
	}
	var seen []*cholesky
	for _, b := range f.blocks {
		if b.c == nil || slices.Contains(seen, b.c) {
			continue
		}
		seen = append(seen, b.c)
		f.pool.put(b.c.u)
		b.c.u = nil
	}
	f.blocks, f.pool, f.released = nil, nil, true
}

// live panics when f was released: its factors are another Fit's now.
func (f *Fit) live() {
	if f.released {
		panic("estimator: a released Fit was used")
	}
}

// fitBlock is the factorised V + λI restricted to vec(W)[off : off+n], with
// the row scale s of its rows.
type fitBlock struct {
	off, n int
	c      *cholesky // V_b + λI = UᵀU, shared by the blocks it serves
	s      float64
}

// oneBlock returns the blocks of a single factorisation of all of vec(W).
func oneBlock(d int, c *cholesky) []fitBlock {
	return []fitBlock{{off: 0, n: d, c: c, s: 1}}
}

// rowBlocks returns one block per row of W, row k factorised by c(k) with
// scale scale[k] (nil: all 1). Rows that c maps to the same factorisation
// share it.
func rowBlocks(dpsi, dphi int, c func(k int) *cholesky, scale []float64) []fitBlock {
	b := make([]fitBlock, dpsi)
	for k := range b {
		s := 1.0
		if scale != nil {
			s = scale[k]
		}
		b[k] = fitBlock{off: k * dphi, n: dphi, c: c(k), s: s}
	}
	return b
}

// factor Cholesky-factorises scale·a + λI (a d×d, symmetric, upper
// triangle filled; scale·a rounded once, then λ added on the diagonal), or
// fails with ErrSingular when it is not positive definite or its condition
// estimate exceeds maxCond. scale·a + λI is written once, into the d×d
// slice that becomes the factor, with the bits of mat.Cholesky.Factorize
// (cholesky). The slice comes from pool (nil: none): a released Fit's,
// else a new one (a Fit keeps its factor, and several Fits live at once,
// e.g. cross-validation's). terms > 0 says that a is a sum of outer
// products, at most terms of them in each entry (gramFloor): then the
// condition estimate is skipped where it is proven to pass maxCond; 0
// when a is not known to be one.
func factor(pool *factorPool, a []float64, d int, scale, lambda float64, what string, n, terms int) (*cholesky, error) {
	minEig := gramFloor(a, d, scale, lambda, terms)
	data := pool.get(d) // zero below the diagonal, as U's
	for i := 0; i < d; i++ {
		row, src := data[i*d+i:(i+1)*d], a[i*d+i:(i+1)*d]
		if scale == 1 {
			copy(row, src)
		} else {
			for j, x := range src {
				row[j] = scale * x
			}
		}
		row[0] += lambda
	}
	c, ok := newCholesky(data, d, minEig)
	if !ok || !c.condWithin(maxCond) {
		pool.put(data) // a failed Dpotrf, as a finished one, wrote nothing below the diagonal
		advice := "use a regularisation lambda > 0 or more varied data"
		if lambda > 0 {
			advice = "use a larger lambda or more varied data"
		}
		return nil, fmt.Errorf("%s: %w (n = %d transitions, λ = %g); %s", what, ErrSingular, n, lambda, advice)
	}
	return c, nil
}

// upper returns U (row-major n×n with zeros below the diagonal,
// A = UᵀU): the factor itself, not to be written.
func (c *cholesky) upper() []float64 { return c.u }

// solveInto writes −(V + λI)⁻¹ rhs into out, block by block. Consecutive
// blocks of at least blockedMin rows that share one factorisation (every
// row of W of the Gaussian family, of LDS) are solved together: one
// triangular solve each way for all their right-hand sides (solveShared).
func (f *Fit) solveInto(rhs, out []float64) error {
	f.live()
	for i := 0; i < len(f.blocks); {
		b := f.blocks[i]
		j := i + 1
		for j < len(f.blocks) && f.blocks[j].c == b.c && f.blocks[j].off == f.blocks[j-1].off+b.n {
			j++
		}
		if b.n >= blockedMin && j-i > 1 {
			lo, hi := b.off, f.blocks[j-1].off+b.n
			if err := solveShared(b.c, b.n, rhs[lo:hi], out[lo:hi]); err != nil {
				return err
			}
			i = j
			continue
		}
		x := mat.NewVecDense(b.n, out[b.off:b.off+b.n])
		if err := b.c.SolveVecTo(x, mat.NewVecDense(b.n, rhs[b.off:b.off+b.n])); err != nil {
			return err
		}
		i++
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("solution has a non-finite entry at %d: %w", i, ErrSingular)
		}
	}
	return nil
}

// solveShared solves A x_k = rhs_k for the k = len(rhs)/n consecutive
// right-hand sides of length n with the one factorisation c of A, in one
// call (LAPACK's Dpotrs: two triangular solves with k columns), and writes
// the x_k consecutively into out.
func solveShared(c *cholesky, n int, rhs, out []float64) error {
	k := len(rhs) / n
	b := mat.NewDense(n, k, nil)
	raw := b.RawMatrix()
	for r := range k {
		for i, v := range rhs[r*n : (r+1)*n] {
			raw.Data[i*raw.Stride+r] = v
		}
	}
	if err := c.SolveTo(b); err != nil {
		return err
	}
	for r := range k {
		x := out[r*n : (r+1)*n]
		for i := range x {
			x[i] = raw.Data[i*raw.Stride+r]
		}
	}
	return nil
}

// LogDet returns log det(V/λ + I) (λ > 0), the information gain that sets
// the width β of the confidence set. It equals log det(P/(Sλ)): the row
// scales S cancel, so the LDS fit's value does not depend on σ.
func (f *Fit) LogDet() float64 {
	f.live()
	var ld float64
	for _, b := range f.blocks {
		ld += b.c.LogDet() - float64(b.n)*math.Log(f.Lambda)
	}
	return ld
}

// Norm returns |δ|_P = sqrt(δᵀ P δ) for δ = vec(W − Ŵ), P = S (V + λI).
func (f *Fit) Norm(delta []float64) float64 {
	f.live()
	var s float64
	for _, b := range f.blocks {
		s += b.s * quadForm(b.c.upper(), delta[b.off:b.off+b.n])
	}
	return math.Sqrt(s)
}

// quadForm returns |U v|² = vᵀ Uᵀ U v for upper triangular U (row-major).
func quadForm(u, v []float64) float64 {
	n := len(v)
	var s float64
	for i := 0; i < n; i++ {
		var y float64
		for j := i; j < n; j++ {
			y += u[i*n+j] * v[j]
		}
		s += y * y
	}
	return s
}

// InvSqrt writes out = R⁻¹ z, where P = Rᵀ R (R = S^{1/2} U with
// V + λI = Uᵀ U), so |out|_P = |z|: it maps the unit sphere onto the
// boundary of the unit ellipsoid {δ : |δ|_P ≤ 1}, and a standard normal z
// onto N(0, P⁻¹). It allocates nothing after the first call and fails
// only when a diagonal entry of U is not positive.
func (f *Fit) InvSqrt(z, out []float64) error {
	f.live()
	for _, b := range f.blocks {
		lo, hi := b.off, b.off+b.n
		if err := backSubst(b.c.upper(), z[lo:hi], out[lo:hi], 1/math.Sqrt(b.s)); err != nil {
			return err
		}
	}
	return nil
}

// backSubst solves U x = z for upper triangular U (row-major) and writes
// r·x into out.
func backSubst(u, z, out []float64, r float64) error {
	n := len(z)
	for i := n - 1; i >= 0; i-- {
		x := z[i]
		for j := i + 1; j < n; j++ {
			x -= u[i*n+j] * out[j]
		}
		if !(u[i*n+i] > 0) {
			return fmt.Errorf("triangular factor has diagonal %v at %d: %w", u[i*n+i], i, ErrSingular)
		}
		out[i] = x / u[i*n+i]
	}
	if r != 1 {
		for i := range out[:n] {
			out[i] *= r
		}
	}
	return nil
}

// Ridge returns λ·max_k s_k, the largest regulariser on the diagonal of P:
// the ridge bias of the estimate obeys |S λ vec(W0)|_{P⁻¹} ≤
// sqrt(Ridge())·|W0|_F, the last term of the theory β.
func (f *Fit) Ridge() float64 {
	f.live()
	m := 0.0
	for _, b := range f.blocks {
		m = max(m, b.s)
	}
	return f.Lambda * m
}

// MinSemiAxis returns a lower bound on the smallest semi-axis of the unit
// ellipsoid {δ : |δ|_P ≤ 1}, 1/sqrt(max_b s_b tr(V_b + λI)) ≤
// 1/sqrt(λ_max(P)), where V_b + λI is block b: every point of the boundary
// of {δ : |δ|_P ≤ β} lies at least β·MinSemiAxis() from the centre.
func (f *Fit) MinSemiAxis() float64 {
	f.live()
	var worst float64
	for _, b := range f.blocks {
		var tr float64 // tr(UᵀU) = |U|_F²
		for _, x := range b.c.upper() {
			tr += x * x
		}
		worst = max(worst, b.s*tr)
	}
	return 1 / math.Sqrt(worst)
}

// BetaTheory is the radius of the confidence set of the paper's Theorem
// "concentration" (with the 2 of eq. conf-set), as its proof establishes it:
//
//	β = sqrt(2 (√B_psi + √B_c)² / α₁) · sqrt(log(2 det(V/λ + I)^{1/2} / δ)) + sqrt(ridge)·B_star
//
// given logDet = log det(V/λ + I) and ridge = Fit.Ridge() (λ for SM and
// MLE, λ/σ² for the LDS fit). The paper prints 2(B_psi + B_c)/α₁² under
// the first root. Its proof bounds |x|_{(α₁A + λI)⁻¹} by α₁⁻¹ |x|_{(A +
// λI/α₁)⁻¹} (eq. step2), where the bound is α₁^{−1/2}; and for the sum of
// the dependent subgaussians ξ and C W0 phi its Lemma "sum-subg" (Hölder
// with p = 1 + σ₂/σ₁) gives the variance proxy (σ₁ + σ₂)², not σ₁² + σ₂².
// Both forms agree when B_c = 0 and α₁ = 1; for α₁ > 1 (the Gaussian family
// with σ < 1: α₁ = σ⁻⁴) the printed radius is too small to hold.
// Preconditions: 0 < δ < 1, α₁ > 0 (α₁ = 0 gives +Inf).
func BetaTheory(logDet, delta, ridge, bPsi, bC, alpha1, bStar float64) float64 {
	b := math.Sqrt(bPsi) + math.Sqrt(bC)
	return math.Sqrt(2*b*b/alpha1)*math.Sqrt(math.Log(2)+logDet/2-math.Log(delta)) +
		math.Sqrt(ridge)*bStar
}

// Constants are the scale constants of the paper's Assumption "bounds"
// that the theory β needs, in the units of an estimator's Fit: given the
// past, the noise Δ_t = ξ(s'_t) + C(s'_t) W0 phi_t of the estimating
// equation is B_psi-subgaussian (its part C W0 phi is B_c-subgaussian), and
// the curvature obeys C(s') ⪰ α₁ I.
type Constants struct{ BPsi, BC, Alpha1 float64 }

// GaussianSM returns the constants of score matching in the Gaussian family
// s' = W phi + N(0, σ² I): psi(s') = s'/σ² gives C = σ⁻⁴ I and
// Δ_t = −ε_t/σ⁴ ~ N(0, σ⁻⁶ I), so (B_psi, B_c, α₁) = (σ⁻⁶, 0, σ⁻⁴), the
// paper's values for the nonLDS.
func GaussianSM(sigma float64) Constants {
	s2 := sigma * sigma
	return Constants{BPsi: 1 / (s2 * s2 * s2), BC: 0, Alpha1: 1 / (s2 * s2)}
}

// GaussianLS returns the constants of the likelihood-scale fits of the same
// family, whose precision is G/σ² plus a ridge: the MLE (the score
// psi − E psi = ε/σ² ~ N(0, σ⁻² I), curvature Var[psi] = σ⁻² I) and the LDS
// fit of FitNoise with noise σ. Both give (σ⁻², 0, σ⁻²), so β =
// sqrt(2 log(2 det(V/λ + I)^{1/2}/δ)) + sqrt(ridge)·B_star, the radius of
// Abbasi-Yadkori et al. (2011) for ridge regression.
func GaussianLS(sigma float64) Constants {
	s2 := sigma * sigma
	return Constants{BPsi: 1 / s2, BC: 0, Alpha1: 1 / s2}
}

// BetaPractical is the scaled radius c · sqrt(log det(V/λ + I) + 2 log(1/δ)).
func BetaPractical(logDet, delta, scale float64) float64 {
	return scale * math.Sqrt(logDet+2*math.Log(1/delta))
}
