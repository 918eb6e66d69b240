package estimator

import (
	"errors"
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/expfam"
	"gonum.org/v1/gonum/mat"
)

// ErrNoConvergence is returned when Newton's method for the MLE does not
// converge, typically because the likelihood has no maximiser (λ = 0 and
// data that a direction of W separates).
var ErrNoConvergence = errors.New("maximum likelihood did not converge")

// MLE is the numerical maximum-likelihood estimator for product families
// (expfam.Blocked: the scalar products, the Gaussian, and per-coordinate
// products such as the ReLU families). It keeps every transition, since the
// likelihood has no finite sufficient statistic. It is not safe for
// concurrent use.
type MLE struct {
	dist       expfam.Blocked
	dpsi, dphi int
	blocks     []int // m_i per coordinate
	phi, psi   []float64
	next       []float64 // the next states, for the score-matching start (startFromSM)
	buf        []float64
}

// NewMLE returns an empty estimator for dist and d_phi features.
func NewMLE(dist expfam.Blocked, dphi int) *MLE {
	return &MLE{dist: dist, dpsi: dist.StatDim(), dphi: dphi, blocks: dist.Blocks(), buf: make([]float64, dist.StatDim())}
}

// N is the number of transitions added.
func (e *MLE) N() int { return len(e.phi) / e.dphi }

// Add stores one transition.
func (e *MLE) Add(phi, next []float64) {
	e.phi = append(e.phi, phi[:e.dphi]...)
	e.dist.Psi(next, e.buf)
	e.psi = append(e.psi, e.buf...)
	e.next = append(e.next, next[:e.dist.StateDim()]...)
}

// Fit maximises the penalised log-likelihood
//
//	Σ_t <psi(s'_t), W phi_t> − Z(W phi_t) − λ/2 |W|_F²
//
// by Newton's method with backtracking, one coordinate block at a time (the
// blocks decouple for product families: block i holds the m_i rows of W of
// coordinate i). start, when not nil, is the initial W (warm start);
// otherwise it starts at 0. Where the family is not normalisable at the
// start for some transition (a family on a half-line or an interval, whose
// natural parameters are restricted, started at W = 0), the block starts
// instead at the generalised score-matching estimate with the family's
// default weights (expfam.DefaultWeights), or where that is not admissible
// either (few transitions) at a point of the natural parameter space found by
// feasibleStart; it fails with ErrNoConvergence when there is none. The confidence blocks of the result are the
// observed information Σ_t Cov_t[psi_i] ⊗ phi_t phi_tᵀ + λI.
func (e *MLE) Fit(lambda float64, start []float64) (*Fit, error) {
	if lambda < 0 {
		return nil, fmt.Errorf("maximum likelihood: lambda must be >= 0, got %g", lambda)
	}
	n := e.N()
	f := &Fit{W: make([]float64, e.dpsi*e.dphi), DPsi: e.dpsi, DPhi: e.dphi, Lambda: lambda, N: n}
	if start != nil {
		copy(f.W, start)
	}
	// The score-matching start, fitted once for every block that needs it.
	var smW []float64
	var smErr error
	smStart := func() ([]float64, error) {
		if smW == nil && smErr == nil {
			smW, smErr = e.startFromSM(lambda)
		}
		return smW, smErr
	}
	row := 0
	for i, m := range e.blocks {
		d := m * e.dphi
		c, err := e.fitBlock(i, row, m, f.W[row*e.dphi:row*e.dphi+d], lambda, smStart)
		if err != nil {
			return nil, err
		}
		f.blocks = append(f.blocks, fitBlock{off: row * e.dphi, n: d, c: c, s: 1})
		row += m
	}
	return f, nil
}

