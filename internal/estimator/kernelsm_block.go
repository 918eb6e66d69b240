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
// blocks [V_11 X; Xᵀ Y] along Q_1 and Q_2. Since phi_t phi_tᵀ ≼ φ² I with
// φ² = max_t |phi_t|² and Σ_t Q_2ᵀ C_t Q_2 = diag(μ_{r+1}, …, μ_m),
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
// below 1.25 and a CG error (energy norm) multiplied by at most 0.056 per
// iteration,
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
// of r(r+1)·d_phi(d_phi+1)·n/2 flops above blockMaxCost products: in
// d ≥ 2 the spectrum falls slowly, 61 of 100 eigenvalues above 1e-8 μ_1 at
// d = 2) the largest rank that pays is kept, without the bound.
const (
	blockDelta    = 0.1
	blockMaxOrder = 2048 // r·d_phi: V_11 and its factor are 2·order² floats (64 MB at 2048)
	blockChunk    = 512  // transitions of one rank-k update of V_11's distinct sums (at most)
	// blockBufFloats bounds that update's buffer (32 MB): below it a
	// chunk keeps blockChunk transitions (up to P + cols = 8192).
	blockBufFloats = 1 << 22
	blockCols      = 4096 // distinct sums (j, i) of one such update
	blockMaxCost   = 64   // products: the most a block's set-up may cost
	// blockMaxPivotRatio bounds max/min of the block factor's pivots: a
	// condition of V_11 + λI up to 1e14, about 2 of float64's 16 digits
	// left in its solves.
	blockMaxPivotRatio = 1e7
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
// μ_{m+1} = 0) and bounded = true when that block pays: r·d_phi at most
// blockMaxOrder and a set-up of at most blockMaxCost products. Otherwise
// it returns the largest rank that pays (the leading directions solved
// exactly, Jacobi for the rest, without the bound) and false; r = 0 when
// none does.
func (e *KernelSM) blockRank(lambda float64) (r int, bounded bool) {
	if e.noBlock {
		return 0, false
	}
	for r < e.m && e.phiMax2*e.mu[r] > blockDelta*blockDelta*lambda {
		r++
	}
	bounded = true
	for r > 0 && (r*e.dphi > blockMaxOrder || e.blockCost(r) > blockMaxCost) {
		r, bounded = r-1, false
	}
	return r, bounded
}

// switchAt is the CG iteration after which Solve forms a block of rank r
// (0: never): when the block comes with the bound, after a quarter of its
// set-up cost in products of Jacobi alone (an easy system, e.g. from a
// warm start, ends there and never pays for it); without the bound, after
// half of it (ski rental: at most three times the cost of the better
// choice, in the flop count; the set-up runs faster per flop than the
// product, and at d = 2, 3 waiting for all of it lost more on the hard
// systems, λ = 1e-4·n, 1e-3·n, than it saved on the easy ones).
func (e *KernelSM) switchAt(r int, bounded bool) int {
	if r == 0 {
		return 0
	}
	share := 2.0
	if bounded {
		share = 4
	}
	return max(1, int(math.Ceil(e.blockCost(r)/share)))
}

// blockCost is the set-up of a block of rank r, r(r+1)/2 · d_phi(d_phi+1)
// · n flops, in units of one product V·w, 4·n·m·(d_phi + d) flops.
func (e *KernelSM) blockCost(r int) float64 {
	return float64(r*(r+1)*e.dphi*(e.dphi+1)) / float64(8*e.m*(e.dphi+e.d))
}

// formBlock forms V_11 for the r leading directions. Its element
//
//	V_11[(k, j), (l, i)] = Σ_t w_t,kl phi_tj phi_ti,  w_t,kl = Σ_i' h_ti',k h_ti',l,
//
// is symmetric in (k, l) and in (j, i) apart, so only the r(r+1)/2 ×
// d_phi(d_phi+1)/2 sums M[kl, ji] (k ≤ l, j ≤ i) are made: one product
// M = Aᵀ B per blockChunk transitions, A_t = (w_t,kl) and B_t = (phi_tj
// phi_ti), by the packed kernel (r(r+1)·d_phi(d_phi+1)·n/2 flops, whatever
// d), and M is then spread over V_11's upper triangle. With two workers
// the columns of M are split between them; each element is the same sum
// in the same order either way, so its bits do not depend on Workers (nor
// on r: V_11 of a smaller rank is its leading part).
func (e *KernelSM) formBlock(r int) {
	b := &e.blk
	dp := e.dphi
	N, P, S := r*dp, r*(r+1)/2, dp*(dp+1)/2
	b.r, b.fr = r, 0
	if cap(b.v) < N*N {
		b.v = make([]float64, N*N)
	}
	b.v = b.v[:N*N]
	if len(e.phiT) != e.n*dp {
		e.transposePhi()
	}
	nd := e.n * e.d
	h := make([]float64, nd*r) // H = Γ Q_1
	linalg.Mul1(false, false, nd, r, e.m, 1, e.gam, e.m, e.qc, e.m, 0, h, r)
	ms := make([]float64, P*S)
	if e.Workers < 2 {
		e.formSums(h, r, 0, S, ms, &b.xt[0])
	} else {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); e.formSums(h, r, 0, S/2, ms, &b.xt[0]) }()
		e.formSums(h, r, S/2, S, ms, &b.xt[1])
		wg.Wait()
	}
	for k, a := 0, 0; k < r; k++ {
		for l := k; l < r; l, a = l+1, a+1 {
			row := ms[a*S : (a+1)*S]
			for j, c := 0, 0; j < dp; j++ {
				for i := j; i < dp; i, c = i+1, c+1 {
					b.v[(k*dp+j)*N+l*dp+i] = row[c]
					if k < l {
						b.v[(k*dp+i)*N+l*dp+j] = row[c]
					}
				}
			}
		}
	}
}

