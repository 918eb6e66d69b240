package mcmc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// gauss is N(mu, P⁻¹): log p = −½ (x−mu)ᵀ P (x−mu).
type gauss struct {
	mu, prec []float64
	r        []float64
}

func newGauss(mu, prec []float64) *gauss {
	return &gauss{mu: mu, prec: prec, r: make([]float64, len(mu))}
}

func (g *gauss) Dim() int { return len(g.mu) }
func (g *gauss) LogDensityGrad(x, grad []float64) float64 {
	d := len(g.mu)
	for i := range d {
		g.r[i] = x[i] - g.mu[i]
	}
	var q float64
	for i := range d {
		var s float64
		for j := range d {
			s += g.prec[i*d+j] * g.r[j]
		}
		grad[i] = -s
		q += s * g.r[i]
	}
	return -0.5 * q
}

// banana: log p(x, y) = −x⁴/4 − (y − x²)²/(2·0.25): a curved, non-Gaussian
// density whose moments come from 2-D quadrature.
type banana struct{}

func (banana) Dim() int { return 2 }
func (banana) LogDensityGrad(x, grad []float64) float64 {
	u := x[1] - x[0]*x[0]
	grad[0] = -x[0]*x[0]*x[0] + 2*x[0]*u/0.25
	grad[1] = -u / 0.25
	return -x[0]*x[0]*x[0]*x[0]/4 - u*u/(2*0.25)
}

// quartic1: log p(x) = −x⁴/4 + sin(2x), a 1-D non-Gaussian density.
type quartic1 struct{}

func (quartic1) Dim() int { return 1 }
func (quartic1) LogDensityGrad(x, grad []float64) float64 {
	grad[0] = -x[0]*x[0]*x[0] + 2*math.Cos(2*x[0])
	return -x[0]*x[0]*x[0]*x[0]/4 + math.Sin(2*x[0])
}

// bimodal: an equal mixture of N(−5, 0.5²) and N(5, 0.5²), whose modes no
// gradient chain crosses in a test's time.
type bimodal struct{}

func (bimodal) Dim() int { return 1 }
func (bimodal) LogDensityGrad(x, grad []float64) float64 {
	a := -(x[0] + 5) * (x[0] + 5) / 0.5
	b := -(x[0] - 5) * (x[0] - 5) / 0.5
	m := max(a, b)
	ea, eb := math.Exp(a-m), math.Exp(b-m)
	grad[0] = (ea*(-(x[0]+5)/0.25) + eb*(-(x[0]-5)/0.25)) / (ea + eb)
	return m + math.Log(ea+eb)
}

// nanGrad is N(0, 1) whose gradient is NaN for x > 1.
type nanGrad struct{}

func (nanGrad) Dim() int { return 1 }
func (nanGrad) LogDensityGrad(x, grad []float64) float64 {
	grad[0] = -x[0]
	if x[0] > 1 {
		grad[0] = math.NaN()
	}
	return -0.5 * x[0] * x[0]
}

// improper: log p = +x², not normalisable.
type improper struct{}

func (improper) Dim() int { return 1 }
func (improper) LogDensityGrad(x, grad []float64) float64 {
	grad[0] = 2 * x[0]
	return x[0] * x[0]
}

// TestTargetGradients checks every test target's gradient against central
// finite differences (step 1e-6, tolerance 1e-6 relative), so the sampler
// tests below test the sampler and not a wrong gradient.
func TestTargetGradients(t *testing.T) {
	targets := map[string]Target{
		"gauss":    newGauss([]float64{1, -2}, []float64{2, 0.8, 0.8, 1}),
		"banana":   banana{},
		"quartic1": quartic1{},
		"bimodal":  bimodal{},
		"gaussian proposal": func() Target {
			g, err := NewGaussian([]float64{0.5, -1}, []float64{1, 0.3, 0.3, 2})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}(),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, tg := range targets {
		d := tg.Dim()
		x := make([]float64, d)
		g := make([]float64, d)
		g2 := make([]float64, d)
		for range 5 {
			for i := range x {
				x[i] = 2 * rng.NormFloat64()
			}
			tg.LogDensityGrad(x, g)
			for i := range x {
				const h = 1e-6
				x0 := x[i]
				x[i] = x0 + h
				up := tg.LogDensityGrad(x, g2)
				x[i] = x0 - h
				down := tg.LogDensityGrad(x, g2)
				x[i] = x0
				fd := (up - down) / (2 * h)
				numeric.AbsClosef(t, fd, g[i], 1e-6*(1+math.Abs(fd)), "%s: ∂_%d log p at %v = %g, finite difference %g", name, i, x, g[i], fd)
			}
		}
	}
}
