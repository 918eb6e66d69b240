package estimator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// MCMCOptions are the knobs of MCMCMLE. The zero value of each field
// means its default.
type MCMCOptions struct {
	// Sampler runs the persistent chains (mcmc.Settings; its Warmup is
	// the pilot chains' warm-up).
	Sampler mcmc.Settings
	// Seed keys the chains' streams: chain t draws from PCG(Seed, t).
	Seed uint64
	// Draws is the number of transitions of every chain per iteration
	// (default 5).
	Draws int
	// NewtonIter is the number of full preconditioned steps before the
	// averaging phase (default 5).
	NewtonIter int
	// MinAverage is the fewest iterations of the averaging phase before
	// the stopping rule is tried (default 20); MaxIter bounds all
	// iterations (default 1000).
	MinAverage, MaxIter int
	// Tol bounds the Monte Carlo standard error of every entry of the
	// averaged W relative to its statistical standard error (default 0.1).
	Tol float64
	// Pilots is the number of chains that warm up (default 4); the others
	// take the pilots' median step size and mean inverse mass.
	Pilots int
	// Workers runs the chains on that many goroutines (default 1); the
	// result does not depend on it.
	Workers int
}

func (o MCMCOptions) withDefaults() MCMCOptions {
	o.Sampler = o.Sampler.WithDefaults()
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Draws, 5)
	def(&o.NewtonIter, 5)
	def(&o.MinAverage, 20)
	def(&o.MaxIter, 1000)
	def(&o.Pilots, 4)
	def(&o.Workers, 1)
	if o.Tol == 0 {
		o.Tol = 0.1
	}
	return o
}

// MCMCReport describes the last fit of an MCMCMLE.
type MCMCReport struct {
	// Iterations run, and whether the stopping rule held (else MaxIter).
	Iterations int
	Converged  bool
	// Chi2 is Σ_j (δ̄_j/se_j)² of the averaged preconditioned gradient at
	// the end, against the bound p + 2√(2p) (p = d_psi·d_phi).
	Chi2, Chi2Bound float64
	// MCRatio is the largest Monte Carlo standard error of an entry of W
	// over its statistical standard error.
	MCRatio float64
	// StepSize is the chains' shared step size at the start, AcceptRate
	// their mean acceptance rate.
	StepSize, AcceptRate float64
	// Halvings counts the halvings of a chain's step size after a
	// divergent transition, summed over the chains (see stepShrinking).
	Halvings int
	// ExactInformation tells whether the fit's confidence block is the
	// observed information Σ_t Ĉ_t ⊗ phi_t phi_tᵀ + λI (true) or its
	// Kronecker approximation (too large a problem).
	ExactInformation bool
	// Seconds is the wall time of the fit (its CPU time with Workers 1).
	Seconds float64
}

// MCMCMLE is maximum likelihood for a joint family whose log-partition has
// no closed form: stochastic approximation with expectations E_η[psi] from
// persistent Markov chains, one per transition. It keeps every transition.
// It is not safe for concurrent use.
type MCMCMLE struct {
	fam            expfam.Joint
	ds, dpsi, dphi int
	phi, psi, next []float64
	opt            MCMCOptions
	// Report describes the last Fit.
	Report MCMCReport
	// last is the last fit, with the chains' averaged means of psi
	// (n×d_psi) and the preconditioner it ended with: the sandwich's
	// ingredients.
	last     *Fit
	lastMean []float64
	lastPre  *kronPre
	lastInfo *cholesky // the exact information, when the fit has it
}

// NewMCMCMLE returns an empty estimator for fam and d_phi features.
func NewMCMCMLE(fam expfam.Joint, dphi int, opt MCMCOptions) (*MCMCMLE, error) {
	opt = opt.withDefaults()
	if err := opt.Sampler.Validate(); err != nil {
		return nil, err
	}
	if opt.Draws < 2 || opt.NewtonIter < 0 || opt.MinAverage < 2 || opt.MaxIter < opt.NewtonIter+opt.MinAverage || !(opt.Tol > 0) || opt.Pilots < 1 {
		return nil, fmt.Errorf("MCMC maximum likelihood: options %+v cannot run", opt)
	}
	return &MCMCMLE{fam: fam, ds: fam.StateDim(), dpsi: fam.StatDim(), dphi: dphi, opt: opt}, nil
}

