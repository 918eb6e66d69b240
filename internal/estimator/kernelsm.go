package estimator

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// KernelSM is score matching for the kernel family (expfam.Kernel) at the
// size where V cannot be formed: m centres and d_phi features give
// V = Σ_t C_t ⊗ phi_t phi_tᵀ of (m·d_phi)² entries (10⁸ floats, 800 MB, at
// m = d_phi = 100). It keeps the per-transition terms instead,
//
//	Φ  (n×d_phi)   the features phi_t,
//	Γ  (n×d·m)     row t = [g_t1, …, g_td], g_ti = ∂_i psi(s'_t) ∈ R^m,
//	Ξ  (n×m)       ξ(s'_t),
//
// so memory is n(d_phi + (d+1)m) floats (n·d_phi more for Φ transposed,
// built at the first product), and solves (V + λI) vec(W) = −b,
// b = vec(Ξᵀ Φ), by preconditioned conjugate gradients with the matrix-free
// product
//
//	V vec(W) = vec( Σ_t (C_t u_t) phi_tᵀ ),  u_t = W phi_t,  C_t u = Σ_i g_ti (g_tiᵀ u):
//	U = Φ Wᵀ (one GEMM, n·m·d_phi), Y_t = Σ_i g_ti (g_ti·U_t) (n·m·d), out = Yᵀ Φ (one GEMM).
//
// One product costs 4·n·m·d_phi + 4·n·m·d flops. The preconditioner is
// Jacobi in the eigenbasis of the Kronecker approximation
// V ≈ (1/n) (Σ_t C_t) ⊗ (Σ_t phi_t phi_tᵀ) (see prepare): P⁻¹ costs four
// GEMMs of m²·d_phi + m·d_phi² after a set-up of O(m³ + d_phi³) and
// 2·n·m·(m·d + d_phi) + 2·n·d_phi² flops; then, when it pays, an exact
// block on the leading directions of Σ_t C_t (kernelsm_block.go: a set-up
// of r(r+1)·d_phi(d_phi+1)·n/2 flops for rank r, and a bound on the
// preconditioned spectrum when r meets its rule). Alone, Jacobi needed
// 1233, 559, 215 and 81 iterations at m = d_phi = 100, n = 10⁴, d = 1,
// λ = 0.1, 1, 10, 100; with the block, 6 or 7 (docs/kernel-families.md).
type KernelSM struct {
	fam        *expfam.Kernel
	m, d, dphi int
	n          int
	phi, gam   []float64
	xi         []float64
	jac, xibuf []float64
	Workers    int // goroutines of the product (1 or 2; the result is the same)
	part       []float64
	Tol        float64 // relative residual |r|/|b| at which CG stops (default 1e-10)
	MaxIter    int     // CG iterations before ErrNotConverged (default 20·√(m·d_phi) + 200)
	u, y       []float64
	lastIter   int
	lastRelRes float64
	qc, qg     []float64 // eigenvectors of Σ C_t (m×m) and Σ phi phiᵀ (d_phi×d_phi), columns
	diag       []float64 // V's diagonal in the basis Q_C ⊗ Q_G (m×d_phi)
	preReady   bool
	tmp1, tmp2 []float64
	bvec       []float64
	bReady     bool
	mu         []float64 // eigenvalues of Σ C_t, descending (qc's columns in that order)
	phiMax2    float64   // max_t |phi_t|²
	blk        kernelBlock
	useBlock   bool      // precondition with blk (kernelsm_block.go) for this Solve
	uy         []float64 // MulV's U and Y rows of one block per chunk
	phiT       []float64 // Φ transposed per chunk of MulV (transposePhi), built at its first call
	noBlock    bool      // Jacobi alone: the benchmarks' comparison
}

// ErrNotConverged is returned when conjugate gradients stop at MaxIter
// before the residual reaches Tol.
var ErrNotConverged = errors.New("conjugate gradients did not converge")

// NewKernelSM returns an empty accumulator for the kernel family f and
// d_phi features.
func NewKernelSM(f *expfam.Kernel, dphi int) *KernelSM {
	return &KernelSM{fam: f, m: f.M, d: f.D, dphi: dphi,
		jac: make([]float64, f.D*f.M), xibuf: make([]float64, f.M), Tol: 1e-10}
}

