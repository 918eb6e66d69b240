package estimator

import (
	"math"
	"sync"

	"github.com/smrl-dev/smrl/internal/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// The block preconditioner of KernelSM.
//
// Let μ_1 ≥ … ≥ μ_m be the eigenvalues of Σ_t C_t = ΓᵀΓ with eigenvectors
// Q_C = [Q_1 Q_2] (Q_1 the r leading ones) and h_ti = Q_Cᵀ g_ti. In the
// basis Q_C ⊗ I, V = Σ_{t,i} (h_ti h_tiᵀ) ⊗ (phi_t phi_tᵀ) splits into
// blocks [V_11 X; Xᵀ Y] along Q_1 and Q_2. Since C_t ≼ … and
// phi_t phi_tᵀ ≼ φ² I with φ² = max_t |phi_t|²,
//
//	Y = Σ_t (Q_2ᵀ C_t Q_2) ⊗ phi_t phi_tᵀ ≼ diag(μ_{r+1}, …, μ_m) ⊗ φ² I,  so |Y| ≤ φ² μ_{r+1}.
//
// The preconditioner is P = blockdiag(V_11 + λI, T) with T the Jacobi
// diagonal of the Kronecker basis (prepare) on Q_2 ⊗ Q_G, λI ≼ T ≼ (λ +
// φ² μ_{r+1}) I. Choose r, the retained rank, as the least with
// φ² μ_{r+1} ≤ δ² λ. Then, with B = V_11 + λI and X = A_1ᵀ A_2 (A_1, A_2
// the rows h_ti,1 ⊗ phi_t and h_ti,2 ⊗ phi_t), |B^{-1/2} A_1ᵀ| ≤ 1 and
// |A_2| = |Y|^{1/2} ≤ δ √λ, so
//
//	P^{-1/2} (V + λI) P^{-1/2} = [I F; Fᵀ S],  |F| ≤ δ,  spec(S) ⊂ [1/(1+δ²), 1+δ²],
//
// and every eigenvalue of the preconditioned system lies in
// [1/(1+δ²) − δ, 1 + δ + δ²]: at δ = blockDelta = 0.1, a condition number
// below 1.25 and a CG error falling by at least 0.056 per iteration,
// whatever λ, n and the spread of V's spectrum. The directions Q_2 are the
// ones along which V is ≈ 0 (Gaussian-kernel derivatives on data of a
// bounded range have a fast-falling spectrum: at m = 100, σ = 0.8 on data
// in about [−2.5, 3.5], 14 of the 100 eigenvalues of ΓᵀΓ exceed 1e-14 μ_1):
// there (V + λI)⁻¹ ≈ 1/λ, and V_11 is small, (r·d_phi)².
//
// Conjugate gradients still run on the whole (V + λI) w = rhs with the
// matrix-free product, to the same relative residual: the rank only
// decides how fast they get there, never the answer. When the rule asks
// for a rank that does not pay (r·d_phi above blockMaxOrder, or a set-up
// of r²·d_phi²·n·d flops above blockMaxCost products: in d ≥ 2 the
// spectrum falls slowly, 61 of 100 eigenvalues above 1e-8 μ_1 at d = 2)
// there is no block and Jacobi alone preconditions, as without it.
const (
	blockDelta    = 0.1
	blockMaxOrder = 2048 // r·d_phi: V_11 and its factor are 2·order² floats (64 MB at 2048)
	blockChunk    = 512  // columns (transitions × d) of one rank-k update of V_11
	blockMaxCost  = 64   // products: the most a block's set-up may cost
	// blockJacobiShare: Solve runs Jacobi alone for blockCost/blockJacobiShare
	// iterations before it forms a block (kernelsm.go).
	blockJacobiShare = 4
)

// kernelBlock is V_11 of the leading r directions and the factor of its
// leading fr·d_phi rows and columns plus λI: V_11 of a rank below r, the
// same bits as if formed alone (each element of V_11 is one sum over the
// transitions in an order that does not depend on r).
type kernelBlock struct {
	r      int       // rank formed (0: none)
	v      []float64 // V_11, (r·d_phi)², upper triangle
	fr     int       // rank of the factor (0: none)
	chol   []float64 // Cholesky factor U of V_11[:fr·d_phi, :fr·d_phi] + λI (upper)
	lambda float64
	xt     [2][]float64
}

// blockRank returns the least r with φ² μ_{r+1} ≤ δ² λ (μ descending,
// μ_{m+1} = 0), or 0 (no block) when that r is too large to pay: r·d_phi
// above blockMaxOrder or a set-up above blockMaxCost products.
func (e *KernelSM) blockRank(lambda float64) int {
	r := 0
	for r < e.m && e.phiMax2*e.mu[r] > blockDelta*blockDelta*lambda {
		r++
	}
	if e.noBlock || r*e.dphi > blockMaxOrder || e.blockCost(r) > blockMaxCost {
		return 0
	}
	return r
}

// blockCost is the set-up of a block of rank r, r²·d_phi²·n·d flops, in
// units of one product V·w, 4·n·m·(d_phi + d) flops.
func (e *KernelSM) blockCost(r int) float64 {
	return float64(r*r*e.dphi*e.dphi*e.d) / float64(4*e.m*(e.dphi+e.d))
}

// formBlock forms V_11 = Σ_{t,i} (h_ti,1 ⊗ phi_t)(h_ti,1 ⊗ phi_t)ᵀ for the
// r leading directions: rank-blockChunk updates of its upper triangle by
// the packed product, r²·d_phi²·n·d flops. With two workers the rows are
// split where the triangle's area halves; each element is the same sum in
// the same order either way, so its bits do not depend on Workers.
func (e *KernelSM) formBlock(r int) {
	b := &e.blk
	N := r * e.dphi
	b.r, b.fr = r, 0
	if cap(b.v) < N*N {
		b.v = make([]float64, N*N)
	}
	b.v = b.v[:N*N]
	clear(b.v)
	nd := e.n * e.d
	h := make([]float64, nd*r) // H = Γ Q_1
	linalg.Mul1(false, false, nd, r, e.m, 1, e.gam, e.m, e.qc, e.m, 0, h, r)
	if e.Workers < 2 {
		e.formRows(h, r, 0, N, &b.xt[0])
		return
	}
	split := int(float64(N) * (1 - 1/math.Sqrt2))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.formRows(h, r, 0, split, &b.xt[0]) }()
	e.formRows(h, r, split, N, &b.xt[1])
	wg.Wait()
}

