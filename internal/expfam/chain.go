package expfam

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/mcmc"
)

// This file samples the joint families that have no exact sampler by
// Markov chain Monte Carlo (package mcmc): the density at η is
// p(x | η) ∝ q(x) exp(<psi(x), η>), with gradient ∇ log q + J_ψᵀη from
// the family (Joint). The same code draws the true environment's next
// states, the learners' rollouts and smrl sample's draws.

// tilter is a Joint family that evaluates log q(x) + <psi(x), η> and its
// gradient in one pass (without the Jacobian).
type tilter interface {
	TiltedGrad(x, eta, grad []float64) float64
}

// Tilted is the target of the chains: x ↦ log q(x) + <psi(x), η> of a
// Joint family at η (Eta, which the caller may change between chains).
// It is an mcmc.Target, not safe for concurrent use.
type Tilted struct {
	J        Joint
	Eta      []float64
	t        tilter
	psi, jac []float64
}

// NewTilted returns the target of j at eta (kept, not copied).
func NewTilted(j Joint, eta []float64) *Tilted {
	return NewTiltedScratch(j, eta, nil)
}

// TiltScratch is the psi and Jacobian buffers of a Tilted; targets that
// one goroutine evaluates in turn may share one (NewTiltedScratch), so n
// chains need not hold n Jacobians.
type TiltScratch struct{ psi, jac []float64 }

// NewTiltScratch returns buffers for targets of j.
func NewTiltScratch(j Joint) *TiltScratch {
	return &TiltScratch{psi: make([]float64, j.StatDim()), jac: make([]float64, j.StateDim()*j.StatDim())}
}

// NewTiltedScratch is NewTilted with the buffers sc (nil: its own).
func NewTiltedScratch(j Joint, eta []float64, sc *TiltScratch) *Tilted {
	tt := &Tilted{J: j, Eta: eta}
	tt.t, _ = j.(tilter)
	if tt.t == nil {
		if sc == nil {
			sc = NewTiltScratch(j)
		}
		tt.psi, tt.jac = sc.psi, sc.jac
	}
	return tt
}

// Dim is d_s.
func (tt *Tilted) Dim() int { return tt.J.StateDim() }

// LogDensityGrad returns log q(x) + <psi(x), η> and writes its gradient.
func (tt *Tilted) LogDensityGrad(x, grad []float64) float64 {
	if tt.t != nil {
		return tt.t.TiltedGrad(x, tt.Eta, grad)
	}
	l := tt.J.GradLogBase(x, grad)
	tt.J.PsiJac(x, tt.psi, tt.jac)
	dpsi := len(tt.psi)
	for k, e := range tt.Eta {
		l += e * tt.psi[k]
	}
	for i := range grad {
		row := tt.jac[i*dpsi : (i+1)*dpsi]
		grad[i] += Dot(row, tt.Eta)
	}
	return l
}

// MCMC is a Joint family made a Distribution by Markov chains with the
// settings S (sampler: section): Sample runs a fresh chain from the origin
// (S.Warmup transitions, the step size adapted there when S.StepSize is 0,
// then S.Steps), Mean averages such a chain, LogPartition estimates Z by
// importance sampling. A Stepper of a model of this family instead starts
// a short chain of S.Steps transitions at the previous state
// (NewWarmChain). Sampling state-free like this costs a warm-up per draw;
// the draws of smrl sample batch their chains instead.
type MCMC struct {
	Joint
	S mcmc.Settings
}

// NewMCMC returns j sampled by chains with settings s (defaults filled
// in); it fails when s cannot run.
func NewMCMC(j Joint, s mcmc.Settings) (*MCMC, error) {
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &MCMC{Joint: j, S: s}, nil
}

// Structure returns the family whose structure (Separable, Blocked, a
// constant C) the estimators exploit: for a family sampled by MCMC the
// Joint family it samples (an embedded interface hides the rest of its
// methods), else f itself.
func Structure(f Family) Family {
	if m, ok := f.(*MCMC); ok {
		return m.Joint
	}
	return f
}

// SamplerSettings are the chains' settings (sampler: section), for the
// chains of maximum likelihood by MCMC.
func (m *MCMC) SamplerSettings() mcmc.Settings { return m.S }

