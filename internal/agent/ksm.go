package agent

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Kernel score matching as a learner (issue 36, "where it matters in RL"):
// the ksm agent models each coordinate i of s' (or of s' − s with
// model.target: delta) by its own 1-D kernel exponential family on the
// model class's features φ(s, a),
//
//	P(x_i | s, a) ∝ exp(−x_i²/(2b_i²) + Σ_k η_ik k_σi(x_i, z_ik)),  η_i = W_i φ(s, a),
//
// m = ksm.centres centres z_ik per coordinate (expfam.KernelGrid), so W is
// (d_s·m)×d_phi, laid out as a product family's (coordinate blocks of m
// rows), and the coordinates are independent given (s, a), as in the sm
// agent's Gaussian product. Its own section ksm (not model.family) lets a
// config compare it with the sm agent's Gaussian family on the same
// features in one run: agents: [ksm, sm, oracle].
//
// Refit (every episode's end, all transitions so far): W_i by score
// matching of coordinate i, solved matrix-free by estimator.KernelSM
// (preconditioned CG, relative residual ksm.tol), at λ = ksm.lambda (the
// top-level lambda is the Gaussian learners'). The centres, σ_i and b_i
// are drawn from the fitted next states at the first refit and again
// whenever the number of transitions has doubled since the last draw
// (n = n₁, 2n₁, 4n₁, …: O(log n) cold fits); between draws they are fixed
// and CG starts from the previous Ŵ_i. A draw takes m distinct values of
// the column by a PCG permutation seeded by (ksm.seed, coordinate, draw
// number) — distinct, since clipped speeds repeat exact values and
// coinciding centres make score matching singular —, σ_i = ksm.bandwidth
// × the median pairwise distance of (the first 500 of) the column, b_i its
// standard deviation (at least 1e-6).
//
// Planning: rollouts step to the model's mean (planner.rollout: mean) or
// draw from it (sample), both by KernelGrid's fixed grid rule per
// coordinate (≤ 256 nodes: G·m multiply-adds and G exps per coordinate
// and step, beside the m·d_phi of η_i = W_i φ). The mean is what the
// Gaussian learner plans with too, so the two differ in planning only as
// far as their means differ; the kernel family's gain is its density
// (held-out log-likelihood), which rollouts to the mean do not use.
//
// ksm has no -ucb or -ps agents, no method of smrl estimate, no
// cross-validated λ and no standard errors (it refuses lambda: cv and
// stats.save_se); its Ŵ is not recorded in episodes.csv's W columns,
// which are the model class's (OwnFeatures).
var ksmEstimator = Estimator{Name: "ksm", AgentOnly: true, Uses: []string{"ksm"}, Keys: []config.KeySet{ksmKeySet}, Spec: ksmSpec,
	Looks: map[string]config.Look{"": {Color: [3]uint8{0, 158, 115}, Marker: "triangle", Rank: 3}},
	Doc:   "kernel score matching: a 1-D kernel exponential family per coordinate of s' on the model's features (section ksm)",
	// KernelSM keeps n·(d_phi + 2m) floats per coordinate; the bound
	// counts the preconditioner's eigenbases, d_phi² + m².
	Floats:      func(_, m, dphi int, _ bool) float64 { return float64(dphi*dphi + m*m) },
	New:         newKSMFitter,
	OwnFeatures: func(spec env.ModelSpec) expfam.Features { return spec.Features }}

// ksmKeys is the section ksm, declared by the ksm agent.
type ksmKeys struct {
	Centres   int     `mapstructure:"centres" yaml:"centres" doc:"m, the kernel centres per coordinate of s', drawn from the fitted next states"`
	Bandwidth float64 `mapstructure:"bandwidth" yaml:"bandwidth" doc:"σ_i = bandwidth × the median pairwise distance of coordinate i's fitted next states"`
	Lambda    float64 `mapstructure:"lambda" yaml:"lambda" doc:"ridge of kernel score matching relative to V's mean eigenvalue: λ_i = lambda·tr V_i/(m·d_phi) (the top-level lambda is the Gaussian learners')"`
	Tol       float64 `mapstructure:"tol" yaml:"tol" doc:"relative residual at which conjugate gradients stop"`
	Seed      uint64  `mapstructure:"seed" yaml:"seed" doc:"seed of the centres' subsample (with the coordinate and the draw number)"`
}