// formRows adds rows [a0, a1) of V_11's upper triangle: for each chunk of
// blockChunk rows p = (t, i) of H, xt (rows (k, j) ≥ a0 of the chunk's
// columns, xt[(k·d_phi+j−a0)·blockChunk + c] = H_pk phi_tj) times its
// transpose.
func (e *KernelSM) formRows(h []float64, r, a0, a1 int, buf *[]float64) {
	N, dp, d := r*e.dphi, e.dphi, e.d
	nd := e.n * d
	need := (N - a0 + r + dp) * blockChunk
	if len(*buf) < need {
		*buf = make([]float64, need)
	}
	xt := (*buf)[:(N-a0)*blockChunk]
	// The chunk's H and Φ transposed (r × chunk, d_phi × chunk), so that a
	// row (k, j) of xt is the product of two contiguous rows.
	ht := (*buf)[(N-a0)*blockChunk : (N-a0+r)*blockChunk]
	pt := (*buf)[(N-a0+r)*blockChunk : need]
	for p0 := 0; p0 < nd; p0 += blockChunk {
		cb := min(blockChunk, nd-p0)
		for c := range cb {
			p := p0 + c
			for k, v := range h[p*r : (p+1)*r] {
				ht[k*blockChunk+c] = v
			}
			for j, v := range e.phi[(p/d)*dp : (p/d+1)*dp] {
				pt[j*blockChunk+c] = v
			}
		}
		for row := a0; row < N; row++ {
			k, j := row/dp, row%dp
			x := xt[(row-a0)*blockChunk : (row-a0)*blockChunk+cb]
			hk, pj := ht[k*blockChunk:k*blockChunk+cb], pt[j*blockChunk:j*blockChunk+cb]
			for c := range x {
				x[c] = hk[c] * pj[c]
			}
		}
		linalg.MulUpperABt1(a1-a0, N-a0, cb, 1, xt, blockChunk, xt, blockChunk, e.blk.v[a0*N+a0:], N)
	}
}

// factorBlock makes chol the Cholesky factor of the rank-r V_11 + λI (r
// ≤ the rank formed); false when it is not positive definite in floating
// point (then the caller runs without the block).
func (e *KernelSM) factorBlock(r int, lambda float64) bool {
	b := &e.blk
	if b.fr == r && b.lambda == lambda {
		return true
	}
	N, ld := r*e.dphi, b.r*e.dphi
	if cap(b.chol) < N*N {
		b.chol = make([]float64, N*N)
	}
	b.chol = b.chol[:N*N]
	for i := range N {
		copy(b.chol[i*N+i:(i+1)*N], b.v[i*ld+i:i*ld+N])
		b.chol[i*N+i] += lambda
	}
	b.fr, b.lambda = 0, lambda
	if _, ok := lapack64.Potrf(blas64.Symmetric{N: N, Stride: N, Data: b.chol, Uplo: blas.Upper}); !ok {
		return false
	}
	b.fr = r
	return true
}

// solveBlock overwrites x (fr·d_phi) with the factored (V_11 + λI)⁻¹ x by
// the two triangular solves of UᵀU.
func (e *KernelSM) solveBlock(x []float64) {
	N := e.blk.fr * e.dphi
	u := blas64.Triangular{N: N, Stride: N, Data: e.blk.chol, Uplo: blas.Upper, Diag: blas.NonUnit}
	v := blas64.Vector{N: N, Inc: 1, Data: x}
	blas64.Trsv(blas.Trans, u, v)
	blas64.Trsv(blas.NoTrans, u, v)
}
