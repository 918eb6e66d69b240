package estimator

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Data yields transition t (0 <= t < n) of a data set: its features
// phi = phi(s_t, a_t) and next state s'_t. The slices are read only.
type Data func(t int) (phi, next []float64)

// ErrHC1 is returned by the sandwiches with SEOptions.HC1 when there are
// no more transitions than parameters: n/(n − d) is then not a factor.
var ErrHC1 = errors.New("HC1 needs more transitions than parameters")

// SEOptions selects the variance estimate of Sandwich.
type SEOptions struct {
	// HC1 multiplies the sandwich by n/(n − d), d = d_psi·d_phi, the
	// small-sample factor of MacKinnon and White's HC1; without it the SM
	// sandwich at λ = 0 is exactly their HC0.
	HC1 bool
}

// Sandwich returns the sandwich (Godambe) variances of the entries of
// vec(Ŵ) of the score-matching fit f of the n transitions data:
//
//	Cov(ŵ) = A⁻¹ (Σ_t g_t g_tᵀ) A⁻¹,  A = V_n + λI,  g_t = V_t ŵ + b_t = r_t ⊗ phi_t,
//
// with r_t = C(s'_t) Ŵ phi_t + ξ(s'_t) the transition's residual of the
// estimating equation (terms and residual: the same per-transition V_t, b_t
// as Add). Only the diagonal is returned (d_psi·d_phi, row-major like W):
// A is block diagonal (see Fit), so the variance of an entry needs only the
// diagonal block of Σ g gᵀ of its own block, which is accumulated with the
// structure of V (one d_phi×d_phi block per row of W for separable
// families, one (m_i·d_phi)² block per coordinate for Blocked ones). When
// every row shares one factorisation (constant C, the Gaussian family) the
// variance of entry (k, j) is Σ_t r_tk² (B⁻¹ phi_t)_j², B the shared block,
// computed as (R∘R)ᵀ (X∘X), X = Φ B⁻¹, by matrix products over chunks of
// 256 transitions. data must be the transitions that were
// added to e, and f e's fit of them; e itself is not changed.
func (e *SM) Sandwich(f *Fit, n int, data Data, opt SEOptions) ([]float64, error) {
	if f.DPsi != e.dpsi || f.DPhi != e.dphi {
		return nil, fmt.Errorf("score matching sandwich: fit of shape %d×%d for an estimator of %d×%d", f.DPsi, f.DPhi, e.dpsi, e.dphi)
	}
	if n != f.N {
		return nil, fmt.Errorf("score matching sandwich: %d transitions for a fit of %d", n, f.N)
	}
	eta := make([]float64, e.dpsi)
	r := make([]float64, e.dpsi)
	return sandwich(f, n, opt, func(t int) (rt, phi []float64) {
		phi, next := data(t)
		e.terms(next)
		linear(f.W, phi, eta)
		e.residual(eta, r)
		return r, phi
	})
}

// linear writes eta = W phi for a row-major W with len(phi) columns.
func linear(w, phi, eta []float64) {
	d := len(phi)
	for k := range eta {
		var s float64
		row := w[k*d : (k+1)*d]
		for j, p := range phi {
			s += row[j] * p
		}
		eta[k] = s
	}
}