// N is the number of transitions added.
func (e *MCMCMLE) N() int { return len(e.phi) / e.dphi }

// Add stores one transition.
func (e *MCMCMLE) Add(phi, next []float64) {
	e.phi = append(e.phi, phi[:e.dphi]...)
	e.next = append(e.next, next[:e.ds]...)
	n := len(e.psi)
	e.psi = slices.Grow(e.psi, e.dpsi)[:n+e.dpsi]
	e.fam.Psi(next, e.psi[n:])
}

// Fit maximises the penalised conditional log-likelihood
//
//	ℓ(W) = Σ_t <psi(s'_t), W phi_t> − Z(W phi_t) − λ/2 |W|_F²,
//	∇ℓ  = Σ_t (psi(s'_t) − E_{η_t}[psi]) phi_tᵀ − λW,   η_t = W phi_t,
//
// by stochastic approximation. Chain t samples P(· | η_t), started at s'_t
// and kept from one iteration to the next (persistent); each iteration
// runs Draws transitions of every chain at the current W, estimates
// E_{η_t}[psi] by their mean m̂_t and the gradient Ĝ by the sum above, and
// steps W ← W + a_k H⁻¹Ĝ, preconditioned by the Fisher information under
// a pooled covariance, H = C̄ ⊗ Σ_t phi_t phi_tᵀ + λI (exact when
// Cov_η[psi] does not depend on η, as for a Gaussian; C̄ is the chains'
// pooled within-chain covariance of psi over the fit's draws). a_k = ½,
// ¾, 1, 1, … for NewtonIter iterations, then a_k = j^(−0.6) in the j-th
// iteration of the averaging phase, whose iterates are averaged
// (Polyak–Ruppert): W̄.
//
// Stopping rule, tried every 5 iterations after MinAverage averaging
// iterations: with δ_k = H⁻¹Ĝ_k, δ̄ their mean over the averaging phase
// and se_j = sd(δ_j)/√ESS_j the Monte Carlo standard error of entry j of
// δ̄ (and of W̄; ESS_j of the series δ_j by mcmc.ESS, since persistent
// chains make successive δ_k correlated), stop when the
// averaged gradient is within its Monte Carlo error of zero,
// Σ_j (δ̄_j/se_j)² <= p + 2√(2p) (a χ²_p's mean plus two sds), and the
// Monte Carlo error is small beside the statistical one, se_j <= Tol·σ_j
// with σ_j² = (H⁻¹)_jj. Else it stops at MaxIter, with Report.Converged
// false. start, when not nil, is the first W (the score-matching estimate,
// say); otherwise W starts at score matching's own fit at λ.
//
// The chains' step size is adapted once, at the first W. When W moves to
// where the tilted density of a transition is much steeper (n small
// beside d_psi·d_phi and λ small: the MLE may put |η_t| in the tens), a
// transition of that chain exceeds the energy-error bound; the chain then
// halves its own step size and retries (stepShrinking; Report.Halvings).
// A chain whose log density or gradient is not finite, or that still
// diverges after maxHalvings halvings, fails the fit with the chain's
// mcmc.ErrDiverged, naming the transition and its η_t. λ = 0 with
// features that do not span R^{d_phi} fails with ErrSingular.
func (e *MCMCMLE) Fit(lambda float64, start []float64) (*Fit, error) {
	if lambda < 0 {
		return nil, fmt.Errorf("MCMC maximum likelihood: lambda must be >= 0, got %g", lambda)
	}
	begin := time.Now()
	defer func() { e.Report.Seconds = time.Since(begin).Seconds() }()
	n, p := e.N(), e.dpsi*e.dphi
	if n == 0 {
		return nil, fmt.Errorf("MCMC maximum likelihood: no transitions: %w", ErrSingular)
	}
	w := make([]float64, p)
	if start != nil {
		copy(w, start)
	} else {
		sm, err := e.smStart(lambda)
		if err != nil {
			return nil, fmt.Errorf("MCMC maximum likelihood: the score-matching start: %w", err)
		}
		copy(w, sm)
	}
	pre, err := newKronPre(e.phi, n, e.dphi, e.dpsi, lambda)
	if err != nil {
		return nil, err
	}
	run, err := e.newRun(w)
	if err != nil {
		return nil, err
	}
	return e.iterate(run, pre, w, lambda)
}