// forward is a rand.Source that draws from the *rand.Rand it points at,
// so a chain built once can draw from the stream of each call.
type forward struct{ r *rand.Rand }

func (f *forward) Uint64() uint64 { return f.r.Uint64() }

// fresh runs a new chain at eta from the origin through its warm-up,
// drawing from rng; it returns the chain and its target.
func (m *MCMC) fresh(eta []float64, rng *rand.Rand) (*mcmc.Chain, error) {
	c, err := mcmc.NewChain(NewTilted(m.Joint, eta), m.S, &forward{rng})
	if err != nil {
		return nil, err
	}
	if err := c.Start(make([]float64, m.StateDim())); err != nil {
		return nil, err
	}
	if err := c.Warmup(); err != nil {
		return nil, err
	}
	return c, nil
}

// Sample draws s' by a fresh chain: warm-up, then S.Steps transitions. A
// chain that diverges writes NaN into out (the callers refuse non-finite
// states, naming the state).
func (m *MCMC) Sample(eta []float64, rng *rand.Rand, out []float64) {
	if err := m.SampleErr(eta, rng, out); err != nil {
		nan(out[:m.StateDim()])
	}
}

// SampleErr is Sample with the chain's error (an mcmc.DivergenceError).
func (m *MCMC) SampleErr(eta []float64, rng *rand.Rand, out []float64) error {
	c, err := m.fresh(eta, rng)
	if err != nil {
		return err
	}
	for range m.S.Steps {
		if err := c.Step(); err != nil {
			return err
		}
	}
	copy(out, c.State())
	return nil
}

func nan(x []float64) {
	for i := range x {
		x[i] = math.NaN()
	}
}

