package estimator

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// DefaultFloor is the information floor of the agents' score matching
// (config key sm.floor): a direction of V_n carrying less information
// than 5 average transitions is shrunk (SetFloor).
const DefaultFloor = 5

// SetFloor sets the information floor m ≥ 0 of the estimate (0, the
// default of NewSM: the paper's plain estimator). With m > 0, Fit solves
// each block b of V_n (the blocks of Fit: a row of W, a coordinate's rows,
// or all of vec(W)) as
//
//	ŵ_b = −Σ_i (u_iᵀ b_b) / max(μ_i, τ_b) u_i,   τ_b = m · tr(V_b) / (n d_b),
//
// where μ_i, u_i are the eigenpairs of V_b + λI, d_b its size and n the
// number of transitions: tr(V_b)/(n d_b) is the information of an average
// transition in an average direction, so a direction is floored when it
// carries less than m average transitions' worth. Where ψ' vanishes on the
// data (a tail of tanh, a peak of sin), uᵀ V_n u is a sum of a few tiny
// terms ψ'(s')² (u·phi)² and −u·b_n / uᵀ V_n u a heavy-tailed ratio; the
// floor bounds it by |u·b_n| / τ_b. A block whose smallest eigenvalue is at
// least τ_b keeps the plain solve, bit for bit: Fit first tries a Cholesky
// factorisation of V_b + (λ − τ_b)I and decomposes V_b only when that
// fails. As n grows, μ_min(V_b) grows like n while τ_b stays bounded, so
// for a non-singular limit of V_n/n the floor stops acting and the
// estimator is plain score matching, consistent like it. The floor changes
// only the point estimate: the fit's precision (Norm, LogDet, InvSqrt: the
// confidence set and posterior of the -ucb and -ps agents) stays V_n + λI.
// A block whose C(s') took one value on every transition (ψ' constant: a
// Gaussian family or coordinate) is least squares, where the ratio is not
// heavy-tailed and λ is the remedy for collinear features: the floor
// leaves it alone.
func (e *SM) SetFloor(m float64) error {
	if !(m >= 0) || math.IsInf(m, 0) {
		return fmt.Errorf("score matching: information floor must be a finite number >= 0, got %v", m)
	}
	e.floor = m
	return nil
}

// applyFloor replaces the entries of f.W of every block whose smallest
// eigenvalue of V_b + λI lies below τ_b by the floored solve (SetFloor),
// among the blocks whose C(s') has varied on the data.
func (e *SM) applyFloor(f *Fit) error {
	if e.floor == 0 || e.constant || e.n == 0 {
		return nil
	}
	dphi := e.dphi
	switch {
	case e.sep != nil:
		for k, blk := range e.blocks {
			lo, hi := k*dphi, (k+1)*dphi
			if !e.cv.varies(k) {
				continue
			}
			if err := e.floorBlock(blk, e.b[lo:hi], f.Lambda, f.W[lo:hi]); err != nil {
				return err
			}
		}
	case e.blk != nil:
		for i, blk := range e.blocks {
			lo, hi := e.off[i]*dphi, e.off[i+1]*dphi
			if !e.cv.varies(i) {
				continue
			}
			if err := e.floorBlock(blk, e.b[lo:hi], f.Lambda, f.W[lo:hi]); err != nil {
				return err
			}
		}
	default:
		if e.cv.varies(0) {
			return e.floorBlock(e.blocks[0], e.b, f.Lambda, f.W)
		}
	}
	return nil
}

// floorBlock writes the floored solve of one block (v its upper triangle,
// b its part of b_n) into w when the floor acts on it, and leaves w alone
// otherwise.
func (e *SM) floorBlock(v, b []float64, lambda float64, w []float64) error {
	d := len(b)
	var tr float64
	for i := range d {
		tr += v[i*d+i]
	}
	tau := e.floor * tr / (float64(e.n) * float64(d))
	if !(tau > lambda) {
		return nil // every eigenvalue of V_b + λI is at least λ ≥ τ_b (or tr is not finite: the solve reports it)
	}
	// One matrix: V_b + (λ − τ_b)I for the test (a Cholesky factorisation
	// of a copy, of which only its success counts: no norm, no condition
	// estimate), then its diagonal set to V_b + λI for the decomposition.
	s := mat.NewSymDense(d, nil)
	for i := range d {
		s.SetSym(i, i, v[i*d+i]+(lambda-tau))
		for j := i + 1; j < d; j++ {
			s.SetSym(i, j, v[i*d+j])
		}
	}
	test := s.RawSymmetric()
	test.Data = append([]float64(nil), test.Data...)
	if _, ok := lapack64.Potrf(test); ok {
		return nil // μ_min(V_b + λI) > τ_b: the plain solve stands
	}
	for i := range d {
		s.SetSym(i, i, v[i*d+i]+lambda)
	}
	var es mat.EigenSym
	if !es.Factorize(s, true) {
		return fmt.Errorf("score matching: information floor: eigendecomposition of V + λI failed (n = %d transitions): %w", e.n, ErrSingular)
	}
	mu := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	clear(w)
	for i, m := range mu {
		var ub float64
		for j := range d {
			ub += u.At(j, i) * b[j]
		}
		c := -ub / max(m, tau)
		for j := range d {
			w[j] += c * u.At(j, i)
		}
	}
	return nil
}

// curvature records, per block of V_n, whether the update C(s') of the
// block (g_k² of a row, h g gᵀ of a coordinate, or all of C) has taken
// more than one value on the data: a block whose C never varied (a
// Gaussian coordinate, ψ' constant) is least squares, where the floor has
// nothing to correct and is not applied.
type curvature struct {
	first  [][]float64 // the block's update at the first transition
	varied []bool
}

// grow makes room for block i.
func (c *curvature) grow(i int) {
	for len(c.first) <= i {
		c.first = append(c.first, nil)
		c.varied = append(c.varied, false)
	}
}

// note records block i's update x at transition n (1 for the first).
func (c *curvature) note(n, i int, x []float64) {
	c.grow(i)
	switch {
	case n == 1:
		c.first[i] = append(c.first[i][:0], x...)
	case !c.varied[i] && !equalBits(c.first[i], x):
		c.varied[i] = true
	}
}

// noteScalar is note for a one-number update.
func (c *curvature) noteScalar(n, i int, x float64) {
	c.grow(i)
	switch {
	case n == 1:
		c.first[i] = append(c.first[i][:0], x)
	case !c.varied[i] && math.Float64bits(c.first[i][0]) != math.Float64bits(x):
		c.varied[i] = true
	}
}

// merge adds the record o of no transitions to c of nc (CrossValidate's
// folds).
func (c *curvature) merge(nc int, o *curvature, no int) {
	if no == 0 {
		return
	}
	for i := range o.first {
		c.grow(i)
		if nc == 0 {
			c.first[i] = append(c.first[i][:0], o.first[i]...)
			c.varied[i] = o.varied[i]
			continue
		}
		c.varied[i] = c.varied[i] || o.varied[i] || !equalBits(c.first[i], o.first[i])
	}
}

// varies reports whether block i's update has varied.
func (c *curvature) varies(i int) bool { return i < len(c.varied) && c.varied[i] }

// equalBits reports whether a and b hold the same bits.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}