// iterate runs the stochastic approximation from w (see Fit).
func (e *MCMCMLE) iterate(r *mleRun, pre *kronPre, w []float64, lambda float64) (*Fit, error) {
	o := e.opt
	p := len(w)
	grad := make([]float64, p)
	delta := make([]float64, p)
	wbar := make([]float64, p)
	hist := make([][]float64, p)            // δ_j over the averaging phase
	meanPsi := make([]float64, len(r.mhat)) // E_{η_t}[psi] averaged over the averaging phase
	sigma := make([]float64, p)
	bound := float64(p) + 2*math.Sqrt(2*float64(p))
	e.Report = MCMCReport{Chi2Bound: bound, StepSize: r.eps}
	for k := 1; k <= o.MaxIter; k++ {
		if err := r.sweep(w); err != nil {
			return nil, err
		}
		r.gradient(e, w, lambda, grad)
		pre.setC(r.cbar)
		pre.solve(grad, delta)
		e.Report.Iterations = k
		j := k - o.NewtonIter
		if j <= 0 {
			// The first steps are damped (½, ¾): C̄ comes from few draws.
			a := min(1, float64(k+1)/4)
			for i := range w {
				w[i] += a * delta[i]
			}
			continue
		}
		for i, m := range r.mhat {
			meanPsi[i] += (m - meanPsi[i]) / float64(j)
		}
		a := math.Pow(float64(j), -0.6)
		for i, d := range delta {
			w[i] += a * d
			wbar[i] += (w[i] - wbar[i]) / float64(j)
			hist[i] = append(hist[i], d)
		}
		if j < o.MinAverage || j%5 != 0 {
			continue
		}
		pre.inverseDiag(sigma)
		var chi2, ratio float64
		for i, h := range hist {
			// The δ_k of persistent chains are autocorrelated across
			// iterations: their mean's standard error is sd/√ESS.
			se := math.Sqrt(stat.Variance(h, nil) / mcmc.ESS([][]float64{h}))
			m := stat.Mean(h, nil)
			chi2 += (m / se) * (m / se)
			ratio = max(ratio, se/math.Sqrt(sigma[i]))
		}
		e.Report.Chi2, e.Report.MCRatio = chi2, ratio
		if chi2 <= bound && ratio <= o.Tol {
			e.Report.Converged = true
			break
		}
	}
	e.Report.AcceptRate = r.acceptRate()
	for _, c := range r.chains {
		e.Report.Halvings += int(math.Round(math.Log2(r.eps / c.StepSize())))
	}
	if e.Report.Iterations <= o.NewtonIter {
		copy(wbar, w) // no averaging phase ran
		copy(meanPsi, r.mhat)
	}
	c, err := e.information(r, pre, wbar, meanPsi, lambda)
	if err != nil {
		return nil, err
	}
	f := &Fit{W: wbar, DPsi: e.dpsi, DPhi: e.dphi, Lambda: lambda, N: e.N(), blocks: oneBlock(p, c)}
	e.last, e.lastMean, e.lastPre, e.lastInfo = f, meanPsi, pre, nil
	if e.Report.ExactInformation {
		e.lastInfo = c
	}
	return f, nil
}

