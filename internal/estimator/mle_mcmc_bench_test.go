package estimator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
)

// BenchmarkMCMCMLE times one MCMC maximum-likelihood fit of the coupled
// Gaussian (Λ tridiagonal: 2 on the diagonal, −0.8 beside it; d_phi =
// d + 1, W0 entries ±0.5) from n = 1000 transitions at d = 2, 4, 8, with
// HMC (10 leapfrog steps), against score matching's fit of the same data
// (BenchmarkMCMCMLE/sm-d...). It reports the iterations and whether the
// stopping rule held.
func BenchmarkMCMCMLE(b *testing.B) {
	for _, d := range []int{2, 4, 8} {
		lam := make([]float64, d*d)
		for i := range d {
			lam[i*d+i] = 2
			if i+1 < d {
				lam[i*d+i+1], lam[(i+1)*d+i] = -0.8, -0.8
			}
		}
		g := coupledGauss{d: d, lam: lam}
		dphi := d + 1
		w0 := make([]float64, d*dphi)
		for i := range w0 {
			w0[i] = 0.5 * float64(1-2*(i%2))
		}
		const n = 1000
		phis, nexts := jointGaussData(g, w0, dphi, n, rand.New(rand.NewPCG(1, uint64(d))))
		b.Run(fmt.Sprintf("mcmc-d%d", d), func(b *testing.B) {
			var rep MCMCReport
			for range b.N {
				e, err := NewMCMCMLE(g, dphi, MCMCOptions{Sampler: mcmc.Settings{Warmup: 300}, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				for t := range phis {
					e.Add(phis[t], nexts[t])
				}
				if _, err := e.Fit(1e-6, nil); err != nil {
					b.Fatal(err)
				}
				rep = e.Report
			}
			b.ReportMetric(float64(rep.Iterations), "iterations")
			conv := 0.0
			if rep.Converged {
				conv = 1
			}
			b.ReportMetric(conv, "converged")
		})
		b.Run(fmt.Sprintf("sm-d%d", d), func(b *testing.B) {
			for range b.N {
				sm := NewSM(g, dphi)
				for t := range phis {
					sm.Add(phis[t], nexts[t])
				}
				if _, err := sm.Fit(1e-6); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// coupledSinData draws n transitions of coupled-sin (α = 2, freq = 1,
// κ = 0.5) at W0 with phi = (1, u), u ~ N(0, I_d): each s'_t is the state
// of its own HMC chain after 100 transitions from 0 at the step size of a
// pilot chain warmed up at the first transition.
func coupledSinData(b *testing.B, d, n int, w0 []float64, rng *rand.Rand) (*expfam.CoupledSin, [][]float64, [][]float64) {
	fam, err := expfam.NewCoupledSin(d, 2, 1, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	dphi := d + 1
	eta := make([]float64, d)
	tg := expfam.NewTilted(fam, eta)
	var phis, nexts [][]float64
	var eps float64
	var minv []float64
	for t := range n {
		phi := make([]float64, dphi)
		phi[0] = 1
		for j := 1; j < dphi; j++ {
			phi[j] = rng.NormFloat64()
		}
		linear(w0, phi, eta)
		c, err := mcmc.NewChain(tg, mcmc.Settings{Warmup: 300, AdaptMass: true}, rand.NewPCG(rng.Uint64(), uint64(t)))
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(make([]float64, d)); err != nil {
			b.Fatal(err)
		}
		if t == 0 {
			if err := c.Warmup(); err != nil {
				b.Fatal(err)
			}
			eps, minv = c.StepSize(), append([]float64(nil), c.InverseMass()...)
		} else if err := c.SetStep(eps, minv); err != nil {
			b.Fatal(err)
		}
		x := make([]float64, d)
		if err := c.Sample(1, 100, x); err != nil {
			b.Fatal(err)
		}
		phis, nexts = append(phis, phi), append(nexts, x)
	}
	return fam, phis, nexts
}

// BenchmarkMCMCMLECoupledSin times one MCMC MLE fit and one score-matching
// fit of coupled-sin (α = 2, freq = 1, κ = 0.5: Z does not factor for
// d ≥ 3) from n = 1000 transitions at d = 4, 8, 16 (d_phi = d + 1, W0
// entries ±0.3), and reports each estimate's |Ŵ − W0|_F and the MLE's
// iterations.
func BenchmarkMCMCMLECoupledSin(b *testing.B) {
	for _, d := range []int{4, 8, 16} {
		dphi := d + 1
		w0 := make([]float64, d*dphi)
		for i := range w0 {
			w0[i] = 0.3 * float64(1-2*(i%2))
		}
		const n = 1000
		fam, phis, nexts := coupledSinData(b, d, n, w0, rand.New(rand.NewPCG(5, uint64(d))))
		frob := func(w []float64) float64 {
			var s float64
			for i, v := range w {
				s += (v - w0[i]) * (v - w0[i])
			}
			return math.Sqrt(s)
		}
		b.Run(fmt.Sprintf("mcmc-d%d", d), func(b *testing.B) {
			var rep MCMCReport
			var f *Fit
			for range b.N {
				e, err := NewMCMCMLE(fam, dphi, MCMCOptions{Sampler: mcmc.Settings{Warmup: 300, Leapfrog: 8}, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				for t := range phis {
					e.Add(phis[t], nexts[t])
				}
				if f, err = e.Fit(1e-4, nil); err != nil {
					b.Fatal(err)
				}
				rep = e.Report
			}
			b.ReportMetric(float64(rep.Iterations), "iterations")
			b.ReportMetric(frob(f.W), "err_F")
		})
		b.Run(fmt.Sprintf("sm-d%d", d), func(b *testing.B) {
			var f *Fit
			for range b.N {
				sm := NewSM(fam, dphi)
				for t := range phis {
					sm.Add(phis[t], nexts[t])
				}
				var err error
				if f, err = sm.Fit(1e-4); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(frob(f.W), "err_F")
		})
	}
}
