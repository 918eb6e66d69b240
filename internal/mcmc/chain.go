package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Target is an unnormalised log density on R^d with its gradient: what
// the samplers need. A Target is used by one chain at a time (it may keep
// buffers); give each concurrently running chain its own.
type Target interface {
	// Dim is d.
	Dim() int
	// LogDensityGrad returns log p(x) up to an additive constant and
	// writes ∇ log p(x) (len d) into grad. A value outside the support is
	// −Inf; NaN or +Inf make the transition divergent.
	LogDensityGrad(x, grad []float64) float64
}

// The kinds of sampler (Settings.Kind).
const (
	HMC  = "hmc"
	MALA = "mala"
)

// ErrSettings is returned for settings that cannot run (an unknown kind,
// a negative count or step size).
var ErrSettings = errors.New("invalid sampler settings")

// ErrDiverged is wrapped by every DivergenceError.
var ErrDiverged = errors.New("chain diverged")

// Settings are the knobs of a sampler; they mirror the config keys under
// `sampler`. The zero value of each field means its default.
type Settings struct {
	// Kind is HMC (default) or MALA.
	Kind string
	// Warmup is the number of transitions of warm-up, during which the
	// step size (and, with AdaptMass, the diagonal mass) adapts; they are
	// not draws. Default 500.
	Warmup int
	// Steps is the number of transitions kept per chain by callers that
	// run a fixed-length chain (Chain.Sample takes its own count).
	// Default 1000.
	Steps int
	// Leapfrog is the number of leapfrog steps of an HMC transition
	// (ignored by MALA). Default 10.
	Leapfrog int
	// StepSize is the leapfrog or Langevin step ε; 0 adapts it in
	// warm-up by dual averaging toward TargetAccept.
	StepSize float64
	// MaxEnergyError bounds the energy error H(x′,p′) − H(x,p) (for MALA,
	// minus the log acceptance ratio) of a transition: beyond it, or at a
	// non-finite log density or gradient, the transition is divergent.
	// Default 1000 (Stan's).
	MaxEnergyError float64
	// TargetAccept is the mean acceptance probability the step size
	// adapts toward: default 0.8 for HMC, 0.574 for MALA (Roberts &
	// Rosenthal's optimum).
	TargetAccept float64
	// AdaptMass adapts a diagonal mass matrix (the inverse of the
	// marginal variances) in the middle of warm-up; only with an adapted
	// step size and at least 150 warm-up transitions.
	AdaptMass bool
}

// WithDefaults returns s with every zero field set to its default.
func (s Settings) WithDefaults() Settings {
	if s.Kind == "" {
		s.Kind = HMC
	}
	if s.Warmup == 0 {
		s.Warmup = 500
	}
	if s.Steps == 0 {
		s.Steps = 1000
	}
	if s.Leapfrog == 0 {
		s.Leapfrog = 10
	}
	if s.MaxEnergyError == 0 {
		s.MaxEnergyError = 1000
	}
	if s.TargetAccept == 0 {
		s.TargetAccept = 0.8
		if s.Kind == MALA {
			s.TargetAccept = 0.574
		}
	}
	return s
}

// Validate reports settings that cannot run, wrapping ErrSettings.
func (s Settings) Validate() error {
	switch {
	case s.Kind != HMC && s.Kind != MALA:
		return fmt.Errorf("%w: kind %q is not %s or %s", ErrSettings, s.Kind, HMC, MALA)
	case s.Warmup < 0:
		return fmt.Errorf("%w: warmup %d < 0", ErrSettings, s.Warmup)
	case s.Steps < 0:
		return fmt.Errorf("%w: steps %d < 0", ErrSettings, s.Steps)
	case s.Leapfrog < 1:
		return fmt.Errorf("%w: leapfrog %d < 1", ErrSettings, s.Leapfrog)
	case !(s.StepSize >= 0) || math.IsInf(s.StepSize, 1):
		return fmt.Errorf("%w: step size %g is not a finite number >= 0", ErrSettings, s.StepSize)
	case !(s.MaxEnergyError > 0):
		return fmt.Errorf("%w: energy error bound %g is not > 0", ErrSettings, s.MaxEnergyError)
	case !(s.TargetAccept > 0 && s.TargetAccept < 1):
		return fmt.Errorf("%w: target acceptance %g is not in (0, 1)", ErrSettings, s.TargetAccept)
	}
	return nil
}