// ksmKeySet places ksm after sm.
var ksmKeySet = config.KeySet{At: "ksm", After: "sm", Defaults: &ksmKeys{Centres: 30, Bandwidth: 0.25, Lambda: 1, Tol: 1e-6, Seed: 1},
	Validate: func(c *config.Config, bad config.Bad) {
		k := config.Shared[ksmKeys](c, "ksm")
		if k.Centres < 1 || k.Centres > 1000 {
			bad("ksm.centres", "must lie in [1, 1000], got %d", k.Centres)
		}
		if !(k.Bandwidth > 0) || !finite(k.Bandwidth) || k.Bandwidth > 100 {
			bad("ksm.bandwidth", "must lie in (0, 100] (times the median distance of the next states), got %v", k.Bandwidth)
		}
		if !(k.Lambda > 0) || !finite(k.Lambda) {
			bad("ksm.lambda", "must be a finite number > 0, got %v", k.Lambda)
		}
		if !(k.Tol > 0) || k.Tol >= 1 {
			bad("ksm.tol", "must lie in (0, 1), got %v", k.Tol)
		}
		if c.LambdaCV && slices.Contains(c.Agents, "ksm") {
			bad("lambda", "lambda: cv is not supported by the ksm agent (its λ is ksm.lambda)")
		}
		if c.Stats.SaveSE && slices.Contains(c.Agents, "ksm") {
			bad("stats.save_se", "the ksm agent has no standard errors")
		}
	}}

// ksmSpec passes the section ksm to the model class (env.ModelSpec.Own).
func ksmSpec(c *config.Config, m *env.ModelSpec) {
	k := config.Shared[ksmKeys](c, "ksm")
	if m.Own == nil {
		m.Own = map[string]any{}
	}
	m.Own["ksm"] = k
}

// ksmFitter fits the kernel families of the ksm agent.
type ksmFitter struct {
	k      ksmKeys
	dphi   int
	coords []*expfam.KernelGrid
	sms    []*estimator.KernelSM // per coordinate, nil before the first draw
	w      [][]float64           // per coordinate Ŵ_i (m×d_phi)
	phi    []float64             // every transition's φ (n×d_phi)
	next   []float64             // and its target (n×d_s)
	drawn  int                   // transitions at the last draw of the centres
	draws  int                   // draws so far
	added  int                   // transitions added to sms
	trace  []float64             // per coordinate, tr V of the transitions added
}

// traceV returns Σ_t |ψ'(x_t)|² |φ_t|², the trace of score matching's
// V = Σ_t ψ'(x_t)ψ'(x_t)ᵀ ⊗ φ_t φ_tᵀ of a 1-D family over the transitions
// (x_t, φ_t): ksm's λ is ksm.lambda times its mean eigenvalue tr V/(m·d_phi),
// so that the ridge does not depend on the scale of the coordinate (V
// grows as 1/σ²·1/σ² of the bandwidth).
func traceV(f *expfam.Kernel, x, phi []float64, dphi int) float64 {
	g, xi := make([]float64, f.M), make([]float64, f.M)
	var tr float64
	for t, v := range x {
		f.ScoreTerms([]float64{v}, g, xi)
		var pp float64
		for _, p := range phi[t*dphi : (t+1)*dphi] {
			pp += p * p
		}
		var gg float64
		for _, v := range g {
			gg += v * v
		}
		tr += gg * pp
	}
	return tr
}

func newKSMFitter(s Setup) (*Fitter, error) {
	k, ok := s.Spec.Own["ksm"].(ksmKeys)
	if !ok {
		return nil, fmt.Errorf("ksm: the model class carries no section ksm")
	}
	ds := s.Spec.Family.StateDim()
	f := &ksmFitter{k: k, dphi: s.Dphi}
	cs := make([]expfam.Coord, ds)
	for i := range ds {
		scale := 1.0
		if i < len(s.Spec.Scales) && s.Spec.Scales[i] > 0 {
			scale = s.Spec.Scales[i]
		}
		g, err := expfam.NewKernelGrid(k.Centres, scale)
		if err != nil {
			return nil, fmt.Errorf("ksm.centres: %w", err)
		}
		f.coords = append(f.coords, g)
		cs[i] = g
	}
	dist, err := expfam.NewCoords(cs)
	if err != nil {
		return nil, err
	}
	f.sms = make([]*estimator.KernelSM, ds)
	f.w = make([][]float64, ds)
	f.trace = make([]float64, ds)
	unsupported := errors.New("not supported by the ksm agent")
	return &Fitter{Dist: dist, Add: f.add, N: func() int { return len(f.phi) / f.dphi },
		Fit: func(float64, []float64) (*estimator.Fit, error) { return f.fit() },
		CrossValidate: func(int, estimator.Data, int, []float64, []float64) (*estimator.CV, error) {
			return nil, fmt.Errorf("lambda: cv: %w", unsupported)
		},
		Sandwich: func(*estimator.Fit, int, estimator.Data, estimator.SEOptions) ([]float64, error) {
			return nil, fmt.Errorf("stats.save_se: %w", unsupported)
		}}, nil
}