// N is the number of transitions added.
func (e *KernelSM) N() int { return e.n }

// Family is the kernel family fitted.
func (e *KernelSM) Family() *expfam.Kernel { return e.fam }

// Add adds the transition (phi, next): its features and its score terms.
func (e *KernelSM) Add(phi, next []float64) {
	e.fam.ScoreTerms(next, e.jac, e.xibuf)
	e.phi = append(e.phi, phi[:e.dphi]...)
	e.gam = append(e.gam, e.jac...)
	e.xi = append(e.xi, e.xibuf...)
	e.n++
	e.preReady, e.bReady = false, false
}

// TraceV returns tr V = Σ_t |Γ_t|²·|phi_t|² (Γ_t the d×m derivatives of
// the statistics at s'_t, as Add stored them) without forming V.
func (e *KernelSM) TraceV() float64 {
	dm := e.d * e.m
	var tr float64
	for t := range e.n {
		var pp, gg float64
		for _, p := range e.phi[t*e.dphi : (t+1)*e.dphi] {
			pp += p * p
		}
		for _, v := range e.gam[t*dm : (t+1)*dm] {
			gg += v * v
		}
		tr += gg * pp
	}
	return tr
}

// Subset returns an accumulator holding the transitions [lo, hi) of e
// (sharing their storage, read only): a fold of cross-validation.
func (e *KernelSM) Subset(lo, hi int) *KernelSM {
	s := NewKernelSM(e.fam, e.dphi)
	s.Tol, s.MaxIter, s.Workers = e.Tol, e.MaxIter, e.Workers
	s.phi = e.phi[lo*e.dphi : hi*e.dphi : hi*e.dphi]
	s.gam = e.gam[lo*e.d*e.m : hi*e.d*e.m : hi*e.d*e.m]
	s.xi = e.xi[lo*e.m : hi*e.m : hi*e.m]
	s.n = hi - lo
	return s
}

// Without returns an accumulator holding every transition of e but [lo, hi)
// (a copy): the training set of a fold.
func (e *KernelSM) Without(lo, hi int) *KernelSM {
	s := NewKernelSM(e.fam, e.dphi)
	s.Tol, s.MaxIter, s.Workers = e.Tol, e.MaxIter, e.Workers
	cut := func(a []float64, w int) []float64 {
		out := make([]float64, 0, (e.n-(hi-lo))*w)
		out = append(out, a[:lo*w]...)
		return append(out, a[hi*w:]...)
	}
	s.phi, s.gam, s.xi = cut(e.phi, e.dphi), cut(e.gam, e.d*e.m), cut(e.xi, e.m)
	s.n = e.n - (hi - lo)
	return s
}

func gemm(tA, tB blas.Transpose, r, c, k int, a []float64, lda int, b []float64, ldb int, beta float64, out []float64, ldc int) {
	blas64.Gemm(tA, tB, 1,
		blas64.General{Rows: rowsOf(tA, r, k), Cols: colsOf(tA, r, k), Stride: lda, Data: a},
		blas64.General{Rows: rowsOf(tB, k, c), Cols: colsOf(tB, k, c), Stride: ldb, Data: b},
		beta, blas64.General{Rows: r, Cols: c, Stride: ldc, Data: out})
}

// rowsOf and colsOf are the stored shape of an operand that is r×c after
// the transpose t.
func rowsOf(t blas.Transpose, r, c int) int {
	if t == blas.Trans {
		return c
	}
	return r
}
func colsOf(t blas.Transpose, r, c int) int {
	if t == blas.Trans {
		return r
	}
	return c
}

// mulChunks is how many row blocks of the transitions MulV splits its
// work into: a constant, so the sums (and the bits of Ŵ) are the same for
// any Workers; the chunks run concurrently when Workers ≥ 2.
const mulChunks = 2