// sandwich returns diag(A⁻¹ M A⁻¹) for the blocks of f (A = the blocks'
// V_b + λI, s_b = 1), M = Σ_t (r_t ⊗ phi_t)(r_t ⊗ phi_t)ᵀ with r_t =
// resid(t) (which also returns phi_t), the per-transition gradient of the
// objective at Ŵ.
func sandwich(f *Fit, n int, opt SEOptions, resid func(t int) (r, phi []float64)) ([]float64, error) {
	f.live()
	dphi := f.DPhi
	d := f.DPsi * dphi
	out := make([]float64, d)
	shared := len(f.blocks) > 1
	for _, b := range f.blocks {
		shared = shared && b.n == dphi && b.c == f.blocks[0].c && b.s == 1
	}
	if shared && dphi >= blockedMin {
		if err := sandwichSharedSolve(f, n, resid, out); err != nil {
			return nil, err
		}
	} else if shared {
		// One factorisation B for every row: (A⁻¹ g_t)_{k,j} = r_k (B⁻¹ phi)_j,
		// so var_{k,j} = Σ_t r_tk² (B⁻¹ phi_t)_j² = [(R∘R)ᵀ (X∘X)]_{kj} with
		// X = Φ B⁻¹, computed by matrix products over chunks of transitions.
		dpsi := f.DPsi
		var inv mat.SymDense
		if err := f.blocks[0].c.InverseTo(&inv); err != nil {
			return nil, fmt.Errorf("sandwich: %w", err)
		}
		binv := blas64.General{Rows: dphi, Cols: dphi, Stride: dphi, Data: make([]float64, dphi*dphi)}
		for i := range dphi {
			for j := range dphi {
				binv.Data[i*dphi+j] = inv.At(i, j)
			}
		}
		pm := make([]float64, seChunk*dphi)
		xm := make([]float64, seChunk*dphi)
		r2 := make([]float64, seChunk*dpsi)
		o := blas64.General{Rows: dpsi, Cols: dphi, Stride: dphi, Data: out}
		for t0 := 0; t0 < n; t0 += seChunk {
			m := min(seChunk, n-t0)
			for i := range m {
				r, phi := resid(t0 + i)
				copy(pm[i*dphi:(i+1)*dphi], phi)
				for k, rk := range r {
					r2[i*dpsi+k] = rk * rk
				}
			}
			p := blas64.General{Rows: m, Cols: dphi, Stride: dphi, Data: pm[:m*dphi]}
			x := blas64.General{Rows: m, Cols: dphi, Stride: dphi, Data: xm[:m*dphi]}
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, p, binv, 0, x)
			for i, v := range x.Data {
				x.Data[i] = v * v
			}
			rr := blas64.General{Rows: m, Cols: dpsi, Stride: dpsi, Data: r2[:m*dpsi]}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, rr, x, 1, o)
		}
	} else {
		meat := make([][]float64, len(f.blocks))
		widest := 0
		for i, b := range f.blocks {
			meat[i] = make([]float64, b.n*b.n)
			widest = max(widest, b.n/dphi)
		}
		rr := make([]float64, widest*widest)
		for t := range n {
			r, phi := resid(t)
			for i, b := range f.blocks {
				k0, m := b.off/dphi, b.n/dphi
				if m == 1 {
					if rk := r[k0]; rk != 0 {
						addOuter(meat[i], phi, rk*rk)
					}
					continue
				}
				rb := r[k0 : k0+m]
				for k, x := range rb {
					for l := k; l < m; l++ {
						rr[k*m+l] = x * rb[l]
					}
				}
				addUpperKron(meat[i], rr[:m*m], m, phi)
			}
		}
		for i, b := range f.blocks {
			if err := sandwichDiag(b, meat[i], out[b.off:b.off+b.n]); err != nil {
				return nil, err
			}
		}
	}
	if opt.HC1 {
		if n <= d {
			return nil, fmt.Errorf("sandwich: %d transitions, %d parameters: %w", n, d, ErrHC1)
		}
		c := float64(n) / float64(n-d)
		for i := range out {
			out[i] *= c
		}
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("sandwich: variance of entry %d is %v: %w", i, v, ErrSingular)
		}
	}
	return out, nil
}

// seChunk is the number of transitions of the sandwich's matrix products.
const seChunk = 256

