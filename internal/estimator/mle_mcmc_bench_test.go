package estimator

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
