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
	return fromLogWeights(logw, minESS)
}

// fromLogWeights turns log weights into a LogZ and checks their ESS.
func fromLogWeights(logw []float64, minESS float64) (LogZ, error) {
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
	if r.ESS < minESS {
		return r, fmt.Errorf("%w: effective sample size %.1f of %d weights is below %g", ErrDegenerate, r.ESS, len(logw), minESS)
	}
	return r, nil
}