// DivergenceError is a divergent transition: where it happened and why.
// It wraps ErrDiverged.
type DivergenceError struct {
	// From is the chain's state, At the proposal (or the point of the
	// trajectory) where the log density, its gradient or the energy
	// error went wrong.
	From, At []float64
	// Reason says what went wrong.
	Reason string
	// EnergyError is H(x′,p′) − H(x,p) (NaN when not computed).
	EnergyError float64
	// Transition counts transitions since Start (warm-up included).
	Transition int
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("%v at transition %d: %s at x = %v (from %v)", ErrDiverged, e.Transition, e.Reason, e.At, e.From)
}

func (e *DivergenceError) Unwrap() error { return ErrDiverged }

// Chain is one Markov chain (HMC or MALA) on a Target with its own random
// stream and every buffer it needs, so a transition allocates nothing.
// It is not safe for concurrent use; independent chains may run
// concurrently.
type Chain struct {
	t   Target
	s   Settings
	rng *rand.Rand
	d   int

	x, g   []float64 // the state and ∇ log p there
	lp     float64
	x1, g1 []float64 // the proposal
	lp1    float64
	p      []float64 // momentum (HMC) or noise (MALA)
	minv   []float64 // inverse diagonal mass
	sqrtM  []float64 // √(1/minv): the momentum's scale
	eps    float64

	transitions int // since Start, warm-up included
	kept        int // transitions after warm-up
	accepted    int // accepted after warm-up
	sumAlpha    float64
	warmDiv     int // divergent transitions in warm-up
	warm        bool
	warmLP      []float64 // log p over the second half of warm-up: the drift check
	da          dualAvg
	wf          welford
}

// NewChain returns a chain on t with settings s (defaults filled in) that
// draws from src. Start it before use.
func NewChain(t Target, s Settings, src rand.Source) (*Chain, error) {
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	d := t.Dim()
	if d < 1 {
		return nil, fmt.Errorf("%w: target of dimension %d", ErrSettings, d)
	}
	c := &Chain{t: t, s: s, rng: rand.New(src), d: d,
		x: make([]float64, d), g: make([]float64, d), x1: make([]float64, d), g1: make([]float64, d),
		p: make([]float64, d), minv: make([]float64, d), sqrtM: make([]float64, d), eps: s.StepSize,
		wf: welford{mean: make([]float64, d), m2: make([]float64, d)}}
	for i := range c.minv {
		c.minv[i], c.sqrtM[i] = 1, 1
	}
	return c, nil
}

// Settings returns the chain's settings with defaults filled in.
func (c *Chain) Settings() Settings { return c.s }

// Start puts the chain at x0 (len d) and resets its counts. It fails with
// a DivergenceError where the log density or gradient is not finite at x0.
func (c *Chain) Start(x0 []float64) error {
	if len(x0) != c.d {
		return fmt.Errorf("%w: initial state of length %d for a target of dimension %d", ErrSettings, len(x0), c.d)
	}
	copy(c.x, x0)
	c.transitions, c.kept, c.accepted, c.sumAlpha, c.warmDiv = 0, 0, 0, 0, 0
	return c.Refresh()
}

// Refresh recomputes the log density and gradient at the current state:
// call it after the target changed (a persistent chain whose parameter
// moved). It fails like Start.
func (c *Chain) Refresh() error {
	c.lp = c.t.LogDensityGrad(c.x, c.g)
	if !finite(c.lp) || !allFinite(c.g) {
		return &DivergenceError{From: clone(c.x), At: clone(c.x), Reason: fmt.Sprintf("log density %g or its gradient %v is not finite at the state", c.lp, c.g),
			EnergyError: math.NaN(), Transition: c.transitions}
	}
	return nil
}

// State is the current state (owned by the chain; copy it to keep it).
func (c *Chain) State() []float64 { return c.x }

// LogDensity is log p at the current state.
func (c *Chain) LogDensity() float64 { return c.lp }

// StepSize is the current step size ε.
func (c *Chain) StepSize() float64 { return c.eps }

// SetStep fixes the step size ε > 0 and, when minv is not nil, the
// inverse diagonal mass (len d, entries > 0): for chains that share the
// adaptation of a pilot chain instead of each warming up. Warmup then
// adapts nothing unless the settings' StepSize is 0.
func (c *Chain) SetStep(eps float64, minv []float64) error {
	if !(eps > 0) || math.IsInf(eps, 1) || (minv != nil && len(minv) != c.d) {
		return fmt.Errorf("%w: step size %g with %d inverse masses for dimension %d", ErrSettings, eps, len(minv), c.d)
	}
	for _, v := range minv {
		if !(v > 0) || math.IsInf(v, 1) {
			return fmt.Errorf("%w: inverse mass %g is not a positive number", ErrSettings, v)
		}
	}
	c.eps = eps
	for i, v := range minv {
		c.minv[i], c.sqrtM[i] = v, 1/math.Sqrt(v)
	}
	return nil
}

