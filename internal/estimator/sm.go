package estimator

import (
	"errors"
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/expfam"
	"gonum.org/v1/gonum/floats"
)

// SM accumulates the score-matching statistics V_n and b_n one transition at
// a time (so an agent can update them per episode) and solves for Ŵ.
// It is not safe for concurrent use.
//
// V_n is block diagonal for every family but the generic one; SM keeps only
// the upper triangles of the blocks that can be non-zero:
//   - constant C (Gaussian): one d_phi×d_phi Gram matrix shared by every row;
//   - Separable (diagonal C): one d_phi×d_phi block per row of W;
//   - Blocked (a product of per-coordinate families with m_i statistics
//     each): one (m_i·d_phi)² block per coordinate, V_i = Σ_t (g_i ⊗ phi)(g_i ⊗ phi)ᵀ
//     with g_i = ψ_i'(s'_i);
//   - otherwise one dense d×d block.
type SM struct {
	fam            expfam.Family
	sep            expfam.Separable // nil unless fam is separable
	blk            expfam.Blocked   // nil unless fam is Blocked and not Separable
	constC         float64
	constant       bool
	ds, dpsi, dphi int
	n              int
	blocks         [][]float64 // upper triangles, see above
	// alias, Blocked: alias[i] = j ≥ 0 when block i shares block j's
	// storage (j < i, alias[j] = −1): every transition so far added the same
	// update h g gᵀ ⊗ φφᵀ to both (a product of Gaussians of one σ), so their
	// sums are the same bits and one accumulation serves both. The first
	// transition whose update differs gives block i its own copy (unalias).
	alias      []int
	ci         []float64 // Blocked: h_i g_i g_iᵀ of each block (upper triangle), at coff[i]
	coff       []int
	off        []int // Blocked: block i starts at row off[i] of W
	b          []float64
	jac, xi, g []float64
	cmat       []float64
	kinks      []kinkTerm
	kw         []float64       // kernel weight of each kink term (terms)
	weights    []expfam.Weight // per coordinate, nil: h ≡ 1; see SetWeights
	hw         []float64       // Blocked: weight h_i(s'_i) of each block (terms)
	floor      float64         // information floor of the estimate (SetFloor; 0: none)
	cv         curvature       // whether each block's C(s') has varied (floor.go)
	pend       pending         // constant C at d_phi ≥ blockedMin: transitions not yet in V and b
	bpend      blockPending    // Blocked with scalar blocks at d_phi ≥ blockedMin: transitions not yet in V
	pool       factorPool      // released Fits' factors (Fit.Release)
}

// kinkTerm is the δ part of ψ” of one coordinate: ψ' jumps by jump at x = at,
// so b_n gains jump ⊗ phi · K_h(s'_i − at), a kernel estimate of the
// conditional density p(at | s, a) (see EstimateKinks).
type kinkTerm struct {
	coord int
	at, h float64
	jump  []float64 // on the coordinate's block of psi
	row   int       // first row of W of the block
}

// NewSM returns an empty accumulator for family fam and d_phi features.
func NewSM(fam expfam.Family, dphi int) *SM {
	fam = expfam.Structure(fam) // coupled-sin sampled by MCMC is Separable
	e := &SM{fam: fam, ds: fam.StateDim(), dpsi: fam.StatDim(), dphi: dphi}
	e.b = make([]float64, e.dpsi*dphi)
	e.xi = make([]float64, e.dpsi)
	if sep, ok := fam.(expfam.Separable); ok {
		e.sep = sep
		e.g = make([]float64, e.dpsi)
		if c, ok := sep.ConstantC(); ok {
			e.constant, e.constC = true, c
			e.blocks = [][]float64{make([]float64, dphi*dphi)}
			e.pend = newPending(dphi, e.dpsi)
		} else {
			e.blocks = make([][]float64, e.dpsi)
			for k := range e.blocks {
				e.blocks[k] = make([]float64, dphi*dphi)
			}
		}
		return e
	}
	if blk, ok := fam.(expfam.Blocked); ok {
		e.initBlocked(blk)
		return e
	}
	d := e.dpsi * dphi
	e.blocks = [][]float64{make([]float64, d*d)}
	e.jac = make([]float64, e.ds*e.dpsi)
	e.cmat = make([]float64, e.dpsi*e.dpsi)
	return e
}

