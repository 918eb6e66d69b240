package agent

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Kernel score matching as a learner (issue 36, "where it matters in RL"):
// the ksm agent models each coordinate i of s' (or of s' − s with
// model.target: delta) as a location plus a residual whose law is a 1-D
// kernel exponential family, both on the model class's features φ(s, a):
//
//	x_i = μ_i(s, a) + r,  μ_i = w_iᵀφ(s, a),
//	P(r | s, a) ∝ exp(−r²/(2b_i²) + Σ_k η_ik k_σi(r, z_ik)),  η_i = W_i φ(s, a),
//
// m = ksm.centres centres z_ik per coordinate (expfam.KernelGrid). The
// model's W is (d_s·(m+1))×d_phi, laid out as a product family's
// (coordinate block i: the row w_i, then W_i's m rows; shiftedKernel),
// and the coordinates are independent given (s, a), as in the sm agent's
// Gaussian product. Why a location: on the pendulum the noise-free step
// moves θ̇ by up to ±1 across states while the torque noise's modes lie
// ±0.225 around it with sd 0.045; a kernel family on fixed centres with
// η linear in φ would have to tile the whole range at the noise's
// resolution and move its mass with (s, a) (tried: with the same features
// and centres, bandwidth 0.25 and relative ridge 1, its held-out
// log-likelihood of θ̇ was −0.38 nats per transition, below the best
// Gaussian's 0.05, and its return did not improve over 8 episodes),
// whereas the residual's law hardly depends on the state. Its own section
// ksm (not model.family) lets a config compare it with the sm agent's
// Gaussian family on the same
// features in one run: agents: [ksm, sm, oracle].
//
// Refit (every episode's end, all transitions so far): w_i by ridge
// regression at the top-level lambda (Gaussian score matching at σ = 1:
// the sm agent's own mean on the same data), then W_i by score matching
// of the residuals r_t = x_ti − w_iᵀφ_t, solved matrix-free by
// estimator.KernelSM (preconditioned CG to relative residual ksm.tol) at
// λ_i = ksm.lambda·tr V_i/(m·d_phi), a ridge relative to V's mean
// eigenvalue (V scales as σ⁻⁴), warm-started from the previous Ŵ_i. The
// centres, σ_i and b_i are drawn from the residuals at the first refit
// with at least m distinct residuals per coordinate (before it, as after
// a short first episode, the model is the ridge location with each
// residual the base Gaussian: W_i = 0), and again whenever the number of transitions has doubled since the last
// draw (n = n₁, 2n₁, 4n₁, …), fixed in between. A draw takes m distinct
// residuals by a PCG permutation seeded by (ksm.seed, coordinate, draw
// number) — distinct, since coinciding centres make score matching
// singular —, σ_i = ksm.bandwidth × the median pairwise distance of (the
// first 500 of) the residuals, b_i their standard deviation (≥ 1e-6).
//
// Planning: rollouts step to the model's mean μ_i + E[r | η_i]
// (planner.rollout: mean) or draw from it (sample), by KernelGrid's fixed
// grid rule per coordinate (≤ KernelGridNodes nodes: each centre's
// multiply-adds over its band of nodes, and G exps per coordinate and
// step, beside the (m+1)·d_phi of η_i).
// The Gaussian learner plans with its mean too, so the two differ in
// planning only as far as their means differ; the kernel family's gain is
// its density (held-out log-likelihood), which rollouts to the mean use
// only through E[r | η].
//
// ksm has no -ucb or -ps agents, no method of smrl estimate, no
// cross-validated λ and no standard errors (it refuses lambda: cv and
// stats.save_se); its Ŵ is not recorded in episodes.csv's W columns,
// which are the model class's (OwnFeatures).
var ksmEstimator = Estimator{Name: "ksm", AgentOnly: true, Uses: []string{"ksm"}, Keys: []config.KeySet{ksmKeySet}, Spec: ksmSpec,
	Doc: "kernel score matching: a 1-D kernel exponential family per coordinate of s' on the model's features (section ksm)",
	// Magenta, far from sm's blue (ΔE 72 in CIELAB; the nearest registered
	// colour, sm-ucb's pink, at 36), with sm's circle hollow: the kernel-family learner beside the
	// Gaussian sm in configs/pendulum-bimodal.yaml's figures.
	Looks: map[string]config.Look{"": {Color: [3]uint8{160, 0, 160}, Marker: "ring", Rank: 11}},
	// KernelSM keeps n·(d_phi + 2m) floats per coordinate; the bound
	// counts its preconditioners' matrices (estimator.KernelSMFloats).
	Floats:      func(_, m, dphi int, _ bool) float64 { return estimator.KernelSMFloats(m, dphi) },
	New:         newKSMFitter,
	NoModelFile: "its model (a ridge location and a kernel family per coordinate, whose centres, bandwidth and base scale are drawn during the run) has no model-file format: smrl estimate --model and init_model read the W of sm, lds and mle only; drop ksm from agents to save the others' models",
	OwnFeatures: func(spec env.ModelSpec) expfam.Features { return spec.Features }}