// sandwichSharedSolve is the shared-factorisation sandwich of sandwich for
// d_phi ≥ blockedMin: the same sum [(R∘R)ᵀ (X∘X)]_{kj}, with Xᵀ = B⁻¹ Φᵀ
// of each chunk of transitions got by one solve with the chunk's features
// as right-hand sides (two triangular solves, level 3) instead of a
// product with B⁻¹: no d_phi×d_phi inverse is formed. It adds into out
// (d_psi×d_phi, zero on entry).
func sandwichSharedSolve(f *Fit, n int, resid func(t int) (r, phi []float64), out []float64) error {
	dphi, dpsi := f.DPhi, f.DPsi
	c := f.blocks[0].c
	xt := mat.NewDense(dphi, seChunk, nil) // Φᵀ, then B⁻¹ Φᵀ, then its squares
	raw := xt.RawMatrix()
	r2 := make([]float64, seChunk*dpsi)
	o := blas64.General{Rows: dpsi, Cols: dphi, Stride: dphi, Data: out}
	for t0 := 0; t0 < n; t0 += seChunk {
		m := min(seChunk, n-t0)
		for i := range m {
			r, phi := resid(t0 + i)
			for j, p := range phi {
				raw.Data[j*raw.Stride+i] = p
			}
			for k, rk := range r {
				r2[i*dpsi+k] = rk * rk
			}
		}
		view := xt.Slice(0, dphi, 0, m).(*mat.Dense)
		if err := c.SolveTo(view); err != nil {
			return fmt.Errorf("sandwich: %w", err)
		}
		for j := range dphi {
			row := raw.Data[j*raw.Stride : j*raw.Stride+m]
			for i, v := range row {
				row[i] = v * v
			}
		}
		rr := blas64.General{Rows: m, Cols: dpsi, Stride: dpsi, Data: r2[:m*dpsi]}
		x2 := blas64.General{Rows: dphi, Cols: m, Stride: raw.Stride, Data: raw.Data}
		blas64.Gemm(blas.Trans, blas.Trans, 1, rr, x2, 1, o)
	}
	return nil
}

// sandwichDiag writes diag(A⁻¹ M A⁻¹)/s² of block b (A = UᵀU its factorised
// matrix, M given by its upper triangle) into out.
func sandwichDiag(b fitBlock, m []float64, out []float64) error {
	nb := b.n
	var inv mat.SymDense
	if err := b.c.InverseTo(&inv); err != nil {
		return fmt.Errorf("sandwich: %w", err)
	}
	if nb >= blockedMin {
		return sandwichDiagLevel3(b, &inv, m, out)
	}
	ms := mat.NewSymDense(nb, nil)
	for i := range nb {
		for j := i; j < nb; j++ {
			ms.SetSym(i, j, m[i*nb+j])
		}
	}
	var t mat.Dense
	t.Mul(&inv, ms) // A⁻¹ M
	for i := range nb {
		var s float64
		for j := range nb {
			s += t.At(i, j) * inv.At(j, i)
		}
		out[i] = s / (b.s * b.s)
	}
	return nil
}

// sandwichDiagLevel3 is sandwichDiag above blockedMin rows: A⁻¹ and M
// filled out to full row-major matrices, T = A⁻¹ M by one matrix product
// (linalg's kernel through blas64.Gemm) and diag(T A⁻¹)_i = Σ_j T_ij
// (A⁻¹)_ij (A⁻¹ is symmetric), instead of gonum's element-by-element
// product of two symmetric matrices.
func sandwichDiagLevel3(b fitBlock, inv *mat.SymDense, m, out []float64) error {
	nb := b.n
	ri := inv.RawSymmetric()
	full := make([]float64, nb*nb)
	mf := make([]float64, nb*nb)
	for i := range nb {
		for j := i; j < nb; j++ {
			x := ri.Data[i*ri.Stride+j]
			full[i*nb+j], full[j*nb+i] = x, x
			y := m[i*nb+j]
			mf[i*nb+j], mf[j*nb+i] = y, y
		}
	}
	t := make([]float64, nb*nb)
	g := func(d []float64) blas64.General { return blas64.General{Rows: nb, Cols: nb, Stride: nb, Data: d} }
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, g(full), g(mf), 0, g(t))
	for i := range nb {
		var s float64
		ti, ai := t[i*nb:(i+1)*nb], full[i*nb:(i+1)*nb]
		for j, x := range ti {
			s += x * ai[j]
		}
		out[i] = s / (b.s * b.s)
	}
	return nil
}

