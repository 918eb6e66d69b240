package expfam

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/mcmc"
)

// BenchmarkWarmChainCoupledSin is one draw of s' of d = 4 coupled-sin by
// the warm-started chain of a Stepper (sampler defaults: 20 HMC
// transitions of 8 leapfrog steps).
func BenchmarkWarmChainCoupledSin(b *testing.B) {
	c, _ := NewCoupledSin(4, 1.7, 4, 0.5)
	m, err := NewMCMC(c, mcmc.Settings{Warmup: 200, Steps: 20, Leapfrog: 8})
	if err != nil {
		b.Fatal(err)
	}
	w := m.NewWarmChain()
	rng := rand.New(rand.NewPCG(1, 2))
	eta := []float64{0.5, -0.3, 0.2, 0.1}
	x := make([]float64, 4)
	w.Draw(eta, x, rng, x)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w.Draw(eta, x, rng, x)
	}
}

// BenchmarkTiltedGradCoupledSin is one evaluation of the chains' target.
func BenchmarkTiltedGradCoupledSin(b *testing.B) {
	c, _ := NewCoupledSin(4, 1.7, 4, 0.5)
	x, g, eta := []float64{0.3, -0.2, 1.1, -0.7}, make([]float64, 4), []float64{0.5, -0.3, 0.2, 0.1}
	for range b.N {
		c.TiltedGrad(x, eta, g)
	}
}