// InverseMass is the diagonal of the inverse mass matrix (owned by the
// chain).
func (c *Chain) InverseMass() []float64 { return c.minv }

// AcceptRate is the fraction of accepted proposals among the transitions
// after warm-up (NaN before any).
func (c *Chain) AcceptRate() float64 { return float64(c.accepted) / float64(c.kept) }

// MeanAcceptProb is the mean acceptance probability min(1, e^{−ΔH}) of the
// transitions after warm-up, which the step size was adapted toward.
func (c *Chain) MeanAcceptProb() float64 { return c.sumAlpha / float64(c.kept) }

// Warmup runs the settings' warm-up transitions. With StepSize 0 the step
// size starts at Hoffman & Gelman's heuristic (double or halve ε until the
// acceptance probability of one step crosses 1/2) and adapts by dual
// averaging toward TargetAccept (their Algorithm 5: γ = 0.05, t0 = 10,
// κ = 0.75, μ = log 10ε0), ending at the averaged step ε̄. With AdaptMass
// the transitions between 15% and 75% of warm-up estimate the marginal
// variances v_i; the inverse mass becomes (n v_i + 10⁻³·5)/(n + 5) (Stan's
// regularisation) and the step size restarts. A divergent transition in
// warm-up is rejected; warm-up fails with a DivergenceError when more than
// half of its transitions diverged (an improper or non-finite density), or
// when its log density drifts (drift). With a fixed StepSize the
// transitions run all the same (burn-in), adapting nothing.
func (c *Chain) Warmup() error {
	n := c.s.Warmup
	adaptStep := c.s.StepSize == 0
	if adaptStep {
		c.eps = c.initialStep()
		c.da.restart(c.eps)
	}
	if n == 0 {
		return nil
	}
	massLo, massHi := -1, -1
	if adaptStep && c.s.AdaptMass && n >= 150 {
		// Stan's windows in one: a fast start, a slow window estimating
		// the variances, a terminal window (a quarter, at least 50) re-adapting ε.
		massLo, massHi = n*15/100, n-max(n/4, 50)
	}
	if cap(c.warmLP) < n/2+1 { // allocated by the first warm-up only: chains that never warm up (SetStep) carry none
		c.warmLP = make([]float64, 0, n/2+1)
	}
	c.warmLP = c.warmLP[:0]
	c.warm = true
	defer func() { c.warm = false }()
	var last *DivergenceError
	for i := range n {
		alpha, err := c.transition()
		if err != nil {
			var de *DivergenceError
			if !errors.As(err, &de) {
				return err
			}
			c.warmDiv++
			last = de
			alpha = 0
		}
		if adaptStep {
			c.eps = c.da.update(alpha, c.s.TargetAccept)
		}
		if 2*i >= n {
			c.warmLP = append(c.warmLP, c.lp)
		}
		if i >= massLo && i < massHi {
			c.wf.add(c.x)
			if i == massHi-1 {
				c.wf.inverseMass(c.minv)
				for j, v := range c.minv {
					c.sqrtM[j] = 1 / math.Sqrt(v)
				}
				c.eps = c.initialStep()
				c.da.restart(c.eps)
			}
		}
	}
	if adaptStep {
		c.eps = math.Exp(c.da.logEbar)
	}
	if 2*c.warmDiv > n {
		last.Reason = fmt.Sprintf("%d of %d warm-up transitions diverged, the last: %s", c.warmDiv, n, last.Reason)
		return last
	}
	if !adaptStep {
		// A fixed step size (sampler.step_size) burns in at its own pace,
		// so a rising log density is no sign of an improper one there;
		// a chain that runs off is caught by its states (|x| > 1024) instead.
		return nil
	}
	return c.drift()
}

// drift fails when the log density climbs through the second half of
// warm-up: split-R̂ of its values there above 2 (a steady trend gives
// about 2.6, a stationary chain about 1) with the last quarter's mean
// above the third's. That is how an improper density shows itself: the
// step size shrinks as the chain runs off to where p grows without bound,
// so no single transition need diverge. Warm-ups under 100, and those at
// a fixed step size, are not checked.
func (c *Chain) drift() error {
	lp := c.warmLP
	if c.s.Warmup < 100 || len(lp) < 4 {
		return nil
	}
	r := SplitRhat([][]float64{lp})
	h := len(lp) / 2
	if first, last := mean(lp[:h]), mean(lp[len(lp)-h:]); r > 2 && last > first {
		// The means the test compares, not the end values, which may
		// move either way.
		return &DivergenceError{From: clone(c.x), At: clone(c.x), EnergyError: math.NaN(), Transition: c.transitions,
			Reason: fmt.Sprintf("the log density rises through warm-up (its mean from %.4g to %.4g over the second half's two quarters, split-R̂ %.3g > 2): the density looks improper", first, last, r)}
	}
	return nil
}