// exactInfoFlops bounds n·p² (p = d_psi·d_phi) for the exact observed
// information: beyond it the fit keeps the Kronecker approximation.
const exactInfoFlops = 1 << 28

// finalSweeps is the number of sweeps at W̄ whose draws estimate each
// transition's Cov_{η_t}[psi] for the observed information.
const finalSweeps = 10

// information factorises the observed information at W̄,
//
//	I = Σ_t Ĉ_t ⊗ phi_t phi_tᵀ + λI,
//
// Ĉ_t = chain t's mean of (psi − m̄_t)(psi − m̄_t)ᵀ over finalSweeps sweeps
// at W̄, centred on its mean m̄_t over the averaging phase (not on the
// sweeps' own mean, which successive correlated draws would bias low).
// Where n·p² exceeds exactInfoFlops it is the Kronecker C̄ ⊗ Σ phi phiᵀ +
// λI instead (Report.ExactInformation false).
func (e *MCMCMLE) information(r *mleRun, pre *kronPre, wbar, mbar []float64, lambda float64) (*cholesky, error) {
	n, d, dphi := e.N(), e.dpsi, e.dphi
	p := d * dphi
	if n*p*p > exactInfoFlops {
		return pre.information(r.cbar)
	}
	h := make([]float64, p*p)
	ct := make([]float64, d*d)
	dev := make([]float64, d)
	draws := e.opt.Draws
	for range finalSweeps {
		if err := r.sweep(wbar); err != nil {
			return nil, err
		}
		for t := range n {
			clear(ct)
			for s := range draws {
				x := r.draws[(t*draws+s)*d : (t*draws+s+1)*d]
				for a := range d {
					dev[a] = x[a] - mbar[t*d+a]
				}
				for a := range d {
					for b := range d {
						ct[a*d+b] += dev[a] * dev[b] / float64(draws*finalSweeps)
					}
				}
			}
			addKron(h, ct, e.phi[t*dphi:(t+1)*dphi], d, dphi)
		}
	}
	c, err := factor(nil, h, p, 1, lambda, "MCMC maximum likelihood", n, 0)
	if err != nil {
		return nil, err
	}
	e.Report.ExactInformation = true
	return c, nil
}

// addKron adds c ⊗ phi phiᵀ (c d×d, phi of length dphi) to the p×p matrix h.
func addKron(h, c, phi []float64, d, dphi int) {
	p := d * dphi
	for a := range d {
		for b := range d {
			cab := c[a*d+b]
			if cab == 0 {
				continue
			}
			for i, x := range phi {
				row := h[(a*dphi+i)*p+b*dphi : (a*dphi+i)*p+(b+1)*dphi]
				for j, y := range phi {
					row[j] += cab * x * y
				}
			}
		}
	}
}

