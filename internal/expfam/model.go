package expfam

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Model is the transition model P_W(s' | s, a) of a distribution family
// with features phi and parameter W (d_psi×d_phi, row-major).
type Model struct {
	Dist Distribution
	Feat Features
	W    []float64
}

// NewModel checks that the dimensions of d, f and w agree.
func NewModel(d Distribution, f Features, w []float64) (*Model, error) {
	if d.StateDim() != f.StateDim() {
		return nil, fmt.Errorf("family %v has state dimension %d but features %v take %d", d, d.StateDim(), f, f.StateDim())
	}
	if want := d.StatDim() * f.Dim(); len(w) != want {
		return nil, fmt.Errorf("parameter W has %d entries, want d_psi×d_phi = %d×%d = %d", len(w), d.StatDim(), f.Dim(), want)
	}
	return &Model{Dist: d, Feat: f, W: w}, nil
}

// Eta computes η = W phi(s, a) into eta, using phi as scratch (len d_phi):
// each entry by Dot for d_phi < LongRow, by Dot4 from LongRow on.
func (m *Model) Eta(s, a, phi, eta []float64) {
	dphi := len(phi)
	long := dphi >= LongRow
	if f, ok := m.Feat.(*RFF); ok && long && f.etaVector(s, a, m.W, phi, eta) {
		return // Phi and Dot4 in one pass of the AVX2 kernel
	}
	m.Feat.Phi(s, a, phi)
	if long && dot4Rows(m.W, phi, eta) { // Dot4's partial sums, four lanes at a time
		return
	}
	for k := range eta {
		row := m.W[k*dphi : (k+1)*dphi]
		if long {
			eta[k] = Dot4(row, phi)
		} else {
			eta[k] = Dot(row, phi)
		}
	}
}

// maxFusedRows bounds the rows of W whose η the AVX2 kernel of random
// Fourier features sums in its cosine pass (RFF.etaVector; their partial
// sums live on the stack); Eta runs Phi and dot4Rows for more.
const maxFusedRows = 8

// LongRow is the d_phi from which Eta sums with four accumulators (Dot4):
// a single running sum waits on each addition, which dominates for long
// feature vectors (random Fourier features); short rows keep the plain
// left-to-right sum (Dot). A loop that computes η itself (the planner's
// specialised rollouts) makes the same choice with the same two kernels,
// so that its η is Eta's to the bit.
const LongRow = 16

// Dot returns Σ_j x_j y_j (len(y) ≥ len(x)) in one running sum, left to
// right: Eta's kernel for rows shorter than LongRow. It is small enough to
// be inlined.
func Dot(x, y []float64) float64 {
	y = y[:len(x)] // one bounds check, not one per term
	var e float64
	for j, xj := range x {
		e += xj * y[j]
	}
	return e
}

// Dot4 returns Σ_j x_j y_j (len(y) ≥ len(x)) summed in four interleaved
// partial sums, combined as (s0 + s1) + (s2 + s3), plus the tail: Eta's
// kernel for rows of LongRow entries or more.
func Dot4(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(x); j += 4 {
		s0 += x[j] * y[j]
		s1 += x[j+1] * y[j+1]
		s2 += x[j+2] * y[j+2]
		s3 += x[j+3] * y[j+3]
	}
	for ; j < len(x); j++ {
		s0 += x[j] * y[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// Stepper draws transitions from a model without allocating. It is not safe
// for concurrent use; make one per goroutine.
type Stepper struct {
	M        *Model
	phi, eta []float64
	// chain, for a family sampled by MCMC, draws s' by a short chain
	// started at the previous state s (a warm start; see WarmChain).
	chain *WarmChain
}

// NewStepper returns a Stepper for m.
func NewStepper(m *Model) *Stepper {
	st := &Stepper{M: m, phi: make([]float64, m.Feat.Dim()), eta: make([]float64, m.Dist.StatDim())}
	if mc, ok := m.Dist.(*MCMC); ok {
		st.chain = mc.NewWarmChain()
	}
	return st
}

// Strict makes the chain of a family sampled by MCMC write NaN at a
// divergent transition instead of rejecting it (the true environment's
// stepper: the runner refuses the non-finite state, naming it); it
// returns st.
func (st *Stepper) Strict() *Stepper {
	if st.chain != nil {
		st.chain.Strict = true
	}
	return st
}

// Step draws s' ~ P_W(· | s, a) into out.
func (st *Stepper) Step(s, a []float64, rng *rand.Rand, out []float64) {
	st.M.Eta(s, a, st.phi, st.eta)
	if st.chain != nil {
		st.chain.Draw(st.eta, s, rng, out)
		return
	}
	st.M.Dist.Sample(st.eta, rng, out)
}

// Density returns x ↦ P_W(x | s, a), normalised by exact quadrature once;
// 0 outside the family's support.
func (m *Model) Density(s, a []float64) (func(x []float64) float64, error) {
	return m.density(s, a, m.Dist.LogPartition)
}

// TabulatedDensity is Density normalised with the sampling table's log Z
// for a Product family (a cubic Hermite interpolant between exact rows,
// within about 1e-9 of the quadrature, tested in TestCumulantsAreDerivativesOfLogZ),
// and exactly otherwise: for figures, which draw many densities.
func (m *Model) TabulatedDensity(s, a []float64) (func(x []float64) float64, error) {
	p, ok := m.Dist.(*Product)
	if !ok {
		return m.Density(s, a)
	}
	return m.density(s, a, func(eta []float64) (float64, error) {
		var z float64
		for _, e := range eta[:p.D] {
			a, _, _, ok := p.T.Cumulants(e)
			if !ok {
				return 0, fmt.Errorf("%v at η = %g: %w", p.S, e, ErrNotNormalisable)
			}
			z += a
		}
		return z, nil
	})
}

func (m *Model) density(s, a []float64, logZ func([]float64) (float64, error)) (func(x []float64) float64, error) {
	eta := make([]float64, m.Dist.StatDim())
	m.Eta(s, a, make([]float64, m.Feat.Dim()), eta)
	z, err := logZ(eta)
	if err != nil {
		return nil, err
	}
	buf := make([]float64, m.Dist.StatDim())
	return func(x []float64) float64 {
		if !InSupport(m.Dist, x) {
			return 0 // outside a bounded support, where ψ may not be finite
		}
		return math.Exp(LogDensity(m.Dist, eta, x, z, buf))
	}, nil
}

// MeanStepper moves to the mean next state E[s' | s, a] of a model instead
// of drawing it: the "mean" rollouts of a planner. It draws nothing from
// the rng, and is not safe for concurrent use.
type MeanStepper struct {
	M        *Model
	phi, eta []float64
	chain    *WarmChain // a family sampled by MCMC: see Step
}

// NewMeanStepper returns a MeanStepper for m.
func NewMeanStepper(m *Model) *MeanStepper {
	st := &MeanStepper{M: m, phi: make([]float64, m.Feat.Dim()), eta: make([]float64, m.Dist.StatDim())}
	if mc, ok := m.Dist.(*MCMC); ok {
		st.chain = mc.NewWarmChain()
	}
	return st
}

// Step writes E[s' | s, a] into out; for a family sampled by MCMC, the
// average of a chain started at s (WarmChain.Mean), seeded by η.
func (st *MeanStepper) Step(s, a []float64, _ *rand.Rand, out []float64) {
	st.M.Eta(s, a, st.phi, st.eta)
	if st.chain != nil {
		st.chain.Mean(st.eta, s, out)
		return
	}
	st.M.Dist.Mean(st.eta, out)
}

// Deterministic reports that Step draws nothing: one rollout per candidate
// is as good as many.
func (*MeanStepper) Deterministic() bool { return true }