// Step runs one transition after warm-up. A divergent transition is an
// error (a DivergenceError); the chain stays where it was.
func (c *Chain) Step() error {
	alpha, err := c.transition()
	if err != nil {
		return err
	}
	c.kept++
	c.sumAlpha += alpha
	return nil
}

// Sample runs n·thin transitions and writes the state after every thin-th
// into out (n×d, row-major).
func (c *Chain) Sample(n, thin int, out []float64) error {
	if thin < 1 || len(out) < n*c.d {
		return fmt.Errorf("%w: sample of %d draws thinned by %d into %d values", ErrSettings, n, thin, len(out))
	}
	for i := range n {
		for range thin {
			if err := c.Step(); err != nil {
				return err
			}
		}
		copy(out[i*c.d:(i+1)*c.d], c.x)
	}
	return nil
}

// transition proposes, accepts or rejects, and returns the acceptance
// probability; a divergent proposal is rejected with a DivergenceError.
func (c *Chain) transition() (float64, error) {
	c.transitions++
	eps := c.eps
	var logAlpha float64
	if c.s.Kind == HMC {
		// A step jittered by ±10% breaks the periodic trajectories a
		// fixed εL meets in (near-)Gaussian targets.
		eps *= 0.9 + 0.2*c.rng.Float64()
		logAlpha = c.proposeHMC(eps, c.s.Leapfrog)
	} else {
		logAlpha = c.proposeMALA(eps)
	}
	if err := c.divergence(logAlpha); err != nil {
		return 0, err
	}
	alpha := 1.0
	if logAlpha < 0 {
		alpha = math.Exp(logAlpha)
	}
	if logAlpha >= 0 || c.rng.Float64() < alpha {
		c.x, c.x1 = c.x1, c.x
		c.g, c.g1 = c.g1, c.g
		c.lp = c.lp1
		if !c.warm {
			c.accepted++
		}
	}
	return alpha, nil
}

// divergence returns a DivergenceError when the proposal's log density or
// gradient is not finite or its energy error exceeds the bound.
func (c *Chain) divergence(logAlpha float64) error {
	var reason string
	switch {
	case math.IsInf(c.lp1, -1):
		return nil // outside the support: a plain rejection
	case !finite(c.lp1) || !allFinite(c.g1):
		reason = fmt.Sprintf("log density %g or its gradient is not finite", c.lp1)
	case !(-logAlpha <= c.s.MaxEnergyError):
		reason = fmt.Sprintf("energy error %g beyond the bound %g", -logAlpha, c.s.MaxEnergyError)
	default:
		return nil
	}
	return &DivergenceError{From: clone(c.x), At: clone(c.x1), Reason: reason, EnergyError: -logAlpha, Transition: c.transitions}
}

// proposeHMC integrates Hamilton's equations for H(x, p) = −log p(x) +
// ½ Σ p_i² minv_i by L leapfrog steps of ε from the state and a fresh
// momentum p ~ N(0, M), into x1, g1, lp1, and returns the log acceptance
// ratio H(x, p) − H(x1, p1).
func (c *Chain) proposeHMC(eps float64, leapfrog int) float64 {
	var k0 float64
	for i := range c.p {
		v := c.rng.NormFloat64() * c.sqrtM[i]
		c.p[i] = v
		k0 += v * v * c.minv[i]
	}
	copy(c.x1, c.x)
	copy(c.g1, c.g)
	c.lp1 = c.lp
	half := 0.5 * eps
	for range leapfrog {
		for i, g := range c.g1 {
			c.p[i] += half * g
			c.x1[i] += eps * c.minv[i] * c.p[i]
		}
		c.lp1 = c.t.LogDensityGrad(c.x1, c.g1)
		if !finite(c.lp1) {
			return outside(c.lp1)
		}
		for i, g := range c.g1 {
			c.p[i] += half * g
		}
	}
	var k1 float64
	for i, v := range c.p {
		k1 += v * v * c.minv[i]
	}
	return (c.lp1 - 0.5*k1) - (c.lp - 0.5*k0)
}