// ErrWeights and ErrKinkBandwidths mark NewSMFor's refusal of the
// weights (SetWeights) and of the kink bandwidths (EstimateKinks), for
// errors.Is; the error's message is the refusal's own. A caller that knows
// where the weights and bandwidths came from (the config key) names it.
var (
	ErrWeights        = errors.New("score matching: weights refused")
	ErrKinkBandwidths = errors.New("score matching: kink bandwidths refused")
)

// refusal is an error of NewSMFor: err, marked as the refusal of kind
// (ErrWeights or ErrKinkBandwidths) without changing its message.
type refusal struct{ kind, err error }

func (r refusal) Error() string   { return r.err.Error() }
func (r refusal) Unwrap() []error { return []error{r.kind, r.err} }

// NewSMFor returns an empty accumulator for family fam and d_phi features
// with the score-matching weights w (SetWeights; nil: none) and the kernel
// kink bandwidths h (EstimateKinks; nil: none): the estimator of an agent or
// of smrl estimate. Its errors are ErrWeights or ErrKinkBandwidths.
func NewSMFor(fam expfam.Family, dphi int, w []expfam.Weight, h []float64) (*SM, error) {
	e := NewSM(fam, dphi)
	if w != nil {
		if err := e.SetWeights(w); err != nil {
			return nil, refusal{ErrWeights, err}
		}
	}
	if h != nil {
		if err := e.EstimateKinks(h); err != nil {
			return nil, refusal{ErrKinkBandwidths, err}
		}
	}
	return e, nil
}

// initBlocked lays the accumulator out by the blocks of blk: one
// (m_i·d_phi)² block per coordinate.
func (e *SM) initBlocked(blk expfam.Blocked) {
	e.sep, e.constant, e.constC = nil, false, 0
	e.pend = pending{}
	e.blk = blk
	e.g = make([]float64, e.dpsi)
	ms := blk.Blocks()
	e.off = make([]int, len(ms)+1)
	e.coff = make([]int, len(ms)+1)
	e.blocks = make([][]float64, len(ms))
	e.alias = make([]int, len(ms))
	e.cmat = nil
	e.hw = make([]float64, len(ms))
	for i, m := range ms {
		e.off[i+1] = e.off[i] + m
		e.coff[i+1] = e.coff[i] + m*m
		// Blocks of one length start out as one storage (all zero).
		e.alias[i] = -1
		for j := range i {
			if e.alias[j] < 0 && ms[j] == m {
				e.alias[i], e.blocks[i] = j, e.blocks[j]
				break
			}
		}
		if e.alias[i] < 0 {
			n := m * e.dphi
			e.blocks[i] = make([]float64, n*n)
		}
	}
	e.ci = make([]float64, e.coff[len(e.blocks)])
	e.bpend = newBlockPending(e.dphi, ms)
}

// unalias gives block i its own storage, a copy of the block it shared.
func (e *SM) unalias(i int) {
	if j := e.alias[i]; j >= 0 {
		e.blocks[i] = append([]float64(nil), e.blocks[j]...)
		e.alias[i] = -1
	}
}

// sameUpdate reports whether blocks i and j receive the same update from
// the transition whose terms were just evaluated: none (h = 0) for both,
// or the same h g gᵀ to the bit.
func (e *SM) sameUpdate(i, j int) bool {
	if e.hw[i] == 0 || e.hw[j] == 0 {
		return e.hw[i] == 0 && e.hw[j] == 0
	}
	return equalBits(e.ci[e.coff[i]:e.coff[i+1]], e.ci[e.coff[j]:e.coff[j+1]])
}

