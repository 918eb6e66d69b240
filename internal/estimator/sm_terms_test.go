package estimator

// Terms and AddTransition are the tests' dense oracle of one transition's
// V_t and b_t, built from terms independently of the structured
// accumulate, residual and Objective that Add, Sandwich and CrossValidate
// use.

// Terms writes one transition's score-matching terms in compact form:
// the d_psi×d_psi matrix c (row-major) and the vector xi (len d_psi) with
//
//	V_t = c ⊗ phi phiᵀ,   b_t = xi ⊗ phi,
//
// so that V_n = Σ_t V_t and b_n = Σ_t b_t are what Add accumulates, with
// the weights of SetWeights and the kernel kink terms of EstimateKinks
// applied: c = Σ_i h_i ∂_i ψ ∂_i ψᵀ and xi = Σ_i h_i ξ_i + h_i' ∂_i ψ (+ the
// kernel terms). The gradient of transition t's loss at W is then
// (c η_t + xi) ⊗ phi_t with η_t = W phi_t, which is what a sandwich
// covariance needs. c and xi are overwritten; Terms does not count the
// transition.
func (e *SM) Terms(next, c, xi []float64) {
	d := e.dpsi
	clear(c[:d*d])
	e.terms(next)
	copy(xi[:d], e.xi)
	switch {
	case e.constant:
		for k := range d {
			c[k*d+k] = e.constC
		}
	case e.sep != nil:
		for k, gk := range e.g {
			c[k*d+k] = gk * gk
		}
	case e.blk != nil:
		for i, h := range e.hw {
			lo, hi := e.off[i], e.off[i+1]
			for k := lo; k < hi; k++ {
				for l := lo; l < hi; l++ {
					c[k*d+l] = h * e.g[k] * e.g[l]
				}
			}
		}
		for i, k := range e.kinks {
			for l, jl := range k.jump {
				xi[k.row+l] += e.kw[i] * jl
			}
		}
	default:
		for k := range d {
			for l := k; l < d; l++ {
				c[k*d+l] = e.cmat[k*d+l]
				c[l*d+k] = e.cmat[k*d+l]
			}
		}
	}
}

// AddTransition adds one transition's V_t (dense d×d, both triangles,
// d = d_psi·d_phi, row-major in vec(W)) to v and b_t (len d) to b, with c
// and xi (len d_psi², d_psi) as scratch: the per-transition terms of Terms
// laid out like V and B. It does not change the accumulator.
func (e *SM) AddTransition(phi, next, v, b, c, xi []float64) {
	e.Terms(next, c, xi)
	dphi, dpsi := e.dphi, e.dpsi
	d := dpsi * dphi
	for k := range dpsi {
		for j, pj := range phi {
			b[k*dphi+j] += xi[k] * pj
		}
		for l := range dpsi {
			ckl := c[k*dpsi+l]
			if ckl == 0 {
				continue
			}
			for j, pj := range phi {
				row := v[(k*dphi+j)*d+l*dphi:]
				for m, pm := range phi {
					row[m] += ckl * pj * pm
				}
			}
		}
	}
}
