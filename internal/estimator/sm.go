package estimator

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/expfam"
	"gonum.org/v1/gonum/mat"
)

// SM accumulates the score-matching statistics V_n and b_n one transition at
// a time (so an agent can update them per episode) and solves for Ŵ.
// It is not safe for concurrent use.
type SM struct {
	fam              expfam.Family
	sep              expfam.Separable // nil unless fam is separable
	constC           float64
	constant         bool
	ds, dpsi, dphi   int
	n                int
	blocks           [][]float64 // upper triangles: 1 shared (constant C), d_psi (diagonal C) or 1 dense d×d
	b                []float64
	jac, xi, g, cmat []float64
}

// NewSM returns an empty accumulator for family fam and d_phi features.
func NewSM(fam expfam.Family, dphi int) *SM {
	e := &SM{fam: fam, ds: fam.StateDim(), dpsi: fam.StatDim(), dphi: dphi}
	e.b = make([]float64, e.dpsi*dphi)
	e.xi = make([]float64, e.dpsi)
	if sep, ok := fam.(expfam.Separable); ok {
		e.sep = sep
		e.g = make([]float64, e.dpsi)
		if c, ok := sep.ConstantC(); ok {
			e.constant, e.constC = true, c
			e.blocks = [][]float64{make([]float64, dphi*dphi)}
		} else {
			e.blocks = make([][]float64, e.dpsi)
			for k := range e.blocks {
				e.blocks[k] = make([]float64, dphi*dphi)
			}
		}
	} else {
		d := e.dpsi * dphi
		e.blocks = [][]float64{make([]float64, d*d)}
		e.jac = make([]float64, e.ds*e.dpsi)
		e.cmat = make([]float64, e.dpsi*e.dpsi)
	}
	return e
}

// N is the number of transitions added.
func (e *SM) N() int { return e.n }

// addOuter adds w · phi phiᵀ to the upper triangle of the d_phi×d_phi block.
func addOuter(block []float64, phi []float64, w float64) {
	d := len(phi)
	for j, pj := range phi {
		wp := w * pj
		row := block[j*d : (j+1)*d]
		for m := j; m < d; m++ {
			row[m] += wp * phi[m]
		}
	}
}

// Add accumulates one transition with features phi = phi(s, a) and next
// state next.
func (e *SM) Add(phi, next []float64) {
	e.n++
	dphi := e.dphi
	switch {
	case e.constant:
		e.sep.ScoreDiag(next, e.g, e.xi)
		addOuter(e.blocks[0], phi, 1)
	case e.sep != nil:
		e.sep.ScoreDiag(next, e.g, e.xi)
		for k, gk := range e.g {
			if gk != 0 {
				addOuter(e.blocks[k], phi, gk*gk)
			}
		}
	default:
		e.fam.ScoreTerms(next, e.jac, e.xi)
		// C = Σ_i jac_i jac_iᵀ with jac_i the i-th row (∂_i psi).
		clear(e.cmat)
		for i := 0; i < e.ds; i++ {
			r := e.jac[i*e.dpsi : (i+1)*e.dpsi]
			for k, a := range r {
				if a == 0 {
					continue
				}
				for l := k; l < e.dpsi; l++ {
					e.cmat[k*e.dpsi+l] += a * r[l]
				}
			}
		}
		d := e.dpsi * dphi
		v := e.blocks[0]
		for k := 0; k < e.dpsi; k++ {
			for l := k; l < e.dpsi; l++ {
				c := e.cmat[k*e.dpsi+l]
				if c == 0 {
					continue
				}
				for j, pj := range phi {
					row := v[(k*dphi+j)*d+l*dphi:]
					cp := c * pj
					m0 := 0
					if k == l {
						m0 = j
					}
					for m := m0; m < dphi; m++ {
						row[m] += cp * phi[m]
					}
				}
			}
		}
	}
	for k, x := range e.xi {
		if x == 0 {
			continue
		}
		bk := e.b[k*dphi : (k+1)*dphi]
		for j, p := range phi {
			bk[j] += x * p
		}
	}
}

// V returns V_n as a dense d×d matrix (row-major, both triangles), for tests
// and diagnostics.
func (e *SM) V() []float64 {
	d := e.dpsi * e.dphi
	v := make([]float64, d*d)
	set := func(i, j int, x float64) { v[i*d+j] = x; v[j*d+i] = x }
	switch {
	case e.sep != nil:
		for k := 0; k < e.dpsi; k++ {
			blk, w := e.blocks[0], e.constC
			if !e.constant {
				blk, w = e.blocks[k], 1
			}
			for j := 0; j < e.dphi; j++ {
				for m := j; m < e.dphi; m++ {
					set(k*e.dphi+j, k*e.dphi+m, w*blk[j*e.dphi+m])
				}
			}
		}
	default:
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				set(i, j, e.blocks[0][i*d+j])
			}
		}
	}
	return v
}

// B returns b_n (a copy).
func (e *SM) B() []float64 { return append([]float64(nil), e.b...) }

// Fit solves vec(Ŵ) = −(V_n + λI)⁻¹ b_n. It fails with ErrSingular when
// V_n + λI is not numerically positive definite (always so for n = 0 and
// λ = 0).
func (e *SM) Fit(lambda float64) (*Fit, error) {
	if lambda < 0 {
		return nil, fmt.Errorf("score matching: lambda must be >= 0, got %g", lambda)
	}
	f := &Fit{W: make([]float64, e.dpsi*e.dphi), DPsi: e.dpsi, DPhi: e.dphi, Lambda: lambda, N: e.n}
	const what = "score matching"
	switch {
	case e.constant:
		// V = c·I ⊗ G: one block c·G shared by every row.
		scaled := make([]float64, len(e.blocks[0]))
		for i, x := range e.blocks[0] {
			scaled[i] = e.constC * x
		}
		c, err := factor(scaled, e.dphi, lambda, what, e.n)
		if err != nil {
			return nil, err
		}
		f.blocks, f.shared = []*mat.Cholesky{c}, true
	case e.sep != nil:
		for _, blk := range e.blocks {
			c, err := factor(blk, e.dphi, lambda, what, e.n)
			if err != nil {
				return nil, err
			}
			f.blocks = append(f.blocks, c)
		}
	default:
		c, err := factor(e.blocks[0], e.dpsi*e.dphi, lambda, what, e.n)
		if err != nil {
			return nil, err
		}
		f.blocks, f.dense = []*mat.Cholesky{c}, true
	}
	if err := f.solveInto(e.b, f.W); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for i := range f.W {
		f.W[i] = -f.W[i]
	}
	return f, nil
}