// MulV writes out = V vec(w) (both m·d_phi, row-major W) without forming V.
func (e *KernelSM) MulV(w, out []float64) {
	n, m, dp := e.n, e.m, e.dphi
	if n == 0 {
		clear(out[:m*dp])
		return
	}
	if len(e.uy) < 2*mulChunks*mulBlock*m {
		e.uy = make([]float64, 2*mulChunks*mulBlock*m) // each chunk's U and Y of one block
	}
	if len(e.part) < 2*mulChunks*m*dp {
		e.part = make([]float64, 2*mulChunks*m*dp) // each chunk's sum and its transpose
	}
	if len(e.phiT) != n*dp {
		e.transposePhi()
	}
	if e.Workers >= 2 {
		e.mulChunksConcurrently(w) // its WaitGroup escapes on this branch only
	} else {
		for c := range mulChunks {
			e.mulChunk(c, w)
		}
	}
	copy(out, e.part[:m*dp])
	for c := 1; c < mulChunks; c++ {
		for i, v := range e.part[2*c*m*dp : (2*c+1)*m*dp] {
			out[i] += v
		}
	}
}

// mulChunk runs mulRows on chunk c of the transitions.
func (e *KernelSM) mulChunk(c int, w []float64) {
	n, m, dp := e.n, e.m, e.dphi
	lo, hi := c*n/mulChunks, (c+1)*n/mulChunks
	e.mulRows(lo, hi, w, e.part[2*c*m*dp:(2*c+2)*m*dp], e.uy[2*c*mulBlock*m:(2*c+2)*mulBlock*m])
}

// mulChunksConcurrently runs every chunk but the last on a goroutine of
// its own and the last on this one.
func (e *KernelSM) mulChunksConcurrently(w []float64) {
	var wg sync.WaitGroup
	for c := range mulChunks - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); e.mulChunk(c, w) }()
	}
	e.mulChunk(mulChunks-1, w)
	wg.Wait()
}

// transposePhi fills phiT: for each of MulV's chunks of rows [lo, hi),
// Φ's rows transposed, d_phi × (hi − lo) at offset lo·d_phi, so that the
// product's second GEMM reads both its operands along their rows.
func (e *KernelSM) transposePhi() {
	n, dp := e.n, e.dphi
	e.phiT = make([]float64, n*dp)
	for c := range mulChunks {
		lo, hi := c*n/mulChunks, (c+1)*n/mulChunks
		pt := e.phiT[lo*dp : hi*dp]
		for t := lo; t < hi; t++ {
			for j, v := range e.phi[t*dp : (t+1)*dp] {
				pt[j*(hi-lo)+t-lo] = v
			}
		}
	}
}

// mulBlock is the number of transitions whose U and Y rows mulRows keeps
// at once (L2-sized: 200 KB each at m = 100), so that they are not
// streamed through memory between the product's three steps.
const mulBlock = 256

// mulRows writes part[:m·d_phi] = Σ_{t in [lo, hi)} (C_t W phi_t) phi_tᵀ,
// in blocks of mulBlock transitions: U = Φ Wᵀ, y_t = C_t u_t, and Φᵀ Y
// (from phiT) summed into part[m·d_phi:], transposed into part[:m·d_phi]
// at the end. uy holds U and Y of one block.
func (e *KernelSM) mulRows(lo, hi int, w, part, uy []float64) {
	m, dp := e.m, e.dphi
	r := hi - lo
	if r == 0 {
		clear(part)
		return
	}
	pt := part[m*dp : 2*m*dp]
	u, y := uy[:mulBlock*m], uy[mulBlock*m:2*mulBlock*m]
	for b0 := 0; b0 < r; b0 += mulBlock {
		nb := min(mulBlock, r-b0)
		t0 := lo + b0
		linalg.Mul1(false, true, nb, m, dp, 1, e.phi[t0*dp:(t0+nb)*dp], dp, w, dp, 0, u, m) // U = Φ Wᵀ
		e.applyC(t0, nb, u, y)
		beta := 1.0
		if b0 == 0 {
			beta = 0
		}
		linalg.Mul1(false, false, dp, m, nb, 1, e.phiT[lo*dp+b0:], r, y, m, beta, pt, m) // Φᵀ Y
	}
	for k := range m {
		for j := range dp {
			part[k*dp+j] = pt[j*m+k]
		}
	}
}

// applyC writes y_t = C_t u_t = Σ_i g_ti (g_ti · u_t) for the nb
// transitions from t0 (rows of u and y).
func (e *KernelSM) applyC(t0, nb int, u, y []float64) {
	m, d := e.m, e.d
	for t := range nb {
		ut, yt := u[t*m:(t+1)*m], y[t*m:(t+1)*m]
		g := e.gam[(t0+t)*d*m : (t0+t+1)*d*m]
		for i := range d {
			gi := g[i*m : (i+1)*m]
			s := expfam.Dot4(gi, ut) // four partial sums: not one chain of m dependent additions
			if i == 0 {
				for k, v := range gi {
					yt[k] = s * v
				}
				continue
			}
			for k, v := range gi {
				yt[k] += s * v
			}
		}
	}
}