// SetWeights makes the accumulator generalised score matching with weight
// w[i] on state coordinate i (nil: h ≡ 1): per transition, coordinate i's
// block of V gains h (g ⊗ phi)(g ⊗ phi)ᵀ and of b gains (h ξ + h' g) ⊗ phi,
// with g = ψ_i'(s'_i), ξ = (log q_i)' g + ψ_i” and (h, h') = w[i].At(s'_i)
// (the derivation is in the package doc). A kernel kink term of
// EstimateKinks is multiplied by h at the kink, so a weight vanishing there
// removes it. The family must be Blocked (every product family is); a
// Separable family switches to its blocked layout. Call before the first
// Add. With every entry nil it restores plain score matching.
func (e *SM) SetWeights(w []expfam.Weight) error {
	if len(w) != e.ds {
		return fmt.Errorf("score matching: %d weights for %d coordinates", len(w), e.ds)
	}
	if e.n > 0 {
		return fmt.Errorf("score matching: weights must be set before the first transition")
	}
	set := false
	for _, x := range w {
		set = set || x != nil
	}
	if !set {
		e.weights = nil
		return nil
	}
	blk, ok := e.fam.(expfam.Blocked)
	if !ok {
		return fmt.Errorf("score matching: weights need a product family (one weight per coordinate), not %v", e.fam)
	}
	if e.blk == nil {
		e.initBlocked(blk)
	}
	e.weights = append([]expfam.Weight(nil), w...)
	return nil
}

// Weights returns the weight of each coordinate (nil entries: h ≡ 1), or
// nil for plain score matching.
func (e *SM) Weights() []expfam.Weight { return append([]expfam.Weight(nil), e.weights...) }

// weigh applies coordinate i's weight at x to its block of g and xi:
// xi ← h xi + h' g; it returns h (1 without a weight).
func (e *SM) weigh(i int, x float64, g, xi []float64) float64 {
	if e.weights == nil || e.weights[i] == nil {
		return 1
	}
	h, dh := e.weights[i].At(x)
	for k, gk := range g {
		xi[k] = h*xi[k] + dh*gk
	}
	return h
}

// kernelAt returns the kernel weight of kink term k at the next state:
// K_h(s'_i − at), times the coordinate's weight at the kink.
func (e *SM) kernelAt(k *kinkTerm, next []float64) float64 {
	z := (next[k.coord] - k.at) / k.h
	w := (2 - z*z) * math.Exp(-0.5*z*z) / (math.Sqrt(2*math.Pi) * k.h) // K_h, see EstimateKinks
	if e.weights != nil && e.weights[k.coord] != nil {
		h, _ := e.weights[k.coord].At(k.at)
		w *= h
	}
	return w
}

// kinker is a Blocked family that reports the kinks of coordinate i's
// statistic (expfam.Coords).
type kinker interface {
	Kinks(i int) (at []float64, jump [][]float64)
}

// EstimateKinks makes score matching include the δ terms of ψ” at the kinks
// of a family's statistic (the ReLU families): with ψ' jumping by J at x = c,
// the population b gains J ⊗ E[p(c | s, a) phi(s, a)], which the sample
// estimates with a kernel, Σ_t K_h(s'_{t,i} − c) J ⊗ phi_t, of bandwidth
// h[i] for coordinate i. The density itself has a kink at c (its log-slope
// jumps by <J, η>), so a symmetric kernel is biased at O(h) there; the kernel
// K(z) = (2 − z²) φ(z) has ∫K = 1 and ∫_0^∞ z K(z) dz = 0, which removes that
// term and leaves an O(h²) bias. Without the term (h[i] = 0, or never
// called: the authors' estimator) the kink is ignored and the kink
// coefficients are inconsistent (TestSMReLUKinkTerm measures both). Call
// before the first Add; it fails when h has the wrong length or a negative
// or non-finite entry.
func (e *SM) EstimateKinks(h []float64) error {
	k, ok := e.fam.(kinker)
	if !ok || e.blk == nil {
		return nil
	}
	if len(h) != e.ds {
		return fmt.Errorf("score matching: %d kink bandwidths for %d coordinates", len(h), e.ds)
	}
	e.kinks = e.kinks[:0]
	for i := range e.ds {
		if !(h[i] >= 0) || math.IsInf(h[i], 0) {
			return fmt.Errorf("score matching: kink bandwidth of coordinate %d must be a finite number >= 0, got %v", i, h[i])
		}
		at, jump := k.Kinks(i)
		if h[i] == 0 {
			continue
		}
		for j := range at {
			e.kinks = append(e.kinks, kinkTerm{coord: i, at: at[j], h: h[i], jump: jump[j], row: e.off[i]})
		}
	}
	e.kw = make([]float64, len(e.kinks))
	return nil
}

