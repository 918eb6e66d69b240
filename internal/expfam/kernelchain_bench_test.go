package expfam

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/mcmc"
)

// BenchmarkKernelRolloutStep compares the two ways a learner's rollout
// could step a kernel family of d = 3 with m = 30 centres per
// coordinate (σ = 0.3, b = 1): the autoregressive chain's mean and draw
// by the grid rule per coordinate (KernelChain, what the sm agent with
// model.family kernel uses), and a draw of the joint family on ℝ³ by a
// warm-started HMC chain of 5 transitions of 8 leapfrog steps (the
// planners' rollout_steps of configs/coupled.yaml), the only sampler of
// the joint graph of d > 1 (which a learner is therefore refused).
func BenchmarkKernelRolloutStep(b *testing.B) {
	const m, d = 30, 3
	rng := rand.New(rand.NewPCG(1, 2))
	chain, err := NewKernelChain(m, []float64{1, 1, 1})
	if err != nil {
		b.Fatal(err)
	}
	for i := range d {
		z := make([]float64, m)
		for k := range z {
			z[k] = 2*rng.Float64() - 1
		}
		f, err := NewKernel(1, z, 0.3, 1)
		if err != nil {
			b.Fatal(err)
		}
		a := make([]float64, m*i)
		for k := range a {
			a[k] = 0.3 * rng.NormFloat64()
		}
		if err := chain.Bind(i, f, a); err != nil {
			b.Fatal(err)
		}
	}
	eta := make([]float64, d*m)
	for k := range eta {
		eta[k] = rng.NormFloat64()
	}
	x := make([]float64, d)
	b.Run("chain-mean", func(b *testing.B) {
		for b.Loop() {
			chain.Mean(eta, x)
		}
	})
	b.Run("chain-sample", func(b *testing.B) {
		for b.Loop() {
			chain.Sample(eta, rng, x)
		}
	})
	z := make([]float64, m*d)
	for k := range z {
		z[k] = 2*rng.Float64() - 1
	}
	joint, err := NewKernel(d, z, 0.3, 1)
	if err != nil {
		b.Fatal(err)
	}
	mc, err := NewMCMC(joint, mcmc.Settings{Warmup: 200, Steps: 5, Leapfrog: 8})
	if err != nil {
		b.Fatal(err)
	}
	w := mc.NewWarmChain()
	w.Draw(eta[:m], x, rng, x)
	b.Run("joint-hmc-5", func(b *testing.B) {
		for b.Loop() {
			w.Draw(eta[:m], x, rng, x)
		}
	})
}