// Sandwich returns the sandwich variances of the entries of vec(W̄) of
// the estimator's last fit f:
//
//	diag(H⁻¹ (Σ_t g_t g_tᵀ) H⁻¹),  g_t = (psi(s'_t) − m̄_t) ⊗ phi_t,
//
// with H the fit's observed information (its confidence block; where the
// fit fell back to the Kronecker C̄ ⊗ Σ phi phiᵀ + λI, that, through whose
// eigendecompositions H⁻¹g_t = U[(Uᵀr_t)(Vᵀphi_t)ᵀ ./ (c_a f_b + λ)]Vᵀ)
// and m̄_t chain t's mean of psi over the averaging phase (E_{η_t}[psi]
// at W̄, up to Monte Carlo error). Robust where the information is not:
// a misspecified family. With opt.HC1 the
// variances are multiplied by n/(n − d_psi d_phi).
func (e *MCMCMLE) Sandwich(f *Fit, opt SEOptions) ([]float64, error) {
	n := e.N()
	if f == nil || f != e.last || f.N != n {
		return nil, fmt.Errorf("MCMC maximum likelihood sandwich: not the estimator's last fit of its %d transitions", n)
	}
	k := e.lastPre
	p := e.dpsi * e.dphi
	out := make([]float64, p)
	r := make([]float64, e.dpsi)
	ur := make([]float64, e.dpsi)
	vphi := make([]float64, e.dphi)
	x := mat.NewDense(e.dpsi, e.dphi, nil)
	var ux, y mat.Dense
	g := mat.NewVecDense(p, nil)
	var hg mat.VecDense
	for t := range n {
		for a := range e.dpsi {
			r[a] = e.psi[t*e.dpsi+a] - e.lastMean[t*e.dpsi+a]
		}
		phi := e.phi[t*e.dphi : (t+1)*e.dphi]
		if e.lastInfo != nil {
			for a := range e.dpsi {
				for b, v := range phi {
					g.SetVec(a*e.dphi+b, r[a]*v)
				}
			}
			if err := e.lastInfo.SolveVecTo(&hg, g); err != nil {
				return nil, fmt.Errorf("MCMC maximum likelihood sandwich: %w", err)
			}
			for i := range out {
				v := hg.AtVec(i)
				out[i] += v * v
			}
			continue
		}
		mulT(k.u, r, ur)
		mulT(k.v, phi, vphi)
		for a := range e.dpsi {
			for b := range e.dphi {
				x.Set(a, b, ur[a]*vphi[b]/(k.c[a]*k.f[b]+k.lambda))
			}
		}
		ux.Mul(k.u, x)
		y.Mul(&ux, k.v.T())
		for i, v := range y.RawMatrix().Data {
			out[i] += v * v
		}
	}
	if opt.HC1 {
		if n <= p {
			return nil, fmt.Errorf("MCMC maximum likelihood sandwich: %d transitions, %d parameters: %w", n, p, ErrHC1)
		}
		for i := range out {
			out[i] *= float64(n) / float64(n-p)
		}
	}
	return out, nil
}

// mulT writes mᵀx into out (m square or tall: out has m's column count).
func mulT(m *mat.Dense, x, out []float64) {
	rows, cols := m.Dims()
	for j := range cols {
		var s float64
		for i := range rows {
			s += m.At(i, j) * x[i]
		}
		out[j] = s
	}
}

// smStart is the score-matching estimate at λ (at least 1e-10).
func (e *MCMCMLE) smStart(lambda float64) ([]float64, error) {
	sm := NewSM(e.fam, e.dphi)
	for t := range e.N() {
		sm.Add(e.phi[t*e.dphi:(t+1)*e.dphi], e.next[t*e.ds:(t+1)*e.ds])
	}
	f, err := sm.Fit(max(lambda, 1e-10))
	if err != nil {
		return nil, err
	}
	return f.W, nil
}

// mleRun holds the persistent chains of one fit and the psi of their
// latest draws.
type mleRun struct {
	e       *MCMCMLE
	chains  []*mcmc.Chain
	eta     []float64 // n×d_psi: η_t = W phi_t
	draws   []float64 // n×Draws×d_psi: psi of each chain's draws this sweep
	mhat    []float64 // n×d_psi
	cbar    []float64 // d_psi×d_psi pooled within-chain covariance (pool)
	mu      []float64 // n×d_psi running mean of psi per chain
	m2      []float64 // d_psi×d_psi pooled sum of outer products
	dev     []float64
	count   int // draws per chain so far
	eps     float64
	workers int
}