// B returns b = vec(Σ_t ξ_t phi_tᵀ) = vec(Ξᵀ Φ).
func (e *KernelSM) B() []float64 {
	if !e.bReady {
		e.bvec = make([]float64, e.m*e.dphi)
		if e.n > 0 {
			gemm(blas.Trans, blas.NoTrans, e.m, e.dphi, e.n, e.xi, e.m, e.phi, e.dphi, 0, e.bvec, e.dphi)
		}
		e.bReady = true
	}
	return e.bvec
}

// DenseV forms V (m·d_phi square, row-major) for tests on small sizes.
func (e *KernelSM) DenseV() []float64 {
	dd := e.m * e.dphi
	v := make([]float64, dd*dd)
	for t := range e.n {
		phi := e.phi[t*e.dphi : (t+1)*e.dphi]
		g := e.gam[t*e.d*e.m : (t+1)*e.d*e.m]
		for k := range e.m {
			for l := range e.m {
				var c float64
				for i := range e.d {
					c += g[i*e.m+k] * g[i*e.m+l]
				}
				for j, pj := range phi {
					row := v[(k*e.dphi+j)*dd+l*e.dphi:]
					for i, pi := range phi {
						row[i] += c * pj * pi
					}
				}
			}
		}
	}
	return v
}

// symEigen returns the eigenvalues and the eigenvectors (columns,
// row-major) of the symmetric s×s matrix a.
func symEigen(a []float64, s int) (vals, vecs []float64, err error) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(s, a), true) {
		return nil, nil, fmt.Errorf("%w: eigendecomposition of the preconditioner failed", ErrSingular)
	}
	var q mat.Dense
	eig.VectorsTo(&q)
	return eig.Values(nil), append([]float64(nil), q.RawMatrix().Data...), nil
}

// prepare computes the preconditioner: the eigenvectors Q_C of Σ_t C_t =
// Γᵀ Γ (Γ as (n·d)×m) and Q_G of Σ_t phi_t phi_tᵀ = Φᵀ Φ, and the exact
// diagonal of V in the basis Q_C ⊗ Q_G,
//
//	D_kj = Σ_t (q_kᵀ C_t q_k)(q'_jᵀ phi_t)² = Σ_t Σ_i (q_k·g_ti)² (q'_j·phi_t)²  = (Aᵀ B)_kj,
//
// A_tk = Σ_i (Γ Q_C)_{(t,i),k}², B_tj = (Φ Q_G)_tj²: three GEMMs of
// n·m·(m·d + d_phi) flops, about two CG iterations. The Kronecker
// approximation (1/n)(Σ C_t) ⊗ (Σ phi phiᵀ) has the same eigenbasis but
// diagonal λ_C,k λ_G,j / n, which ignores the dependence of C_t on phi_t
// (s' on s); the exact diagonal keeps it (Jacobi in that basis).
func (e *KernelSM) prepare() error {
	if e.preReady {
		return nil
	}
	n, m, dp, d := e.n, e.m, e.dphi, e.d
	cs := make([]float64, m*m)
	gemm(blas.Trans, blas.NoTrans, m, m, n*d, e.gam, m, e.gam, m, 0, cs, m)
	gs := make([]float64, dp*dp)
	gemm(blas.Trans, blas.NoTrans, dp, dp, n, e.phi, dp, e.phi, dp, 0, gs, dp)
	var err error
	if e.mu, e.qc, err = symEigen(cs, m); err != nil {
		return err
	}
	descending(e.mu, e.qc, m)
	e.phiMax2 = 0
	for t := range n {
		e.phiMax2 = max(e.phiMax2, expfam.Dot(e.phi[t*dp:(t+1)*dp], e.phi[t*dp:(t+1)*dp]))
	}
	e.blk.r, e.blk.fr = 0, 0
	if _, e.qg, err = symEigen(gs, dp); err != nil {
		return err
	}
	gq := make([]float64, n*d*m)
	gemm(blas.NoTrans, blas.NoTrans, n*d, m, m, e.gam, m, e.qc, m, 0, gq, m)
	a := make([]float64, n*m)
	for t := range n {
		for i := range d {
			for k, v := range gq[(t*d+i)*m : (t*d+i+1)*m] {
				a[t*m+k] += v * v
			}
		}
	}
	pq := make([]float64, n*dp)
	gemm(blas.NoTrans, blas.NoTrans, n, dp, dp, e.phi, dp, e.qg, dp, 0, pq, dp)
	for i, v := range pq {
		pq[i] = v * v
	}
	e.diag = make([]float64, m*dp)
	gemm(blas.Trans, blas.NoTrans, m, dp, n, a, m, pq, dp, 0, e.diag, dp)
	e.tmp1, e.tmp2 = make([]float64, m*dp), make([]float64, m*dp)
	e.preReady = true
	return nil
}

