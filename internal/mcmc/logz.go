package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// ErrDegenerate is returned by the log Z estimators when the effective
// sample size of the importance weights is below the caller's bound: the
// proposal misses the target's mass and the estimate and its standard
// error cannot be trusted.
var ErrDegenerate = errors.New("importance weights are degenerate")

// LogZ is an estimate of log Z = log ∫ p(x) dx for an unnormalised p.
type LogZ struct {
	// LogZ is log of the mean weight.
	LogZ float64
	// SE is its delta-method standard error sd(w)/(√N · mean w).
	SE float64
	// ESS is the weights' effective sample size (Σw)²/Σw² (Kish).
	ESS float64
	// N is the number of weights.
	N int
}

// Gaussian is the proposal N(mean, cov) of importance sampling and the
// starting distribution of annealing.
type Gaussian struct {
	mean []float64
	l    []float64 // the lower Cholesky factor of cov, row-major
	prec []float64 // cov⁻¹, row-major
	lnc  float64   // −(d/2) log 2π − ½ log det cov
	z    []float64
}

// NewGaussian returns N(mean, cov) for a d×d (row-major) symmetric
// positive definite cov, or an error wrapping ErrSettings.
func NewGaussian(mean, cov []float64) (*Gaussian, error) {
	d := len(mean)
	if d == 0 || len(cov) != d*d {
		return nil, fmt.Errorf("%w: Gaussian of mean length %d and %d covariance entries", ErrSettings, d, len(cov))
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(d, append([]float64(nil), cov...))) {
		return nil, fmt.Errorf("%w: the Gaussian's covariance is not positive definite", ErrSettings)
	}
	var l mat.TriDense
	ch.LTo(&l)
	g := &Gaussian{mean: append([]float64(nil), mean...), l: make([]float64, d*d), z: make([]float64, d)}
	for i := range d {
		for j := 0; j <= i; j++ {
			g.l[i*d+j] = l.At(i, j)
		}
	}
	var prec mat.SymDense
	if err := ch.InverseTo(&prec); err != nil {
		return nil, fmt.Errorf("%w: the Gaussian's covariance: %v", ErrSettings, err)
	}
	g.prec = make([]float64, d*d)
	for i := range d {
		for j := range d {
			g.prec[i*d+j] = prec.At(i, j)
		}
	}
	g.lnc = -0.5*float64(d)*math.Log(2*math.Pi) - 0.5*ch.LogDet()
	return g, nil
}

// Dim is d.
func (g *Gaussian) Dim() int { return len(g.mean) }

// Draw writes x = mean + L z, z ~ N(0, I), and returns log N(x; mean, cov).
func (g *Gaussian) Draw(rng *rand.Rand, x []float64) float64 {
	d := len(g.mean)
	var q float64
	for i := range g.z {
		g.z[i] = rng.NormFloat64()
		q += g.z[i] * g.z[i]
	}
	for i := range d {
		s := g.mean[i]
		for j := 0; j <= i; j++ {
			s += g.l[i*d+j] * g.z[j]
		}
		x[i] = s
	}
	return g.lnc - 0.5*q
}

// LogDensityGrad returns log N(x; mean, cov) and writes its gradient
// −cov⁻¹(x − mean): the Gaussian is a Target too (annealing's start).
func (g *Gaussian) LogDensityGrad(x, grad []float64) float64 {
	d := len(g.mean)
	for i := range d {
		g.z[i] = x[i] - g.mean[i]
	}
	var q float64
	for i := range d {
		var s float64
		for j := range d {
			s += g.prec[i*d+j] * g.z[j]
		}
		grad[i] = -s
		q += s * g.z[i]
	}
	return g.lnc - 0.5*q
}

// ImportanceLogZ estimates log Z of the unnormalised target t by
// importance sampling from the normalised proposal q with n draws from
// rng: Ẑ = (1/n) Σ w_i, w_i = p(x_i)/q(x_i), computed in log space (the
// weights scaled by their largest). It fails with ErrDegenerate (returning
// the estimate too) when the weights' ESS is below minESS; a proposal
// lighter-tailed than the target can pass this check and still have
// infinite variance, so give q at least the target's spread (inflate a
// fitted covariance).
func ImportanceLogZ(t Target, q *Gaussian, n int, rng *rand.Rand, minESS float64) (LogZ, error) {
	d := t.Dim()
	if q.Dim() != d || n < 2 {
		return LogZ{}, fmt.Errorf("%w: %d importance draws in dimension %d for a target of dimension %d", ErrSettings, n, q.Dim(), d)
	}
	x := make([]float64, d)
	grad := make([]float64, d)
	logw := make([]float64, n)
	for i := range logw {
		lq := q.Draw(rng, x)
		lp := t.LogDensityGrad(x, grad)
		if math.IsNaN(lp) || math.IsInf(lp, 1) {
			return LogZ{}, &DivergenceError{From: clone(x), At: clone(x), Reason: fmt.Sprintf("log density %g at an importance draw", lp), EnergyError: math.NaN()}
		}
		logw[i] = lp - lq
	}
	return FromLogWeights(logw, minESS)
}