// etaSeed is a seed that is a function of η alone, so that Mean and
// LogPartition, which take no stream, are deterministic.
func etaSeed(eta []float64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, e := range eta {
		h ^= math.Float64bits(e)
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	return h
}

// Mean writes the average of S.Steps states of a fresh chain (after its
// warm-up), seeded by η: E[s' | η] within its Monte Carlo error, the same
// for the same η. A chain that diverges writes NaN.
func (m *MCMC) Mean(eta, out []float64) {
	d := m.StateDim()
	c, err := m.fresh(eta, rand.New(rand.NewPCG(etaSeed(eta), 1)))
	if err != nil {
		nan(out[:d])
		return
	}
	clear(out[:d])
	for range m.S.Steps {
		if err := c.Step(); err != nil {
			nan(out[:d])
			return
		}
		for i, v := range c.State() {
			out[i] += v
		}
	}
	for i := range out[:d] {
		out[i] /= float64(m.S.Steps)
	}
}

// logZDraws is the number of importance draws of LogPartition.
const logZDraws = 4000

// LogPartition estimates Z(η) by importance sampling (LogZ), seeded by η.
func (m *MCMC) LogPartition(eta []float64) (float64, error) {
	z, err := m.LogZ(eta, logZDraws, rand.New(rand.NewPCG(etaSeed(eta), 2)))
	return z.LogZ, err
}

// LogZ estimates Z(η) = log ∫ q(x) exp(<psi(x), η>) dx with its standard
// error by importance sampling with n draws: the proposal is a Gaussian of
// the mean and twice the covariance of 1000 states of a chain at η (wider
// than the target, so the weights have a finite variance). It fails with
// mcmc.ErrDegenerate when the weights' effective sample size is below n/20.
func (m *MCMC) LogZ(eta []float64, n int, rng *rand.Rand) (mcmc.LogZ, error) {
	d := m.StateDim()
	c, err := m.fresh(eta, rng)
	if err != nil {
		return mcmc.LogZ{}, err
	}
	const pilot = 1000
	draws := make([]float64, pilot*d)
	if err := c.Sample(pilot, 2, draws); err != nil {
		return mcmc.LogZ{}, err
	}
	mean := make([]float64, d)
	for r := range pilot {
		for i := range d {
			mean[i] += draws[r*d+i] / pilot
		}
	}
	cov := make([]float64, d*d)
	for r := range pilot {
		for i := range d {
			for j := range d {
				cov[i*d+j] += 2 * (draws[r*d+i] - mean[i]) * (draws[r*d+j] - mean[j]) / (pilot - 1)
			}
		}
	}
	q, err := mcmc.NewGaussian(mean, cov)
	if err != nil {
		return mcmc.LogZ{}, fmt.Errorf("the chain's draws at η = %.4g have a degenerate covariance: %w", eta, err)
	}
	return mcmc.ImportanceLogZ(NewTilted(m.Joint, eta), q, n, rng, float64(n)/20)
}

// WarmChain is a chain of a model's Stepper: each draw starts at the
// previous state and runs S.Steps transitions at the new η, with the step
// size adapted once, by a warm-up at the first draw's η (S.StepSize 0). It
// is not safe for concurrent use.
type WarmChain struct {
	m      *MCMC
	target *Tilted
	src    forward
	c      *mcmc.Chain
	tuned  bool
	// Strict makes a divergent transition write NaN into the draw (the
	// true environment: the runner then stops naming the state); otherwise
	// it is rejected and the chain stays (a learner's rollouts, whose
	// model may be poor early on).
	Strict bool
	// Err is the first error of a strict chain.
	Err     error
	meanPCG *rand.PCG
	meanRng *rand.Rand
	zero    []float64
}

// NewWarmChain returns a warm-started chain of m.
func (m *MCMC) NewWarmChain() *WarmChain {
	w := &WarmChain{m: m, target: NewTilted(m.Joint, make([]float64, m.StatDim()))}
	c, err := mcmc.NewChain(w.target, m.S, &w.src)
	if err != nil {
		panic(err) // NewMCMC validated the settings
	}
	w.c = c
	return w
}

// Draw writes a draw of s' ~ P(· | η) into out: S.Steps transitions of
// the chain from start (len d_s; the origin when nil).
func (w *WarmChain) Draw(eta, start []float64, rng *rand.Rand, out []float64) {
	if !w.begin(eta, start, rng, out) {
		return
	}
	for range w.m.S.Steps {
		if !w.step(out) {
			return
		}
	}
	copy(out, w.c.State())
}

// Mean writes the average of the S.Steps states of the chain started at
// start (as Draw) and seeded by η: the mean next state of rollout: mean
// within its Monte Carlo error, the same for the same η and start.
func (w *WarmChain) Mean(eta, start, out []float64) {
	d := w.m.StateDim()
	if w.meanPCG == nil {
		w.meanPCG = rand.NewPCG(0, 0)
		w.meanRng = rand.New(w.meanPCG)
	}
	w.meanPCG.Seed(etaSeed(eta), etaSeed(start))
	if !w.begin(eta, start, w.meanRng, out) {
		return
	}
	clear(out[:d])
	for range w.m.S.Steps {
		if !w.step(out) {
			return
		}
		for i, v := range w.c.State() {
			out[i] += v
		}
	}
	for i := range out[:d] {
		out[i] /= float64(w.m.S.Steps)
	}
}

// begin points the chain at η and rng and starts it at start (the origin
// when its length is not d_s), adapting its step at the first draw; false
// when that failed (out is then NaN and Err set).
func (w *WarmChain) begin(eta, start []float64, rng *rand.Rand, out []float64) bool {
	copy(w.target.Eta, eta)
	w.src.r = rng
	if len(start) != w.m.StateDim() {
		start = w.origin()
	}
	if err := w.c.Start(start); err != nil {
		w.fail(err, out)
		return false
	}
	if !w.tuned {
		w.tuned = true
		if err := w.c.Warmup(); err != nil {
			w.fail(err, out)
			return false
		}
	}
	return true
}

// step runs one transition; a divergence is rejected (the chain stays)
// unless Strict, where it, like any other error, fails the draw (false).
func (w *WarmChain) step(out []float64) bool {
	err := w.c.Step()
	if err == nil {
		return true
	}
	var de *mcmc.DivergenceError
	if !w.Strict && errors.As(err, &de) {
		return true
	}
	w.fail(err, out)
	return false
}

// origin returns the chain's zero state buffer.
func (w *WarmChain) origin() []float64 {
	if w.zero == nil {
		w.zero = make([]float64, w.m.StateDim())
	}
	return w.zero
}

func (w *WarmChain) fail(err error, out []float64) {
	if w.Err == nil {
		w.Err = err
	}
	nan(out[:w.m.StateDim()])
}