// descending reverses the order of the eigenvalues vals and of the
// columns of the s×s matrix vecs (row-major) in place: symEigen's
// ascending order becomes the leading directions first.
func descending(vals, vecs []float64, s int) {
	for i, j := 0, s-1; i < j; i, j = i+1, j-1 {
		vals[i], vals[j] = vals[j], vals[i]
		for row := range s {
			vecs[row*s+i], vecs[row*s+j] = vecs[row*s+j], vecs[row*s+i]
		}
	}
}

// precondition writes out = P⁻¹ r. Without the block, P = (Q_C ⊗ Q_G)(diag D
// + λI)(Q_C ⊗ Q_G)ᵀ: P⁻¹ vec(R) = vec(Q_C [(Q_Cᵀ R Q_G) ./ (D + λ)] Q_Gᵀ),
// four GEMMs of m²·d_phi + m·d_phi² flops. With it (useBlock, r leading
// directions of Q_C), the first r rows of R' = Q_Cᵀ R are solved by the
// factor of V_11 + λI (2·(r·d_phi)² flops) and the other m − r rows by
// the Jacobi diagonal as above.
func (e *KernelSM) precondition(lambda float64, r, out []float64) {
	m, dp := e.m, e.dphi
	gemm(blas.Trans, blas.NoTrans, m, dp, m, e.qc, m, r, dp, 0, e.tmp1, dp) // Q_Cᵀ R
	k0 := 0
	if e.useBlock {
		k0 = e.blk.fr
		e.solveBlock(e.tmp1[:k0*dp])
	}
	if rest := m - k0; rest > 0 {
		t1, t2 := e.tmp1[k0*dp:], e.tmp2[k0*dp:]
		gemm(blas.NoTrans, blas.NoTrans, rest, dp, dp, t1, dp, e.qg, dp, 0, t2, dp) // · Q_G
		for i, dv := range e.diag[k0*dp:] {
			t2[i] /= max(dv, 0) + lambda
		}
		gemm(blas.NoTrans, blas.Trans, rest, dp, dp, t2, dp, e.qg, dp, 0, t1, dp) // · Q_Gᵀ
	}
	gemm(blas.NoTrans, blas.NoTrans, m, dp, m, e.qc, m, e.tmp1, dp, 0, out, dp) // Q_C ·
}