// newRun builds one chain per transition at W = w, started at s'_t: the
// Pilots first warm up (in parallel) and every chain takes their median
// step size and mean inverse mass.
func (e *MCMCMLE) newRun(w []float64) (*mleRun, error) {
	n, o := e.N(), e.opt
	r := &mleRun{e: e, chains: make([]*mcmc.Chain, n),
		eta: make([]float64, n*e.dpsi), draws: make([]float64, n*o.Draws*e.dpsi), mhat: make([]float64, n*e.dpsi),
		cbar: make([]float64, e.dpsi*e.dpsi), mu: make([]float64, n*e.dpsi), m2: make([]float64, e.dpsi*e.dpsi),
		dev: make([]float64, e.dpsi), workers: max(1, min(o.Workers, n))}
	scratch := make([]*expfam.TiltScratch, r.workers)
	for i := range scratch {
		scratch[i] = expfam.NewTiltScratch(e.fam)
	}
	r.setEta(w)
	for t := range n {
		target := expfam.NewTiltedScratch(e.fam, r.eta[t*e.dpsi:(t+1)*e.dpsi], scratch[r.worker(t)])
		c, err := mcmc.NewChain(target, o.Sampler, rand.NewPCG(o.Seed, uint64(t)))
		if err != nil {
			return nil, err
		}
		if err := c.Start(e.next[t*e.ds : (t+1)*e.ds]); err != nil {
			return nil, fmt.Errorf("MCMC maximum likelihood: transition %d: %w", t, err)
		}
		r.chains[t] = c
	}
	pilots := min(o.Pilots, n)
	if err := r.parallel(pilots, func(t int) error { return r.chains[t].Warmup() }); err != nil {
		return nil, err
	}
	steps := make([]float64, pilots)
	minv := make([]float64, e.ds)
	for t := range pilots {
		steps[t] = r.chains[t].StepSize()
		for i, v := range r.chains[t].InverseMass() {
			minv[i] += v / float64(pilots)
		}
	}
	slices.Sort(steps)
	r.eps = steps[pilots/2]
	for _, c := range r.chains {
		if err := c.SetStep(r.eps, minv); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// worker is the goroutine that runs chain t: contiguous ranges, so the
// chains sharing a scratch never run at once.
func (r *mleRun) worker(t int) int { return t * r.workers / len(r.chains) }

// parallel runs f(t) for t < m on the run's workers (chain t on worker
// worker(t) for t < n) and returns the error of the lowest t that failed.
func (r *mleRun) parallel(m int, f func(t int) error) error {
	errs := make([]error, m)
	var wg sync.WaitGroup
	for wk := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range m {
				if r.worker(t) == wk {
					errs[t] = f(t)
				}
			}
		}()
	}
	wg.Wait()
	for t, err := range errs {
		if err != nil {
			return fmt.Errorf("MCMC maximum likelihood: chain of transition %d: %w", t, err)
		}
	}
	return nil
}

// setEta writes η_t = W phi_t for every transition.
func (r *mleRun) setEta(w []float64) {
	e := r.e
	for t := range e.N() {
		linear(w, e.phi[t*e.dphi:(t+1)*e.dphi], r.eta[t*e.dpsi:(t+1)*e.dpsi])
	}
}

// sweep moves every chain to η = W phi_t and runs Draws transitions,
// keeping psi of each draw; then it updates m̂_t and the running pooled
// covariance C̄ in transition order.
func (r *mleRun) sweep(w []float64) error {
	e, o := r.e, r.e.opt
	r.setEta(w)
	err := r.parallel(len(r.chains), func(t int) error {
		c := r.chains[t]
		if err := c.Refresh(); err != nil {
			return err
		}
		for s := range o.Draws {
			if err := stepShrinking(c); err != nil {
				return fmt.Errorf("at η = %.4g: %w", r.eta[t*e.dpsi:(t+1)*e.dpsi], err)
			}
			e.fam.Psi(c.State(), r.draws[(t*o.Draws+s)*e.dpsi:(t*o.Draws+s+1)*e.dpsi])
		}
		return nil
	})
	if err != nil {
		return err
	}
	d := e.dpsi
	for t := range r.chains {
		m := r.mhat[t*d : (t+1)*d]
		clear(m)
		dr := r.draws[t*o.Draws*d : (t+1)*o.Draws*d]
		for s := range o.Draws {
			x := dr[s*d : (s+1)*d]
			for k := range d {
				m[k] += x[k] / float64(o.Draws)
			}
			r.pool(t, x)
		}
	}
	den := float64(len(r.chains) * (r.count - 1))
	for i, v := range r.m2 {
		r.cbar[i] = v / den
	}
	return nil
}