// addOuter adds w · phi phiᵀ to the upper triangle of the d_phi×d_phi block.
func addOuter(block []float64, phi []float64, w float64) {
	d := len(phi)
	for j, pj := range phi {
		addScaled(block[j*d+j:(j+1)*d], w*pj, phi[j:])
	}
}

// addScaled adds a·x_i to y_i for i < len(y) (len(x) ≥ len(y)): each term
// rounded as y_i += a·x_i (a multiply, then an add), so that V has the same
// bits whichever loop ran. Rows from minSIMDRow on run gonum's SSE2 loop
// (floats.AddScaled, two terms per instruction); shorter ones (the paper's
// features) a plain loop, which a call would only slow down.
func addScaled(y []float64, a float64, x []float64) {
	x = x[:len(y)]
	if len(y) >= minSIMDRow {
		floats.AddScaled(y, a, x)
		return
	}
	for i := range y {
		y[i] += a * x[i]
	}
}

// minSIMDRow is the row length from which addScaled calls gonum's loop.
const minSIMDRow = 16

// addUpperKron adds c ⊗ (phi phiᵀ) to the upper triangle of the
// (m·d_phi)×(m·d_phi) row-major matrix h, where c is a symmetric m×m matrix
// of which only the upper triangle is read; zero entries of c are skipped.
// With c = g gᵀ it is one transition's contribution (g ⊗ phi)(g ⊗ phi)ᵀ to
// V of one coordinate, with c = Cov(T) one term of the MLE Hessian.
func addUpperKron(h, c []float64, m int, phi []float64) {
	dphi := len(phi)
	n := m * dphi
	for k := range m {
		for l := k; l < m; l++ {
			ckl := c[k*m+l]
			if ckl == 0 {
				continue
			}
			for j, pj := range phi {
				row := h[(k*dphi+j)*n+l*dphi:]
				m0 := 0
				if k == l {
					m0 = j
				}
				addScaled(row[m0:dphi], ckl*pj, phi[m0:])
			}
		}
	}
}

// Add accumulates one transition with features phi = phi(s, a) and next
// state next: V_n += V_t, b_n += b_t (see terms).
func (e *SM) Add(phi, next []float64) {
	e.n++
	e.terms(next)
	e.accumulate(phi)
}