// FromLogWeights turns importance log weights log w_i = log p̃(x_i) −
// log r(x_i) into a LogZ: log of the mean weight, its delta-method
// standard error sd(w)/(√n mean w) and the Kish ESS (Σw)²/Σw²; an ESS
// below minESS (or NaN) is ErrDegenerate.
func FromLogWeights(logw []float64, minESS float64) (LogZ, error) {
	n := float64(len(logw))
	top := math.Inf(-1)
	for _, v := range logw {
		top = max(top, v)
	}
	if math.IsInf(top, -1) {
		return LogZ{LogZ: math.Inf(-1), SE: math.Inf(1), N: len(logw)}, fmt.Errorf("%w: every weight is 0", ErrDegenerate)
	}
	var s, s2 float64
	for _, v := range logw {
		w := math.Exp(v - top)
		s += w
		s2 += w * w
	}
	m := s / n
	varW := (s2 - n*m*m) / (n - 1)
	r := LogZ{LogZ: top + math.Log(m), SE: math.Sqrt(max(varW, 0)/n) / m, ESS: s * s / s2, N: len(logw)}
	if !(r.ESS >= minESS) {
		return r, fmt.Errorf("%w: effective sample size %.1f of %d weights is below %g", ErrDegenerate, r.ESS, len(logw), minESS)
	}
	return r, nil
}

// clone returns a Gaussian sharing g's parameters with its own buffer, for
// another goroutine.
func (g *Gaussian) clone() *Gaussian {
	c := *g
	c.z = make([]float64, len(g.z))
	return &c
}

// tempered is the annealing path's density at β:
// (1−β) log q(x) + β log p(x), with its gradient.
type tempered struct {
	p    Target
	q    *Gaussian
	beta float64
	gq   []float64
	lp   float64 // log p at the last point evaluated
	lq   float64
}

func (t *tempered) Dim() int { return t.p.Dim() }
func (t *tempered) LogDensityGrad(x, grad []float64) float64 {
	t.lq = t.q.LogDensityGrad(x, t.gq)
	t.lp = t.p.LogDensityGrad(x, grad)
	for i, g := range grad {
		grad[i] = (1-t.beta)*t.gq[i] + t.beta*g
	}
	return (1-t.beta)*t.lq + t.beta*t.lp
}

// Annealing are the knobs of AnnealedLogZ.
type Annealing struct {
	// Temps is the number K of temperatures β_k = (k/K)⁴, k = 1..K (the
	// fourth power spends more of them near q, where the density changes
	// fastest in β). Runs is the number of independent annealing runs
	// (weights).
	Temps, Runs int
	// Sampler moves each run once per temperature (Kind, Leapfrog,
	// StepSize, AdaptMass). With StepSize 0 the step size and mass are
	// those of one chain warmed up on the target itself (Sampler.Warmup
	// transitions from q's mean), for every temperature.
	Sampler Settings
	// Seed keys the runs' streams: run j draws from PCG(Seed, j) (the
	// pilot chain from PCG(Seed, Runs)).
	Seed uint64
	// Workers runs the runs on that many goroutines; the result does not
	// depend on it.
	Workers int
	// MinESS is the weights' ESS below which the estimate is refused
	// with ErrDegenerate.
	MinESS float64
}

// AnnealedLogZ estimates log Z of an unnormalised density by annealed
// importance sampling (Neal 2001) from the normalised Gaussian q: each run
// draws x_0 ~ q, and for k = 1..K moves x_{k−1} by one transition that
// leaves f_k = (1−β_k) log q + β_k log p invariant, with log weight
//
//	log w = Σ_{k=1}^{K} (β_k − β_{k−1}) (log p(x_{k−1}) − log q(x_{k−1})),
//
// so that E[w] = Z exactly for any K; the estimate, standard error and
// ESS are those of ImportanceLogZ over the runs' weights. newTarget makes
// one target per run (targets may keep buffers). A divergent transition
// fails with ErrDiverged.
func AnnealedLogZ(newTarget func() Target, q *Gaussian, a Annealing) (LogZ, error) {
	s := a.Sampler.WithDefaults()
	if err := s.Validate(); err != nil {
		return LogZ{}, err
	}
	d := q.Dim()
	if a.Temps < 1 || a.Runs < 2 || newTarget().Dim() != d {
		return LogZ{}, fmt.Errorf("%w: annealing with %d temperatures and %d runs in dimension %d", ErrSettings, a.Temps, a.Runs, d)
	}
	eps, minv := s.StepSize, []float64(nil)
	if eps == 0 {
		pilot, err := NewChain(newTarget(), s, rand.NewPCG(a.Seed, uint64(a.Runs)))
		if err != nil {
			return LogZ{}, err
		}
		if err := pilot.Start(q.mean); err != nil {
			return LogZ{}, err
		}
		if err := pilot.Warmup(); err != nil {
			return LogZ{}, fmt.Errorf("annealing's pilot chain: %w", err)
		}
		eps, minv = pilot.StepSize(), pilot.InverseMass()
	}
	logw := make([]float64, a.Runs)
	runs := make([]*Chain, a.Runs)
	temps := make([]*tempered, a.Runs)
	for j := range runs {
		temps[j] = &tempered{p: newTarget(), q: q.clone(), gq: make([]float64, d)}
		c, err := NewChain(temps[j], s, rand.NewPCG(a.Seed, uint64(j)))
		if err != nil {
			return LogZ{}, err
		}
		if err := c.SetStep(eps, minv); err != nil {
			return LogZ{}, err
		}
		runs[j] = c
	}
	err := RunChains(runs, a.Workers, func(j int, c *Chain) error {
		tt := temps[j]
		x := make([]float64, d)
		tt.q.Draw(c.rng, x)
		tt.beta = 0
		if err := c.Start(x); err != nil {
			return err
		}
		for k := 1; k <= a.Temps; k++ {
			b := math.Pow(float64(k)/float64(a.Temps), 4)
			prev := tt.beta
			tt.beta = b
			// Refresh evaluates the new f_k at the state x_{k−1}, and
			// with it log p and log q there.
			if err := c.Refresh(); err != nil {
				return err
			}
			logw[j] += (b - prev) * (tt.lp - tt.lq)
			if err := c.Step(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return LogZ{}, err
	}
	return FromLogWeights(logw, a.MinESS)
}