// Solve returns x = (V + λI)⁻¹ rhs by preconditioned conjugate gradients
// from x0 (nil: 0), stopped at the relative residual Tol. λ must be > 0 (V
// has rank at most n·d). The preconditioner is the Kronecker-basis Jacobi
// diagonal (prepare), then, when blockRank asks for a block, the block of
// kernelsm_block.go: CG runs with Jacobi alone for the iterations
// switchAt gives, then forms (or reuses) and factors the block and
// restarts from the current x: the result depends on the data, λ, rhs
// and x0 alone. It fails with ErrNotConverged after MaxIter iterations.
func (e *KernelSM) Solve(lambda float64, rhs, x0 []float64) ([]float64, error) {
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return nil, fmt.Errorf("kernel score matching: lambda must be a finite number > 0, got %v", lambda)
	}
	if err := e.prepare(); err != nil {
		return nil, err
	}
	need, bounded := e.blockRank(lambda)
	e.useBlock = false
	switchAt := e.switchAt(need, bounded) // the iteration after which the block takes over (0: never)
	dd := e.m * e.dphi
	maxIter := e.MaxIter
	if maxIter <= 0 {
		maxIter = 20*int(math.Sqrt(float64(dd))) + 200
	}
	x := make([]float64, dd)
	r := make([]float64, dd)
	ap := make([]float64, dd)
	z := make([]float64, dd)
	if x0 != nil {
		copy(x, x0)
		e.MulV(x, ap)
		for i := range r {
			r[i] = rhs[i] - ap[i] - lambda*x[i]
		}
	} else {
		copy(r, rhs)
	}
	bn := math.Sqrt(expfam.Dot(rhs, rhs))
	if bn == 0 {
		return x, nil
	}
	if expfam.Dot(r, r) == 0 {
		// x0 solves the system exactly: a CG step would be α = 0/0.
		e.lastIter, e.lastRelRes = 0, 0
		return x, nil
	}
	e.precondition(lambda, r, z)
	p := append([]float64(nil), z...)
	rz := expfam.Dot(r, z)
	for it := 1; it <= maxIter; it++ {
		e.MulV(p, ap)
		for i, v := range p {
			ap[i] += lambda * v
		}
		alpha := rz / expfam.Dot(p, ap)
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * ap[i]
		}
		e.lastIter, e.lastRelRes = it, math.Sqrt(expfam.Dot(r, r))/bn
		if e.lastRelRes <= e.Tol {
			return x, nil
		}
		if math.IsNaN(e.lastRelRes) || math.IsInf(e.lastRelRes, 0) {
			// Nothing later can mend it: stop now, not after MaxIter.
			return x, fmt.Errorf("%w: relative residual %v at iteration %d (λ = %g: V + λI is too close to singular in float64)", ErrNotConverged, e.lastRelRes, it, lambda)
		}
		if it == switchAt {
			// Restart from x with the block preconditioner. A block formed
			// by an earlier Solve is reused (its leading part when larger),
			// but only from here: x does not depend on what came before.
			if e.blk.r < need {
				e.formBlock(need)
			}
			e.useBlock = e.factorBlock(need, lambda)
			e.precondition(lambda, r, z)
			copy(p, z)
			rz = expfam.Dot(r, z)
			continue
		}
		e.precondition(lambda, r, z)
		rz2 := expfam.Dot(r, z)
		beta := rz2 / rz
		rz = rz2
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	return x, fmt.Errorf("%w: relative residual %.3g after %d iterations (tolerance %.3g)", ErrNotConverged, e.lastRelRes, maxIter, e.Tol)
}

// Iterations returns the CG iterations and the relative residual of the
// last Solve.
func (e *KernelSM) Iterations() (int, float64) { return e.lastIter, e.lastRelRes }

// Fit returns Ŵ = −(V + λI)⁻¹ b (m×d_phi, row-major), starting CG at w0
// (nil: 0; a previous λ's solution is a good start).
func (e *KernelSM) Fit(lambda float64, w0 []float64) ([]float64, error) {
	if e.n == 0 {
		return nil, fmt.Errorf("kernel score matching: no transitions")
	}
	b := e.B()
	rhs := make([]float64, len(b))
	for i, v := range b {
		rhs[i] = -v
	}
	return e.Solve(lambda, rhs, w0)
}

// Loss returns the SM loss of W on the transitions held, Σ_t ½ vec(W)ᵀ V_t
// vec(W) + b_tᵀ vec(W) = Σ_t ½ Σ_i (g_ti·u_t)² + ξ_t·u_t, u_t = W phi_t:
// the held-out score of cross-validation (up to a constant free of W).
func (e *KernelSM) Loss(w []float64) float64 {
	n, m, d := e.n, e.m, e.d
	if n == 0 {
		return 0
	}
	if len(e.u) < n*m {
		e.u, e.y = make([]float64, n*m), make([]float64, n*m)
	}
	u := e.u[:n*m]
	gemm(blas.NoTrans, blas.Trans, n, m, e.dphi, e.phi, e.dphi, w, e.dphi, 0, u, m)
	var l float64
	for t := range n {
		ut := u[t*m : (t+1)*m]
		g := e.gam[t*d*m : (t+1)*d*m]
		for i := range d {
			s := expfam.Dot(g[i*m:(i+1)*m], ut)
			l += 0.5 * s * s
		}
		l += expfam.Dot(e.xi[t*m:(t+1)*m], ut)
	}
	return l
}