// proposeMALA draws the preconditioned Langevin proposal
// x1 = x + (ε²/2) M⁻¹ ∇log p(x) + ε M^{−1/2} z, z ~ N(0, I), and returns the
// Metropolis–Hastings log ratio log p(x1) − log p(x) + log q(x|x1) − log q(x1|x).
func (c *Chain) proposeMALA(eps float64) float64 {
	h := 0.5 * eps * eps
	var fwd float64
	for i := range c.x1 {
		z := c.rng.NormFloat64()
		c.p[i] = z
		fwd += z * z
		c.x1[i] = c.x[i] + h*c.minv[i]*c.g[i] + eps*math.Sqrt(c.minv[i])*z
	}
	c.lp1 = c.t.LogDensityGrad(c.x1, c.g1)
	if !finite(c.lp1) {
		return outside(c.lp1)
	}
	var back float64 // |x − x1 − h M⁻¹ g1|² in the metric of ε² M⁻¹
	for i := range c.x {
		r := c.x[i] - c.x1[i] - h*c.minv[i]*c.g1[i]
		back += r * r / (eps * eps * c.minv[i])
	}
	return c.lp1 - c.lp - 0.5*back + 0.5*fwd
}

// initialStep is Hoffman & Gelman's Algorithm 4: from ε = 1 (in the
// metric of the mass), double ε while one step's acceptance ratio exceeds
// 1/2, or halve it while it is below; at most 60 times either way. It
// moves nothing but the random stream.
func (c *Chain) initialStep() float64 {
	eps := 1.0
	la := c.probe(eps)
	dir := 1.0
	if !(la > -math.Ln2) {
		dir = -1
	}
	for range 60 {
		if !(dir*la > -dir*math.Ln2) {
			break
		}
		eps *= math.Pow(2, dir)
		la = c.probe(eps)
	}
	return eps
}

// probe returns the log acceptance ratio of one step of ε (one leapfrog
// step or one Langevin proposal), NaN mapped to −Inf.
func (c *Chain) probe(eps float64) float64 {
	var la float64
	if c.s.Kind == HMC {
		la = c.proposeHMC(eps, 1)
	} else {
		la = c.proposeMALA(eps)
	}
	if math.IsNaN(la) || !allFinite(c.g1) {
		return math.Inf(-1)
	}
	return la
}

// dualAvg is the state of Nesterov's dual averaging of log ε (Hoffman &
// Gelman 2014, §3.2).
type dualAvg struct {
	mu, hbar, logEbar float64
	m                 int
}

func (d *dualAvg) restart(eps float64) {
	*d = dualAvg{mu: math.Log(10 * eps)}
}

// update takes the acceptance probability alpha of the last transition
// and returns the next step size.
func (d *dualAvg) update(alpha, delta float64) float64 {
	const gamma, t0, kappa = 0.05, 10.0, 0.75
	d.m++
	m := float64(d.m)
	w := 1 / (m + t0)
	d.hbar = (1-w)*d.hbar + w*(delta-alpha)
	logE := d.mu - math.Sqrt(m)/gamma*d.hbar
	a := math.Pow(m, -kappa)
	d.logEbar = a*logE + (1-a)*d.logEbar
	return math.Exp(logE)
}

// welford accumulates means and variances (Welford's update).
type welford struct {
	n        int
	mean, m2 []float64
}

func (w *welford) add(x []float64) {
	w.n++
	n := float64(w.n)
	for i, v := range x {
		d := v - w.mean[i]
		w.mean[i] += d / n
		w.m2[i] += d * (v - w.mean[i])
	}
}

// inverseMass writes Stan's regularised variance estimate into minv and
// resets the accumulator.
func (w *welford) inverseMass(minv []float64) {
	n := float64(w.n)
	for i := range minv {
		v := w.m2[i] / max(n-1, 1)
		minv[i] = (n/(n+5))*v + 1e-3*(5/(n+5))
		w.mean[i], w.m2[i] = 0, 0
	}
	w.n = 0
}

// outside maps a non-finite log density of a proposal to its log
// acceptance ratio: −Inf (a rejection) outside the support, NaN (a
// divergence) for NaN or +Inf.
func outside(lp float64) float64 {
	if math.IsInf(lp, -1) {
		return lp
	}
	return math.NaN()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func allFinite(x []float64) bool {
	var s float64
	for _, v := range x {
		s += v * 0 // NaN for NaN or ±Inf entries, 0 otherwise
	}
	return s == 0
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }
