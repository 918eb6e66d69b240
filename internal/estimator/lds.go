package estimator

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
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
}

// NewLDS returns an empty accumulator for d_s-dimensional states and d_phi
// features.
func NewLDS(ds, dphi int) *LDS {
	return &LDS{ds: ds, dphi: dphi, g: make([]float64, dphi*dphi), y: make([]float64, ds*dphi)}
}

// N is the number of transitions added.
func (e *LDS) N() int { return e.n }

// Add accumulates one transition.
func (e *LDS) Add(phi, next []float64) {
	e.n++
	addOuter(e.g, phi, 1)
	for k, x := range next[:e.ds] {
		yk := e.y[k*e.dphi : (k+1)*e.dphi]
		for j, p := range phi {
			yk[j] += x * p
		}
	}
}

// Fit solves (G + λI) w_k = Y_k for every row k of Ŵ. Its confidence
// blocks are G + λI, the precision of the Gaussian model with σ = 1.
func (e *LDS) Fit(lambda float64) (*Fit, error) {
	if lambda < 0 {
		return nil, fmt.Errorf("least squares: lambda must be >= 0, got %g", lambda)
	}
	c, err := factor(e.g, e.dphi, lambda, "least squares", e.n)
	if err != nil {
		return nil, err
	}
	f := &Fit{W: make([]float64, e.ds*e.dphi), DPsi: e.ds, DPhi: e.dphi, Lambda: lambda, N: e.n,
		blocks: rowBlocks(e.ds, e.dphi, func(int) *mat.Cholesky { return c })}
	if err := f.solveInto(e.y, f.W); err != nil {
		return nil, fmt.Errorf("least squares: %w", err)
	}
	return f, nil
}