// maxHalvings bounds how often stepShrinking halves a chain's step size
// in one transition: 2⁻²⁰ of the step adapted at the start.
const maxHalvings = 20

// stepShrinking runs one transition of a persistent chain. A transition
// whose energy error exceeds the bound (rejected: the chain stays) halves
// the chain's step size and is retried: the step size was adapted at the
// fit's first W, and the stochastic approximation moves η_t = W phi_t,
// possibly far (few transitions, small λ: the tilted density
// log q + <psi, η_t> may become much steeper than where the step was
// adapted, and a leapfrog trajectory of the old step then flies off). A
// chain that still diverges after maxHalvings halvings fails, and so does
// at once a non-finite log density or gradient (the family itself, not
// the step size, is at fault).
func stepShrinking(c *mcmc.Chain) error {
	for halvings := 0; ; halvings++ {
		err := c.Step()
		var de *mcmc.DivergenceError
		if err == nil || !errors.As(err, &de) || math.IsNaN(de.EnergyError) || math.IsInf(de.EnergyError, 0) {
			return err
		}
		if halvings == maxHalvings {
			return fmt.Errorf("still divergent after halving the step size %d times, to %.3g: %w", maxHalvings, c.StepSize(), err)
		}
		if e := c.SetStep(c.StepSize()/2, nil); e != nil {
			return e
		}
	}
}

// pool adds draw x of chain t to the chain's running mean of psi (Welford)
// and its outer product of deviations to the pooled sum r.m2. The chains
// add their draws of every sweep, so C̄ = m2 / Σ_t (count − 1) is the
// within-chain covariance over all draws of the fit: the draws of one
// sweep alone are too autocorrelated to show a chain's spread (they
// underestimate it, and a Newton step with too small a C overshoots),
// while the drift of η_t over the sweeps only inflates it (shorter steps).
func (r *mleRun) pool(t int, x []float64) {
	d := len(x)
	if t == 0 {
		r.count++
	}
	mu := r.mu[t*d : (t+1)*d]
	for k, v := range x {
		r.dev[k] = v - mu[k]
		mu[k] += r.dev[k] / float64(r.count)
	}
	for a := range d {
		for b := range d {
			r.m2[a*d+b] += r.dev[a] * (x[b] - mu[b])
		}
	}
}

// gradient writes Ĝ = Σ_t (psi(s'_t) − m̂_t) phi_tᵀ − λW.
func (r *mleRun) gradient(e *MCMCMLE, w []float64, lambda float64, grad []float64) {
	for i, v := range w {
		grad[i] = -lambda * v
	}
	for t := range e.N() {
		phi := e.phi[t*e.dphi : (t+1)*e.dphi]
		for k := range e.dpsi {
			res := e.psi[t*e.dpsi+k] - r.mhat[t*e.dpsi+k]
			g := grad[k*e.dphi : (k+1)*e.dphi]
			for j, v := range phi {
				g[j] += res * v
			}
		}
	}
}

func (r *mleRun) acceptRate() float64 {
	var s float64
	for _, c := range r.chains {
		s += c.AcceptRate()
	}
	return s / float64(len(r.chains))
}

// kronPre is H = C ⊗ Φ + λI, Φ = Σ_t phi_t phi_tᵀ, through the
// eigendecompositions C = U diag(c) Uᵀ and Φ = V diag(f) Vᵀ:
// H⁻¹ vec(G) = vec(U [(Uᵀ G V) ./ (c_a f_b + λ)] Vᵀ).
type kronPre struct {
	dpsi, dphi int
	lambda     float64
	phiGram    []float64
	v          *mat.Dense
	f          []float64
	u          *mat.Dense
	c          []float64
	tmp, out   *mat.Dense
}

