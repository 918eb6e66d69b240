package estimator

import (
	"fmt"
	"math"
)

// LDS is ridge least squares of s' on phi:
//
//	Ŵ = argmin_W Σ_t |s'_t − W phi_t|² + λ |W|_F² = Y (G + λI)⁻¹,
//	G = Σ_t phi_t phi_tᵀ, Y = Σ_t s'_t phi_tᵀ,
//
// the paper's LDS baseline, s' = Ŵ phi(s, a) + N(0, σ² I). It is not safe
// for concurrent use.
type LDS struct {
	ds, dphi, n int
	g, y        []float64
	pend        pending    // at d_phi ≥ blockedMin: transitions not yet in G and Y
	pool        factorPool // released Fits' factors (Fit.Release)
}

// NewLDS returns an empty accumulator for d_s-dimensional states and d_phi
// features.
func NewLDS(ds, dphi int) *LDS {
	return &LDS{ds: ds, dphi: dphi, g: make([]float64, dphi*dphi), y: make([]float64, ds*dphi), pend: newPending(dphi, ds)}
}

// N is the number of transitions added.
func (e *LDS) N() int { return e.n }

// Add accumulates one transition.
func (e *LDS) Add(phi, next []float64) {
	e.n++
	if e.pend.on() {
		if e.pend.add(phi, next[:e.ds]) {
			e.flush()
		}
		return
	}
	addOuter(e.g, phi, 1)
	for k, x := range next[:e.ds] {
		yk := e.y[k*e.dphi : (k+1)*e.dphi]
		for j, p := range phi {
			yk[j] += x * p
		}
	}
}

// Fit is FitNoise with σ_k = 1 for every row.
func (e *LDS) Fit(lambda float64) (*Fit, error) { return e.FitNoise(lambda, nil) }

// FitNoise solves (G + λI) w_k = Y_k for every row k of Ŵ. Ŵ does not
// depend on sigma. Under the model s'_k = w_k·phi + N(0, σ_k²) the
// estimate has covariance σ_k² (G + λI)⁻¹ G (G + λI)⁻¹ ⪯ σ_k² (G + λI)⁻¹,
// so the confidence blocks of the result are its precision (G + λI)/σ_k²
// (row scales s_k = 1/σ_k², see Fit), and log det(V/λ + I) = d_s·log
// det(G/λ + I) for any σ. sigma holds σ_k for each of the d_s rows; nil
// means σ_k = 1.
func (e *LDS) FitNoise(lambda float64, sigma []float64) (*Fit, error) {
	if lambda < 0 {
		return nil, fmt.Errorf("least squares: lambda must be >= 0, got %g", lambda)
	}
	var scale []float64
	if sigma != nil {
		if len(sigma) != e.ds {
			return nil, fmt.Errorf("least squares: %d noise scales for %d state coordinates", len(sigma), e.ds)
		}
		scale = make([]float64, e.ds)
		for k, s := range sigma {
			if !(s > 0) || math.IsInf(s, 0) {
				return nil, fmt.Errorf("least squares: noise scale σ_%d must be a finite number > 0, got %v", k, s)
			}
			scale[k] = 1 / (s * s)
		}
	}
	e.flush()
	c, err := factor(&e.pool, e.g, e.dphi, 1, lambda, "least squares", e.n, e.n) // G = Σ φφᵀ
	if err != nil {
		return nil, err
	}
	f := &Fit{W: make([]float64, e.ds*e.dphi), DPsi: e.ds, DPhi: e.dphi, Lambda: lambda, N: e.n, pool: &e.pool,
		blocks: rowBlocks(e.ds, e.dphi, func(int) *cholesky { return c }, scale)}
	if err := f.solveInto(e.y, f.W); err != nil {
		f.Release()
		return nil, fmt.Errorf("least squares: %w", err)
	}
	return f, nil
}

// flush adds the pending transitions to G and Y (see pending).
func (e *LDS) flush() { e.pend.flush(e.g, e.y) }