// ksmKeys is the section ksm, declared by the ksm agent.
type ksmKeys struct {
	Centres   int     `mapstructure:"centres" yaml:"centres" doc:"m, the kernel centres per coordinate of s' (or s' − s), drawn from the residuals about the ridge mean"`
	Bandwidth float64 `mapstructure:"bandwidth" yaml:"bandwidth" doc:"σ_i = bandwidth × the median pairwise distance of coordinate i's residuals"`
	Lambda    float64 `mapstructure:"lambda" yaml:"lambda" doc:"ridge of kernel score matching relative to V's mean eigenvalue: λ_i = lambda·tr V_i/(m·d_phi) (the top-level lambda is the Gaussian learners')"`
	Tol       float64 `mapstructure:"tol" yaml:"tol" doc:"relative residual at which conjugate gradients stop"`
	Seed      uint64  `mapstructure:"seed" yaml:"seed" doc:"seed of the centres' subsample (with the coordinate and the draw number)"`
}

// ksmKeySet places ksm after sm.
var ksmKeySet = config.KeySet{At: "ksm", After: "sm", Defaults: &ksmKeys{Centres: 30, Bandwidth: 0.3, Lambda: 10, Tol: 1e-6, Seed: 1},
	Validate: func(c *config.Config, bad config.Bad) {
		k := config.Shared[ksmKeys](c, "ksm")
		if k.Centres < 1 || k.Centres > 1000 {
			bad("ksm.centres", "must lie in [1, 1000], got %d", k.Centres)
		}
		if !(k.Bandwidth >= 1e-3 && k.Bandwidth <= 100) {
			bad("ksm.bandwidth", "must lie in [0.001, 100] (times the median distance of the next states), got %v", k.Bandwidth)
		}
		if !(k.Lambda >= 1e-10 && k.Lambda <= 1e10) {
			bad("ksm.lambda", "must lie in [1e-10, 1e10] (relative to V's mean eigenvalue), got %v", k.Lambda)
		}
		if !(k.Tol >= 1e-12 && k.Tol < 1) {
			bad("ksm.tol", "must lie in [1e-12, 1), got %v", k.Tol)
		}
		if c.LambdaCV && slices.Contains(c.Agents, "ksm") {
			bad("lambda", "lambda: cv is not supported by the ksm agent (its λ is ksm.lambda)")
		} else if c.Lambda <= 0 && slices.Contains(c.Agents, "ksm") {
			bad("lambda", "the ksm agent's ridge location solves (Σ φφᵀ + λI) w = Σ φ x, which needs lambda > 0 while it has fewer transitions than features, got %v", c.Lambda)
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
	m.Own["ksm"] = ksmSettings{ksmKeys: k, Ridge: c.Lambda}
}

// ksmSettings is what the ksm fitter reads of a config: the section ksm
// and the top-level lambda, the ridge of its location.
type ksmSettings struct {
	ksmKeys
	Ridge float64
}

// ksmFitter fits the ksm agent's model (see ksmEstimator).
type ksmFitter struct {
	k      ksmKeys
	ridge  float64
	dphi   int
	coords []*shiftedKernel
	gram   []float64   // Σ φ φᵀ (d_phi×d_phi)
	rhs    []float64   // Σ φ xᵀ (d_phi×d_s)
	w      [][]float64 // per coordinate, the kernel part's Ŵ_i (m×d_phi)
	loc    [][]float64 // per coordinate, the location's row w_i (d_phi)
	phi    []float64   // every transition's φ (n×d_phi)
	next   []float64   // and its target (n×d_s)
	drawn  int         // transitions at the last draw of the centres
	draws  int         // draws so far
}

func newKSMFitter(s Setup) (*Fitter, error) {
	k, ok := s.Spec.Own["ksm"].(ksmSettings)
	if !ok {
		return nil, fmt.Errorf("ksm: the model class carries no section ksm")
	}
	ds := s.Spec.Family.StateDim()
	f := &ksmFitter{k: k.ksmKeys, ridge: k.Ridge, dphi: s.Dphi, gram: make([]float64, s.Dphi*s.Dphi), rhs: make([]float64, s.Dphi*ds)}
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
		f.coords = append(f.coords, &shiftedKernel{g})
		cs[i] = f.coords[i]
	}
	dist, err := expfam.NewCoords(cs)
	if err != nil {
		return nil, err
	}
	f.w = make([][]float64, ds)
	f.loc = make([][]float64, ds)
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
	ds := len(f.coords)
	f.next = append(f.next, next[:ds]...)
	for a, pa := range phi[:f.dphi] {
		row := f.gram[a*f.dphi : (a+1)*f.dphi]
		for b, pb := range phi[:f.dphi] {
			row[b] += pa * pb
		}
		for i, x := range next[:ds] {
			f.rhs[a*ds+i] += pa * x
		}
	}
}

// fit refits every coordinate on all transitions so far: the locations by
// ridge regression (Gaussian score matching at σ = 1, the sm agent's
// estimate), then each coordinate's kernel family on its residuals.
func (f *ksmFitter) fit() (*estimator.Fit, error) {
	n := len(f.phi) / f.dphi
	ds, m := len(f.coords), f.k.Centres
	if n == 0 {
		return nil, fmt.Errorf("ksm: no transitions")
	}
	redraw := f.drawn == 0 || n >= 2*f.drawn
	if err := f.fitLocations(); err != nil {
		return nil, err
	}
	res := make([][]float64, ds)
	for i := range ds {
		res[i] = make([]float64, n)
		for t := range n {
			res[i][t] = f.next[t*ds+i] - expfam.Dot(f.loc[i], f.phi[t*f.dphi:(t+1)*f.dphi])
		}
	}
	if redraw {
		drew, err := f.redraw(res)
		switch {
		case err != nil:
			return nil, err
		case !drew && f.drawn == 0:
			// Fewer than m distinct residuals before the first draw (a
			// short first episode, an early end): the ridge location
			// alone until a later refit can draw them.
			return f.locationOnly(n), nil
		case !drew:
			redraw = false // keep the centres of the last draw
		}
	}
	for i := range ds {
		res := res[i]
		fam := f.coords[i].g.Fam
		e := estimator.NewKernelSM(fam, f.dphi)
		e.Tol, e.Workers = f.k.Tol, 1
		x := [1]float64{}
		for t, r := range res {
			x[0] = r
			e.Add(f.phi[t*f.dphi:(t+1)*f.dphi], x[:])
		}
		lambda := f.k.Lambda * e.TraceV() / float64(m*f.dphi) // relative to V's mean eigenvalue (V grows as 1/σ⁴)
		w, err := e.Fit(lambda, f.w[i])                       // from the previous Ŵ_i: the residuals moved little
		if errors.Is(err, estimator.ErrNotConverged) || errors.Is(err, estimator.ErrSingular) {
			// The settings' doing (exit 2), as smrl estimate reports it.
			return nil, errs.Invalid(fmt.Errorf("ksm.lambda, ksm.tol: coordinate %d: %w (a larger ksm.lambda or ksm.tol)", i, err))
		}
		if err != nil {
			return nil, fmt.Errorf("ksm: coordinate %d: %w", i, err)
		}
		f.w[i] = w
	}
	if redraw {
		f.drawn, f.draws = n, f.draws+1
	}
	return f.model(n), nil
}

// model lays out the fitted Ŵ: coordinate block i is the location's row
// w_i, then the kernel part's W_i (zero before the first draw).
func (f *ksmFitter) model(n int) *estimator.Fit {
	ds, m := len(f.coords), f.k.Centres
	out := &estimator.Fit{DPsi: ds * (m + 1), DPhi: f.dphi, Lambda: f.k.Lambda, N: n} // Lambda: the relative ksm.lambda
	for i := range ds {
		out.W = append(out.W, f.loc[i]...)
		if f.w[i] == nil {
			out.W = append(out.W, make([]float64, m*f.dphi)...)
			continue
		}
		out.W = append(out.W, f.w[i]...)
	}
	return out
}

// locationOnly is the fit before the first draw of the centres: the ridge
// locations, each residual the base measure's Gaussian (W_i = 0).
func (f *ksmFitter) locationOnly(n int) *estimator.Fit {
	for i := range f.w {
		f.w[i] = nil
	}
	return f.model(n)
}

// fitLocations solves (Σ φφᵀ + λI) w_i = Σ φ x_i for every coordinate
// (λ: the top-level lambda).
func (f *ksmFitter) fitLocations() error {
	d, ds := f.dphi, len(f.coords)
	a := mat.NewSymDense(d, nil)
	for r := range d {
		for c := r; c < d; c++ {
			v := f.gram[r*d+c]
			if r == c {
				v += f.ridge
			}
			a.SetSym(r, c, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return errs.Invalid(fmt.Errorf("lambda: ksm's location: Σ φφᵀ + λI is not positive definite (λ = %v): a larger lambda", f.ridge))
	}
	var sol mat.Dense
	if err := ch.SolveTo(&sol, mat.NewDense(d, ds, append([]float64(nil), f.rhs...))); err != nil {
		return fmt.Errorf("ksm's location: %w", err)
	}
	for i := range ds {
		f.loc[i] = mat.Col(nil, i, &sol)
	}
	return nil
}

// redraw binds every coordinate to centres drawn anew from its residuals
// res[i], or binds none (false) when a coordinate holds fewer than m
// distinct ones.
func (f *ksmFitter) redraw(res [][]float64) (bool, error) {
	centres := make([][]float64, len(res))
	for i, col := range res {
		if centres[i] = f.pick(i, col); centres[i] == nil {
			return false, nil
		}
	}
	for i, col := range res {
		if err := f.bind(i, col, centres[i]); err != nil {
			return false, err
		}
	}
	return true, nil
}

// pick returns m distinct residuals of coordinate i as its centres, by a
// PCG permutation seeded by (ksm.seed, i, the draw number), or nil when
// the column holds fewer than m distinct values (within 1e-6 of its
// bandwidth: coinciding centres make score matching singular).
func (f *ksmFitter) pick(i int, col []float64) []float64 {
	m := f.k.Centres
	sigma := f.bandwidth(col)
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
		return nil
	}
	return z
}

// bandwidth is σ_i = ksm.bandwidth × the median pairwise distance of the
// residuals col (1e-6 when that is 0).
func (f *ksmFitter) bandwidth(col []float64) float64 {
	bw := estimator.DefaultBandwidths(col, 1) // med·2^{k/2}, k = −4…2: med is the fifth
	med := 1e-6
	if len(bw) == 7 && bw[4] > 0 {
		med = bw[4]
	}
	return f.k.Bandwidth * med
}

// bind binds coordinate i's family to the centres z, the bandwidth and a
// base scale drawn from its residuals col, and drops its previous Ŵ_i.
func (f *ksmFitter) bind(i int, col, z []float64) error {
	b := math.Max(estimator.StdOf(col, 1), 1e-6)
	if err := f.coords[i].g.Bind(z, f.bandwidth(col), b); err != nil {
		if errors.Is(err, expfam.ErrKernelFamily) { // the grid rule cannot resolve σ: too small a ksm.bandwidth
			return errs.Invalid(fmt.Errorf("ksm.bandwidth: coordinate %d: %w", i, err))
		}
		return fmt.Errorf("ksm: coordinate %d: %w", i, err)
	}
	f.w[i] = nil
	return nil
}

// shiftedKernel is one coordinate of the ksm agent's model: x = μ + r with
// μ = η_0 (the location, w_i·φ) and r from the 1-D kernel family at
// η_1…η_m (expfam.KernelGrid), so
//
//	log p(x | η) = log q(x − η_0) + <psi(x − η_0), η_1…m> − log Z(η_1…m).
//
// It is not an exponential family in x jointly (η_0 moves the kernels),
// so Psi, LogQ and Score are the kernel part's at location 0 (η_0
// contributes no statistic: Psi's first entry is 0), and Cumulants is
// not defined; Mean, Sample, LogPartition and LogDensity are exact for
// the shifted law (up to KernelGrid's grid rule).
type shiftedKernel struct{ g *expfam.KernelGrid }

func (s *shiftedKernel) String() string         { return "shifted " + s.g.String() }
func (s *shiftedKernel) StatDim() int           { return s.g.StatDim() + 1 }
func (s *shiftedKernel) LogQ(x float64) float64 { return s.g.LogQ(x) }
func (s *shiftedKernel) Psi(x float64, out []float64) {
	out[0] = 0
	s.g.Psi(x, out[1:])
}
func (s *shiftedKernel) Score(x float64, d, xi []float64) {
	d[0], xi[0] = 0, 0
	s.g.Score(x, d[1:], xi[1:])
}
func (s *shiftedKernel) Sample(eta []float64, rng *rand.Rand) float64 {
	return eta[0] + s.g.Sample(eta[1:], rng)
}
func (s *shiftedKernel) Mean(eta []float64) float64 { return eta[0] + s.g.Mean(eta[1:]) }
func (s *shiftedKernel) LogPartition(eta []float64) (float64, error) {
	return s.g.LogPartition(eta[1:])
}
func (s *shiftedKernel) Cumulants(_, _, _ []float64) (float64, bool) { return 0, false }

// LogDensity returns log p(x | η) (exact: Kernel's quadrature for Z).
func (s *shiftedKernel) LogDensity(x float64, eta []float64) (float64, error) {
	lz, err := s.g.LogPartition(eta[1:])
	if err != nil {
		return 0, err
	}
	r := x - eta[0]
	psi := make([]float64, s.g.StatDim())
	s.g.Psi(r, psi)
	l := s.g.LogQ(r) - lz
	for k, p := range psi {
		l += p * eta[1+k]
	}
	return l, nil
}