func newKronPre(phi []float64, n, dphi, dpsi int, lambda float64) (*kronPre, error) {
	g := make([]float64, dphi*dphi)
	for t := range n {
		x := phi[t*dphi : (t+1)*dphi]
		for i, a := range x {
			for j, b := range x {
				g[i*dphi+j] += a * b
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(dphi, slices.Clone(g)), true) {
		return nil, fmt.Errorf("MCMC maximum likelihood: eigendecomposition of Σ phi phiᵀ failed: %w", ErrSingular)
	}
	k := &kronPre{dpsi: dpsi, dphi: dphi, lambda: lambda, phiGram: g, v: &mat.Dense{}, f: eig.Values(nil),
		u: &mat.Dense{}, c: make([]float64, dpsi), tmp: mat.NewDense(dpsi, dphi, nil), out: mat.NewDense(dpsi, dphi, nil)}
	eig.VectorsTo(k.v)
	if top := slices.Max(k.f); !(slices.Min(k.f)+lambda > 1e-12*top) {
		return nil, fmt.Errorf("MCMC maximum likelihood: Σ phi phiᵀ + λI is singular (smallest eigenvalue %.3g, λ = %g, n = %d): %w", slices.Min(k.f), lambda, n, ErrSingular)
	}
	return k, nil
}

// setC takes the pooled covariance C (d_psi×d_psi); eigenvalues below
// 10⁻¹⁰ of the largest are raised to it (a statistic the chains have not
// yet moved would otherwise get an infinite step).
func (k *kronPre) setC(c []float64) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(k.dpsi, slices.Clone(c)), true) {
		for i := range k.c {
			k.c[i] = 1
		}
		k.u = mat.NewDense(k.dpsi, k.dpsi, nil)
		for i := range k.dpsi {
			k.u.Set(i, i, 1)
		}
		return
	}
	eig.Values(k.c)
	eig.VectorsTo(k.u)
	top := math.Max(slices.Max(k.c), 1e-300)
	for i, v := range k.c {
		k.c[i] = math.Max(v, 1e-10*top)
	}
}

// solve writes H⁻¹ g into out (both vec of a d_psi×d_phi matrix).
func (k *kronPre) solve(g, out []float64) {
	gm := mat.NewDense(k.dpsi, k.dphi, g)
	var a mat.Dense
	a.Mul(k.u.T(), gm)
	k.tmp.Mul(&a, k.v)
	for i := range k.dpsi {
		for j := range k.dphi {
			k.tmp.Set(i, j, k.tmp.At(i, j)/(k.c[i]*k.f[j]+k.lambda))
		}
	}
	a.Mul(k.u, k.tmp)
	k.out.Mul(&a, k.v.T())
	copy(out, k.out.RawMatrix().Data)
}

// inverseDiag writes diag(H⁻¹): Σ_{a,b} U_ia² V_jb² / (c_a f_b + λ).
func (k *kronPre) inverseDiag(out []float64) {
	for i := range k.dpsi {
		for j := range k.dphi {
			var s float64
			for a := range k.dpsi {
				ua := k.u.At(i, a)
				for b := range k.dphi {
					vb := k.v.At(j, b)
					s += ua * ua * vb * vb / (k.c[a]*k.f[b] + k.lambda)
				}
			}
			out[i*k.dphi+j] = s
		}
	}
}

// information factorises H = C ⊗ Φ + λI, the fit's confidence block.
func (k *kronPre) information(c []float64) (*cholesky, error) {
	p := k.dpsi * k.dphi
	h := make([]float64, p*p)
	for a := range k.dpsi {
		for b := range k.dpsi {
			cab := c[a*k.dpsi+b]
			for i := range k.dphi {
				for j := range k.dphi {
					h[(a*k.dphi+i)*p+b*k.dphi+j] = cab * k.phiGram[i*k.dphi+j]
				}
			}
		}
	}
	ch, err := factor(nil, h, p, 1, k.lambda, "MCMC maximum likelihood", 0, 0)
	if err != nil && !errors.Is(err, ErrSingular) {
		return nil, err
	}
	return ch, err
}