func (f *ksmFitter) add(phi, next []float64) {
	f.phi = append(f.phi, phi[:f.dphi]...)
	f.next = append(f.next, next[:len(f.coords)]...)
}

// fit refits every coordinate on all transitions so far (see ksmEstimator).
func (f *ksmFitter) fit() (*estimator.Fit, error) {
	n := len(f.phi) / f.dphi
	ds, m := len(f.coords), f.k.Centres
	if n == 0 {
		return nil, fmt.Errorf("ksm: no transitions")
	}
	redraw := f.drawn == 0 || n >= 2*f.drawn
	from := f.added // the transitions the accumulators have not seen
	if redraw {
		from = 0
	}
	if redraw && n < m {
		return nil, fmt.Errorf("ksm.centres: %d centres but only %d transitions to draw them from", m, n)
	}
	col := make([]float64, n)
	for i := range ds {
		for t := range n {
			col[t] = f.next[t*ds+i]
		}
		if redraw {
			if err := f.draw(i, col); err != nil {
				return nil, err
			}
		}
		e := f.sms[i]
		x := [1]float64{}
		for t := from; t < n; t++ {
			x[0] = col[t]
			e.Add(f.phi[t*f.dphi:(t+1)*f.dphi], x[:])
		}
		f.trace[i] += traceV(f.coords[i].Fam, col[from:n], f.phi[from*f.dphi:n*f.dphi], f.dphi)
		lambda := f.k.Lambda * f.trace[i] / float64(m*f.dphi)
		w, err := e.Fit(lambda, f.w[i])
		if err != nil {
			return nil, fmt.Errorf("ksm: coordinate %d: %w", i, err)
		}
		f.w[i] = w
		if debugKSM {
			it, rr := e.Iterations()
			fmt.Println("ksm fit", n, i, it, rr, f.coords[i].Fam)
		}
	}
	if redraw {
		f.drawn, f.draws = n, f.draws+1
	}
	f.added = n
	out := &estimator.Fit{DPsi: ds * m, DPhi: f.dphi, Lambda: f.k.Lambda, N: n} // Lambda: the relative ksm.lambda
	for _, w := range f.w {
		out.W = append(out.W, w...)
	}
	return out, nil
}

// draw binds coordinate i's family to centres, bandwidth and base scale
// drawn from its column of targets, and starts its accumulator afresh.
func (f *ksmFitter) draw(i int, col []float64) error {
	m := f.k.Centres
	b := math.Max(stdDev(col), 1e-6)
	bw := estimator.DefaultBandwidths(col, 1) // med·2^{k/2}, k = −4…2: med is the fifth
	med := 1e-6
	if len(bw) == 7 && bw[4] > 0 {
		med = bw[4]
	}
	sigma := f.k.Bandwidth * med
	rng := rand.New(rand.NewPCG(f.k.Seed, uint64(i)<<32|uint64(f.draws)))
	z := make([]float64, 0, m)
	for _, t := range rng.Perm(len(col)) {
		if len(z) == m {
			break
		}
		if !slices.ContainsFunc(z, func(c float64) bool { return math.Abs(c-col[t]) <= 1e-6*sigma }) {
			z = append(z, col[t])
		}
	}
	if len(z) < m {
		return fmt.Errorf("ksm.centres: coordinate %d of the next states holds only %d distinct values, fewer than %d centres", i, len(z), m)
	}
	g := f.coords[i]
	if err := g.Bind(z, sigma, b); err != nil {
		return fmt.Errorf("ksm: coordinate %d: %w", i, err)
	}
	e := estimator.NewKernelSM(g.Fam, f.dphi)
	e.Tol, e.Workers = f.k.Tol, 1
	f.sms[i], f.w[i], f.trace[i] = e, nil, 0
	return nil
}

// stdDev is the standard deviation of xs about their mean.
func stdDev(xs []float64) float64 {
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var s2 float64
	for _, x := range xs {
		s2 += (x - mean) * (x - mean)
	}
	return math.Sqrt(s2 / float64(len(xs)))
}

var debugKSM = false