// terms evaluates the part of one transition's contribution that depends on
// the next state only: V_t = C(s') ⊗ phi phiᵀ and b_t = ξ(s') ⊗ phi
// (+ the kink terms), in the family's structure:
//   - constant C: C = constC·I, nothing to evaluate but ξ (e.xi);
//   - Separable: C = diag(e.g²);
//   - Blocked: C = diag over blocks of h_i g_i g_iᵀ, g_i = e.g[off[i]:off[i+1]],
//     with the weight h_i = e.hw[i] of SetWeights (1 without) and ξ weighted;
//   - otherwise the upper triangle of C in e.cmat;
//
// and ξ in e.xi, the kernel weight K_h(s'_i − c) of kink term k in
// e.kw[k]. Every consumer of per-transition statistics (Add, the sandwich
// of Sandwich, the held-out loss of CrossValidate) goes through terms, so a
// change of how V_t and b_t are built (a weight h(s') of generalised score
// matching) is made here once.
func (e *SM) terms(next []float64) {
	switch {
	case e.sep != nil:
		e.sep.ScoreDiag(next, e.g, e.xi)
	case e.blk != nil:
		e.blk.ScoreBlock(next, e.g, e.xi)
		for i := range e.blocks {
			lo, hi := e.off[i], e.off[i+1]
			e.hw[i] = e.weigh(i, next[i], e.g[lo:hi], e.xi[lo:hi])
		}
		for i := range e.kinks {
			e.kw[i] = e.kernelAt(&e.kinks[i], next)
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
	}
}

// accumulate adds V_t and b_t of the transition whose terms were just
// evaluated, with features phi, to V_n and b_n.
func (e *SM) accumulate(phi []float64) {
	dphi := e.dphi
	switch {
	case e.constant && e.pend.on():
		// Level 3: V and b take the transition with the others of its block.
		if e.pend.add(phi, e.xi) {
			e.flush()
		}
		return
	case e.constant:
		addOuter(e.blocks[0], phi, 1)
	case e.sep != nil:
		for k, gk := range e.g {
			e.cv.noteScalar(e.n, k, gk*gk)
			if gk != 0 {
				addOuter(e.blocks[k], phi, gk*gk)
			}
		}
	case e.blk != nil:
		for i := range e.blocks {
			h := e.hw[i]
			if h == 0 {
				continue
			}
			g := e.g[e.off[i]:e.off[i+1]]
			m := len(g)
			c := e.ci[e.coff[i]:e.coff[i+1]]
			for k, gk := range g {
				hg := h * gk
				for l := k; l < m; l++ {
					c[k*m+l] = hg * g[l]
				}
			}
		}
		for i := range e.blocks {
			c := e.ci[e.coff[i]:e.coff[i+1]]
			if e.hw[i] == 0 {
				clear(c) // no update; sameUpdate reads c only where h ≠ 0
			}
			e.cv.note(e.n, i, c)
		}
		for i, j := range e.alias {
			if j >= 0 && !e.sameUpdate(i, j) {
				e.flush()    // block j's sums of the transitions before this one
				e.unalias(i) // before block j takes this transition
			}
		}
		if !e.bpend.on() || !e.bpend.add(phi, e.ci, e.hw, e.alias) {
			e.flush() // the transitions before this one first (no-op when off)
			for i, v := range e.blocks {
				if e.hw[i] == 0 || e.alias[i] >= 0 {
					continue
				}
				addUpperKron(v, e.ci[e.coff[i]:e.coff[i+1]], e.off[i+1]-e.off[i], phi)
			}
		} else if e.bpend.n == blockRows {
			e.flush()
		}
		for i, k := range e.kinks {
			w := e.kw[i]
			for l, jl := range k.jump {
				bl := e.b[(k.row+l)*dphi : (k.row+l+1)*dphi]
				for j, p := range phi {
					bl[j] += w * jl * p
				}
			}
		}
	default:
		e.cv.note(e.n, 0, e.cmat)
		addUpperKron(e.blocks[0], e.cmat, e.dpsi, phi)
	}
	for k, x := range e.xi {
		if x == 0 {
			continue
		}
		addScaled(e.b[k*dphi:(k+1)*dphi], x, phi)
	}
}

// residual writes r = C(s') η + ξ(s') (+ the kink terms) for the transition
// whose terms were just evaluated and η = W phi: the transition's gradient
// of the SM objective at W is g_t = V_t w + b_t = r ⊗ phi.
func (e *SM) residual(eta, r []float64) {
	switch {
	case e.constant:
		for k, x := range eta {
			r[k] = e.constC*x + e.xi[k]
		}
	case e.sep != nil:
		for k, x := range eta {
			r[k] = e.g[k]*e.g[k]*x + e.xi[k]
		}
	case e.blk != nil:
		for i := range e.blocks {
			lo, hi := e.off[i], e.off[i+1]
			var ge float64
			for k := lo; k < hi; k++ {
				ge += e.g[k] * eta[k]
			}
			ge *= e.hw[i]
			for k := lo; k < hi; k++ {
				r[k] = e.g[k]*ge + e.xi[k]
			}
		}
		for i, k := range e.kinks {
			for l, jl := range k.jump {
				r[k.row+l] += e.kw[i] * jl
			}
		}
	default:
		d := e.dpsi
		for k := range d {
			s := e.xi[k]
			for l := range d {
				c := e.cmat[k*d+l]
				if l < k {
					c = e.cmat[l*d+k]
				}
				s += c * eta[l]
			}
			r[k] = s
		}
	}
}

// V returns V_n as a dense d×d matrix (row-major, both triangles), for tests
// and diagnostics.
func (e *SM) V() []float64 {
	e.flush()
	d := e.dpsi * e.dphi
	v := make([]float64, d*d)
	set := func(i, j int, x float64) { v[i*d+j] = x; v[j*d+i] = x }
	switch {
	case e.blk != nil:
		for i, blk := range e.blocks {
			o, n := e.off[i]*e.dphi, (e.off[i+1]-e.off[i])*e.dphi
			for j := 0; j < n; j++ {
				for m := j; m < n; m++ {
					set(o+j, o+m, blk[j*n+m])
				}
			}
		}
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
func (e *SM) B() []float64 {
	e.flush()
	return append([]float64(nil), e.b...)
}

// flush adds the pending transitions of the blocked accumulation to V and
// b (see pending); every reader of the sums calls it first.
func (e *SM) flush() {
	e.pend.flush(e.blocks[0], e.b)
	e.bpend.flush(e.blocks, e.alias)
}

// Fit solves vec(Ŵ) = −(V_n + λI)⁻¹ b_n, with the information floor of
// SetFloor when one is set. It fails with ErrSingular when V_n + λI is not
// numerically positive definite (always so for n = 0 and λ = 0).
func (e *SM) Fit(lambda float64) (_ *Fit, err error) {
	if lambda < 0 {
		return nil, fmt.Errorf("score matching: lambda must be >= 0, got %g", lambda)
	}
	e.flush()
	f := &Fit{W: make([]float64, e.dpsi*e.dphi), DPsi: e.dpsi, DPhi: e.dphi, Lambda: lambda, N: e.n, pool: &e.pool}
	defer func() {
		if err != nil {
			f.Release() // the factors made before the failure, back to the pool
		}
	}()
	const what = "score matching"
	// Without weights (h(s') may be negative) each block of V is a sum of
	// outer products, one per transition in each entry (d_s per transition
	// in the general family's V): factor may skip its condition estimate.
	grams := 0
	if e.weights == nil {
		grams = e.n
	}
	switch {
	case e.constant:
		// V = c·I ⊗ G: one block c·G shared by every row.
		c, err := factor(&e.pool, e.blocks[0], e.dphi, e.constC, lambda, what, e.n, grams)
		if err != nil {
			return nil, err
		}
		f.blocks = rowBlocks(e.dpsi, e.dphi, func(int) *cholesky { return c }, nil)
	case e.sep != nil: // one block per row of W
		for k, blk := range e.blocks {
			c, err := factor(&e.pool, blk, e.dphi, 1, lambda, what, e.n, grams)
			if err != nil {
				return nil, err
			}
			f.blocks = append(f.blocks, fitBlock{off: k * e.dphi, n: e.dphi, c: c, s: 1})
		}
	case e.blk != nil:
		for i, blk := range e.blocks {
			o, n := e.off[i]*e.dphi, (e.off[i+1]-e.off[i])*e.dphi
			if j := e.alias[i]; j >= 0 {
				// The same sums: the same factorisation, computed once.
				f.blocks = append(f.blocks, fitBlock{off: o, n: n, c: f.blocks[j].c, s: 1})
				continue
			}
			c, err := factor(&e.pool, blk, n, 1, lambda, what, e.n, grams)
			if err != nil {
				return nil, err
			}
			f.blocks = append(f.blocks, fitBlock{off: o, n: n, c: c, s: 1})
		}
	default:
		d := e.dpsi * e.dphi
		c, err := factor(&e.pool, e.blocks[0], d, 1, lambda, what, e.n, grams*max(e.ds, 1))
		if err != nil {
			return nil, err
		}
		f.blocks = oneBlock(d, c)
	}
	if err := f.solveInto(e.b, f.W); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for i := range f.W {
		f.W[i] = -f.W[i]
	}
	if err := e.applyFloor(f); err != nil {
		return nil, err
	}
	return f, nil
}