// formSums writes the columns [c0, c1) of M (P × S, P = r(r+1)/2 pairs
// k ≤ l, S = d_phi(d_phi+1)/2 pairs j ≤ i, both in row order), in groups
// of at most blockCols columns: for each of MulV's chunks and each
// sumChunk(P, cols) transitions in it, Aᵀ (P × chunk, from H) times B's
// columns (built transposed from phiT). Its buffer, (P + cols)·chunk
// floats, stays below blockBufFloats (32 MB) whatever r and d_phi.
func (e *KernelSM) formSums(h []float64, r, c0, c1 int, ms []float64, buf *[]float64) {
	P, S := r*(r+1)/2, e.dphi*(e.dphi+1)/2
	ch := sumChunk(P, min(blockCols, c1-c0))
	if need := (P + min(blockCols, c1-c0)) * ch; len(*buf) < need {
		*buf = make([]float64, need)
	}
	at, bt := (*buf)[:P*ch], (*buf)[P*ch:]
	pairs := make([][2]int, 0, S) // (j, i) of each column of M
	for j := range e.dphi {
		for i := j; i < e.dphi; i++ {
			pairs = append(pairs, [2]int{j, i})
		}
	}
	for g0 := c0; g0 < c1; g0 += blockCols {
		e.formColumns(h, r, pairs[g0:min(g0+blockCols, c1)], ms[g0:], S, at, bt, ch)
	}
}

// sumChunk is the transitions of one rank-k update of V_11's distinct
// sums: blockChunk, fewer when P pairs and cols columns would make the
// buffer (P + cols)·chunk exceed blockBufFloats (then at least 8). It
// depends on the sizes alone, so the sums' order, hence their bits, does
// not depend on the workers.
func sumChunk(P, cols int) int {
	return max(8, min(blockChunk, blockBufFloats/(P+cols)))
}

// formColumns writes the columns of M (row stride S, from ms) whose (j, i)
// are cols: Σ over the chunks of transitions of at (P × chunk, w_t,kl)
// times bt (len(cols) × chunk, phi_tj phi_ti) transposed.
func (e *KernelSM) formColumns(h []float64, r int, cols [][2]int, ms []float64, S int, at, bt []float64, ch int) {
	n, dp, d := e.n, e.dphi, e.d
	P := r * (r + 1) / 2
	beta := 0.0
	for c := range mulChunks {
		lo, hi := c*n/mulChunks, (c+1)*n/mulChunks
		pt := e.phiT[lo*dp : hi*dp]
		for t0 := lo; t0 < hi; t0 += ch {
			cb := min(ch, hi-t0)
			for k, a := 0, 0; k < r; k++ {
				for l := k; l < r; l, a = l+1, a+1 {
					w := at[a*ch : a*ch+cb]
					for q := range w {
						var s float64
						for i := range d {
							p := (t0+q)*d + i
							s += h[p*r+k] * h[p*r+l]
						}
						w[q] = s
					}
				}
			}
			for col, ji := range cols {
				x := bt[col*ch : col*ch+cb]
				pj, pi := pt[ji[0]*(hi-lo)+t0-lo:][:cb], pt[ji[1]*(hi-lo)+t0-lo:][:cb]
				for q := range x {
					x[q] = pj[q] * pi[q]
				}
			}
			linalg.Mul1(false, true, P, len(cols), cb, 1, at, ch, bt, ch, beta, ms, S)
			beta = 1
		}
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
	// A factor whose pivots span more than blockMaxPivotRatio solves with
	// V_11 + λI, whose condition is their ratio squared, to no digits
	// (λ far below V_11's scale): CG goes on with Jacobi alone.
	lo, hi := math.Inf(1), 0.0
	for i := range N {
		u := math.Abs(b.chol[i*N+i])
		lo, hi = min(lo, u), max(hi, u)
	}
	if !(lo >= hi/blockMaxPivotRatio) {
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

// KernelSMFloats bounds the float64s of KernelSM's largest matrices for m
// centres and d_phi features, beside its per-transition terms: the
// Kronecker preconditioner's eigenbases, d_phi² + m², and the block
// preconditioner's V_11 with its factor, 2·(r·d_phi)² at r ≤ m and r·d_phi
// ≤ blockMaxOrder, and the buffers of its distinct sums, blockBufFloats
// per worker (a memory bound for the config layer's check).
func KernelSMFloats(m, dphi int) float64 {
	order := float64(min(m*dphi, blockMaxOrder))
	return float64(dphi*dphi+m*m) + 2*order*order + mulChunks*blockBufFloats
}