// fitBlock runs Newton's method on coordinate i's parameters w (the m rows
// of W from row on, updated in place) and returns the factorised negative
// Hessian at the optimum. Where w is not admissible it starts at the
// block's rows of smStart's score-matching estimate of W.
func (e *MLE) fitBlock(i, row, m int, w []float64, lambda float64, smStart func() ([]float64, error)) (*cholesky, error) {
	n := e.N()
	dphi := e.dphi
	d := m * dphi
	grad := make([]float64, d)
	hess := make([]float64, d*d)
	step := make([]float64, d)
	trial := make([]float64, d)
	eta := make([]float64, m)
	mean := make([]float64, m)
	cov := make([]float64, m*m)
	obj := func(w []float64, grad, hess []float64) float64 {
		if grad != nil {
			for j := range grad {
				grad[j] = -lambda * w[j]
			}
			clear(hess)
		}
		var l float64
		for _, x := range w {
			l -= 0.5 * lambda * x * x
		}
		for t := 0; t < n; t++ {
			phi := e.phi[t*dphi : (t+1)*dphi]
			for k := range m {
				var v float64
				for j, p := range phi {
					v += w[k*dphi+j] * p
				}
				eta[k] = v
			}
			a, ok := e.dist.BlockCumulants(i, eta, mean, cov)
			if !ok {
				return math.Inf(-1)
			}
			psi := e.psi[t*e.dpsi+row : t*e.dpsi+row+m]
			for k := range m {
				l += psi[k] * eta[k]
			}
			l -= a
			if grad != nil {
				for k := range m {
					r := psi[k] - mean[k]
					gk := grad[k*dphi : (k+1)*dphi]
					for j, p := range phi {
						gk[j] += r * p
					}
				}
				addUpperKron(hess, cov, m, phi)
			}
		}
		return l
	}
	cur := obj(w, grad, hess)
	if math.IsInf(cur, -1) {
		if sm, err := smStart(); err == nil {
			copy(w, sm[row*dphi:row*dphi+d])
			cur = obj(w, grad, hess)
		}
	}
	if math.IsInf(cur, -1) && e.feasibleStart(i, m, w) {
		cur = obj(w, grad, hess)
	}
	if math.IsInf(cur, -1) {
		return nil, fmt.Errorf("maximum likelihood: coordinate %d: no W found at which the family is normalisable for every transition (n = %d): %w", i, n, ErrNoConvergence)
	}
	for it := 0; it < 100; it++ {
		c, err := factor(nil, hess, d, 1, lambda, "maximum likelihood", n, 0)
		if err != nil {
			return nil, err
		}
		x := mat.NewVecDense(d, step)
		if err := c.SolveVecTo(x, mat.NewVecDense(d, grad)); err != nil {
			return nil, fmt.Errorf("maximum likelihood: %w", err)
		}
		var dec float64 // Newton decrement²: gradᵀ H⁻¹ grad
		for j := range step {
			dec += grad[j] * step[j]
		}
		if dec < 1e-20*(1+math.Abs(cur)) {
			return c, nil // the factorisation of the Hessian at the optimum
		}
		if dec < 1e-6*(1+math.Abs(cur)) {
			// Quadratic region: take the full Newton step. The objective,
			// built from interpolated cumulants, is too flat here to rank
			// steps (its rounding and interpolation error exceed the gain),
			// while the gradient stays accurate; iterating full steps
			// drives the gradient itself to zero.
			for j := range trial {
				trial[j] = w[j] + step[j]
			}
		} else {
			t := 1.0
			for ; t > 1e-12; t /= 2 {
				for j := range trial {
					trial[j] = w[j] + t*step[j]
				}
				if next := obj(trial, nil, nil); next > cur && next >= cur+1e-4*t*dec {
					break
				}
			}
			if t <= 1e-12 {
				// No ascent along the Newton direction far from the optimum.
				return nil, fmt.Errorf("maximum likelihood: coordinate %d: no step along the Newton direction increases the likelihood at Newton step %d (decrement² %.3g; n = %d, λ = %g): %w",
					i, it+1, dec, n, lambda, ErrNoConvergence)
			}
		}
		copy(w, trial)
		cur = obj(w, grad, hess)
		for _, v := range w {
			if math.Abs(v) > 1e8 {
				return nil, fmt.Errorf("maximum likelihood: |W| diverges (n = %d, λ = %g): %w", n, lambda, ErrNoConvergence)
			}
		}
	}
	return nil, fmt.Errorf("maximum likelihood: coordinate %d after 100 Newton steps (n = %d, λ = %g): %w", i, n, lambda, ErrNoConvergence)
}

// feasibleStart moves coordinate i's parameters w (m rows of d_phi) into
// the natural parameter space of an expfam.Restricted coordinate for every
// stored transition, η_k(phi_t) = <w_k, phi_t> >= lower_k + 1/4, by the
// relaxation method for linear inequalities (Agmon; Motzkin & Schoenberg
// 1954): project w_k onto each violated half-space in turn, up to 1000
// sweeps. It reports whether every inequality holds; it fails when the
// constraints have no interior (a feature vector of zeros, say).
func (e *MLE) feasibleStart(i, m int, w []float64) bool {
	cs, ok := e.dist.(*expfam.Coords)
	if !ok {
		return false
	}
	r, ok := cs.C[i].(expfam.Restricted)
	if !ok {
		return false
	}
	lower := r.EtaLowerBounds()
	dphi := e.dphi
	for k := range m {
		wk := w[k*dphi : (k+1)*dphi]
		target := lower[k] + 0.25
		for sweep := 0; ; sweep++ {
			if sweep == 1000 {
				return false
			}
			moved := false
			for t := range e.N() {
				phi := e.phi[t*dphi : (t+1)*dphi]
				var v, p2 float64
				for j, p := range phi {
					v += wk[j] * p
					p2 += p * p
				}
				if v >= target {
					continue
				}
				if p2 == 0 {
					return false
				}
				step := (target - v) * 1.01 / p2 // a little past the half-space's boundary
				for j, p := range phi {
					wk[j] += step * p
				}
				moved = true
			}
			if !moved {
				break
			}
		}
	}
	return true
}

// startFromSM returns the generalised score-matching estimate of W from
// the stored transitions, with the default weights of
// expfam.DefaultWeights: the starting point of Newton's method where W = 0 is not admissible.
func (e *MLE) startFromSM(lambda float64) ([]float64, error) {
	sm := NewSM(e.dist, e.dphi)
	if w := expfam.DefaultWeights(e.dist); w != nil {
		if err := sm.SetWeights(w); err != nil {
			return nil, err
		}
	}
	ds := e.dist.StateDim()
	for t := range e.N() {
		sm.Add(e.phi[t*e.dphi:(t+1)*e.dphi], e.next[t*ds:(t+1)*ds])
	}
	f, err := sm.Fit(max(lambda, 1e-10))
	if err != nil {
		return nil, err
	}
	return f.W, nil
}
