package env

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// Mixture is a mixture of Gaussians on the real line,
// p(x) = Σ_j W_j N(x; Mu_j, Sd_j²): the torque noise of the pendulum's
// noise: mixture (env.pendulum.mixture_weights, mixture_means,
// mixture_stds). Two separated components make the next θ̇ bimodal given
// (s, a), a law no Gaussian model of s' can learn beyond its mean.
type Mixture struct {
	W, Mu, Sd []float64
	cum       []float64 // cumulative weights; the last is 1
}

// NewMixture returns the mixture of the given components (checked by
// validateMixture: weights > 0 summing to 1 within 1e-9, sds > 0).
func NewMixture(w, mu, sd []float64) *Mixture {
	m := &Mixture{W: w, Mu: mu, Sd: sd, cum: make([]float64, len(w))}
	var c float64
	for j, v := range w {
		c += v
		m.cum[j] = c
	}
	m.cum[len(w)-1] = 1 // the weights sum to 1 up to rounding
	return m
}

// Draw draws x ~ p: a component j with probability W_j (one uniform),
// then Mu_j + Sd_j·N(0, 1) (one normal).
func (m *Mixture) Draw(rng *rand.Rand) float64 {
	u := rng.Float64()
	j := 0
	for j < len(m.cum)-1 && u >= m.cum[j] {
		j++
	}
	return m.Mu[j] + m.Sd[j]*rng.NormFloat64()
}

// Mean is Σ_j W_j Mu_j.
func (m *Mixture) Mean() float64 {
	var s float64
	for j, w := range m.W {
		s += w * m.Mu[j]
	}
	return s
}

// CDF is Σ_j W_j Φ((x − Mu_j)/Sd_j).
func (m *Mixture) CDF(x float64) float64 {
	var s float64
	for j, w := range m.W {
		s += w * 0.5 * math.Erfc(-(x-m.Mu[j])/(m.Sd[j]*math.Sqrt2))
	}
	return s
}

// LogPDF is log Σ_j W_j N(x; Mu_j, Sd_j²).
func (m *Mixture) LogPDF(x float64) float64 {
	var s float64
	for j, w := range m.W {
		z := (x - m.Mu[j]) / m.Sd[j]
		s += w * math.Exp(-0.5*z*z) / (m.Sd[j] * math.Sqrt(2*math.Pi))
	}
	return math.Log(s)
}

// validateMixture checks the mixture keys of section: as many weights,
// means and sds (at least one), weights > 0 summing to 1 within 1e-9,
// finite means, sds in (0, 1000].
func validateMixture(bad config.Bad, section string, w, mu, sd []float64) {
	if len(w) == 0 || len(mu) != len(w) || len(sd) != len(w) {
		bad(section+".mixture_weights", "mixture_weights, mixture_means and mixture_stds must hold as many numbers (at least one), got %d, %d and %d", len(w), len(mu), len(sd))
		return
	}
	var tot float64
	for _, v := range w {
		if !(v > 0) || !finite(v) {
			bad(section+".mixture_weights", "each weight must be a finite number > 0, got %v", v)
			return
		}
		tot += v
	}
	if math.Abs(tot-1) > 1e-9 {
		bad(section+".mixture_weights", "the weights must sum to 1, got %v", tot)
	}
	for _, v := range mu {
		if !finite(v) || math.Abs(v) > 1e3 {
			bad(section+".mixture_means", "each mean must lie in [−1000, 1000], got %v", v)
		}
	}
	for _, v := range sd {
		if !(v > 0) || !finite(v) || v > 1e3 {
			bad(section+".mixture_stds", "each standard deviation must lie in (0, 1000], got %v", v)
		}
	}
}

// pendulumMixture is the pendulum's Dynamics under noise: mixture: the
// torque applied is clip(a) + ν, ν ~ mix, so θ̇' gains 3/(m l²)·ν·dt
// before its clip (stepFrom's eSpeed) and θ' moves with θ̇' (eTheta = 0).
// Its mean step applies E[ν] (exact up to the speed clip); with E[ν] = 0
// it is the noise-free step with its batch form (gaussianStep's).
type pendulumMixture struct {
	pd   *pendulum
	mix  *Mixture
	gs   *gaussianStep // the noise-free step and its reward, for NewMean
	gain float64       // 3/(m l²)·dt: ν to θ̇'
}

func newPendulumMixture(pd *pendulum, gs *gaussianStep) *pendulumMixture {
	p := &pd.p
	return &pendulumMixture{pd: pd, mix: NewMixture(p.MixtureWeights, p.MixtureMeans, p.MixtureStds), gs: gs,
		gain: pd.torque * p.DT}
}

func (d *pendulumMixture) NewSimulator() Simulator { return pendulumMixtureSim{d} }

func (d *pendulumMixture) NewMean() Simulator {
	if d.mix.Mean() == 0 {
		return d.gs.NewMean()
	}
	return pendulumMixtureMean{d}
}

type pendulumMixtureSim struct{ *pendulumMixture }

func (d pendulumMixtureSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	d.pd.step(s, a, 0, d.gain*d.mix.Draw(rng), out)
}

type pendulumMixtureMean struct{ *pendulumMixture }

func (d pendulumMixtureMean) Step(s, a []float64, _ *rand.Rand, out []float64) {
	d.pd.step(s, a, 0, d.gain*d.mix.Mean(), out)
}

// Deterministic reports that the step draws nothing.
func (pendulumMixtureMean) Deterministic() bool { return true }