// InverseDiag returns the diagonal of P⁻¹ = (V + λI)⁻¹ S⁻¹ (see Fit): for
// the MLE the inverse of the penalised observed Fisher information at Ŵ,
// its model-based variances of vec(Ŵ); for the LDS fit of FitNoise the
// homoscedastic variances σ_k² (G + λI)⁻¹ of ridge regression (exact at
// λ = 0).
func (f *Fit) InverseDiag() ([]float64, error) {
	f.live()
	out := make([]float64, f.DPsi*f.DPhi)
	for _, b := range f.blocks {
		var inv mat.SymDense
		if err := b.c.InverseTo(&inv); err != nil {
			return nil, fmt.Errorf("inverse information: %w", err)
		}
		for i := range b.n {
			out[b.off+i] = inv.At(i, i) / b.s
		}
	}
	return out, nil
}

// Sandwich returns the sandwich variances of vec(Ŵ) of the MLE fit f of
// the transitions added to e, H⁻¹ (Σ_t g_t g_tᵀ) H⁻¹ with H the penalised
// observed information of f and g_t = (psi(s'_t) − E_Ŵ[psi | s_t, a_t]) ⊗
// phi_t the transition's score: robust to a misspecified family, where the
// inverse information (Fit.InverseDiag) is not.
func (e *MLE) Sandwich(f *Fit, opt SEOptions) ([]float64, error) {
	n := e.N()
	if n != f.N || f.DPsi != e.dpsi || f.DPhi != e.dphi {
		return nil, fmt.Errorf("maximum likelihood sandwich: fit of %d transitions (%d×%d) for an estimator of %d (%d×%d)", f.N, f.DPsi, f.DPhi, n, e.dpsi, e.dphi)
	}
	widest := 0
	for _, m := range e.blocks {
		widest = max(widest, m)
	}
	eta := make([]float64, widest)
	mean := make([]float64, widest)
	cov := make([]float64, widest*widest)
	r := make([]float64, e.dpsi)
	dphi := e.dphi
	var fail error
	resid := func(t int) ([]float64, []float64) {
		phi := e.phi[t*dphi : (t+1)*dphi]
		psi := e.psi[t*e.dpsi : (t+1)*e.dpsi]
		row := 0
		for i, m := range e.blocks {
			linear(f.W[row*dphi:(row+m)*dphi], phi, eta[:m])
			if _, ok := e.dist.BlockCumulants(i, eta[:m], mean[:m], cov[:m*m]); !ok && fail == nil {
				fail = fmt.Errorf("maximum likelihood sandwich: coordinate %d is not normalisable at Ŵ (transition %d): %w", i, t, ErrSingular)
			}
			for k := range m {
				r[row+k] = psi[row+k] - mean[k]
			}
			row += m
		}
		return r, phi
	}
	v, err := sandwich(f, n, opt, resid)
	if fail != nil {
		return nil, fail
	}
	return v, err
}

// Sandwich returns White's heteroscedasticity-consistent variances of
// vec(Ŵ) of the least-squares fit f (from Fit, σ = 1) of the n transitions
// data: (G + λI)⁻¹ (Σ_t e_tk² phi_t phi_tᵀ) (G + λI)⁻¹ for row k, with
// residuals e_t = s'_t − Ŵ phi_t (HC0; HC1 with opt.HC1).
func (e *LDS) Sandwich(f *Fit, n int, data Data, opt SEOptions) ([]float64, error) {
	if n != f.N || f.DPsi != e.ds || f.DPhi != e.dphi {
		return nil, fmt.Errorf("least squares sandwich: fit of %d transitions (%d×%d) for %d (%d×%d)", f.N, f.DPsi, f.DPhi, n, e.ds, e.dphi)
	}
	for _, b := range f.blocks {
		if b.s != 1 {
			return nil, fmt.Errorf("least squares sandwich: needs a fit with σ = 1 (Fit, not FitNoise)")
		}
	}
	eta := make([]float64, e.ds)
	r := make([]float64, e.ds)
	return sandwich(f, n, opt, func(t int) ([]float64, []float64) {
		phi, next := data(t)
		linear(f.W, phi, eta)
		for k, x := range eta {
			r[k] = x - next[k]
		}
		return r, phi
	})
}
