package estimator

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/expfam"
)

func benchSM(b *testing.B, n int) {
	m := paperModel(b, []float64{1, 1})
	phis, nexts := draw(b, m, n, rand.New(rand.NewPCG(1, 2)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sm := NewSM(m.Dist, 2)
		for j := range phis {
			sm.Add(phis[j], nexts[j])
		}
		if _, err := sm.Fit(1e-4); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/transition")
}

// BenchmarkSMCustomSin1e4 and 1e6: accumulate V, b and solve (one core).
func BenchmarkSMCustomSin1e4(b *testing.B) { benchSM(b, 10_000) }
func BenchmarkSMCustomSin1e6(b *testing.B) { benchSM(b, 1_000_000) }

// BenchmarkSMGaussian20x50: d_s = d_psi = 20, d_phi = 50, n = 10⁴.
func BenchmarkSMGaussian20x50(b *testing.B) {
	const ds, dphi, n = 20, 50, 10_000
	g, _ := expfam.NewGaussian(ds, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	phis := make([]float64, n*dphi)
	nexts := make([]float64, n*ds)
	for i := range phis {
		phis[i] = rng.NormFloat64()
	}
	for i := range nexts {
		nexts[i] = rng.NormFloat64()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sm := NewSM(g, dphi)
		for t := 0; t < n; t++ {
			sm.Add(phis[t*dphi:(t+1)*dphi], nexts[t*ds:(t+1)*ds])
		}
		if _, err := sm.Fit(1e-4); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSE times the sandwich variances of a fitted SM estimate (the second
// pass over the data); compare with benchSM at the same n.
func benchSE(b *testing.B, n int) {
	m := paperModel(b, []float64{1, 1})
	phis, nexts := draw(b, m, n, rand.New(rand.NewPCG(1, 2)))
	sm := NewSM(m.Dist, 2)
	for j := range phis {
		sm.Add(phis[j], nexts[j])
	}
	f, err := sm.Fit(1e-4)
	if err != nil {
		b.Fatal(err)
	}
	data := func(i int) ([]float64, []float64) { return phis[i], nexts[i] }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := sm.Sandwich(f, n, data, SEOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSMSandwichCustomSin1e4: the standard errors of BenchmarkSMCustomSin1e4's fit.
func BenchmarkSMSandwichCustomSin1e4(b *testing.B) { benchSE(b, 10_000) }

// BenchmarkSMCVCustomSin1e4: 5-fold CV over an 11-point grid on the data
// of BenchmarkSMCustomSin1e4, including the final fit at the chosen λ.
func BenchmarkSMCVCustomSin1e4(b *testing.B) {
	const n = 10_000
	m := paperModel(b, []float64{1, 1})
	phis, nexts := draw(b, m, n, rand.New(rand.NewPCG(1, 2)))
	data := func(i int) ([]float64, []float64) { return phis[i], nexts[i] }
	grid := []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cv, err := CrossValidate(NewSM(m.Dist, 2), n, data, 5, grid)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cv.All.Fit(grid[cv.Best]); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGaussSE: SE and CV for d_s = d_psi = 20, d_phi = 50, n = 10⁴ (compare
// BenchmarkSMGaussian20x50).
func gauss20x50(b *testing.B) (*expfam.Gaussian, Data) {
	const ds, dphi, n = 20, 50, 10_000
	g, _ := expfam.NewGaussian(ds, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	phis := make([]float64, n*dphi)
	nexts := make([]float64, n*ds)
	for i := range phis {
		phis[i] = rng.NormFloat64()
	}
	for i := range nexts {
		nexts[i] = rng.NormFloat64()
	}
	return g, func(t int) ([]float64, []float64) { return phis[t*dphi : (t+1)*dphi], nexts[t*ds : (t+1)*ds] }
}

func BenchmarkSMSandwichGaussian20x50(b *testing.B) {
	g, data := gauss20x50(b)
	sm := NewSM(g, 50)
	for t := range 10_000 {
		sm.Add(data(t))
	}
	f, err := sm.Fit(1e-4)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := sm.Sandwich(f, 10_000, data, SEOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSMCVGaussian20x50(b *testing.B) {
	g, data := gauss20x50(b)
	grid := []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cv, err := CrossValidate(NewSM(g, 50), 10_000, data, 5, grid)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cv.All.Fit(grid[cv.Best]); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSMReLU fits score matching to 10⁶ relu transitions (phi = [s, 1])
// in the given kink mode: the cost of the weight (weighted) against the
// kernel kink term (kernel, today's default) and no kink term (plain).
func benchSMReLU(b *testing.B, mode string) {
	relu, _ := expfam.NewReLU(1, 2)
	const n = 1_000_000
	phi, next := consistencyData(relu, []float64{0.5, 0.3, 1.0, -0.5}, n, rand.New(rand.NewPCG(1, 2)))
	var w expfam.Weight
	var h float64
	switch mode {
	case "weighted":
		w = relu.DefaultWeight()
	case "kernel":
		h = 0.15
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		fitSM(b, relu, w, h, phi, next)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the user+system CPU time of the process: on a shared machine
// the wall time of ns/op includes waiting for a core, this does not.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func BenchmarkSMReLU1e6Weighted(b *testing.B) { benchSMReLU(b, "weighted") }
func BenchmarkSMReLU1e6Kernel(b *testing.B)   { benchSMReLU(b, "kernel") }
func BenchmarkSMReLU1e6Plain(b *testing.B)    { benchSMReLU(b, "plain") }

// BenchmarkSMBeta1e6Weighted and Plain: the bounded families' weighted
// fit against plain SM (h ≡ 1, inconsistent there) on the same data.
func BenchmarkSMBeta1e6Weighted(b *testing.B) { benchSMBeta(b, true) }
func BenchmarkSMBeta1e6Plain(b *testing.B)    { benchSMBeta(b, false) }

func benchSMBeta(b *testing.B, weighted bool) {
	be, _ := expfam.NewBeta(0.5)
	const n = 1_000_000
	phi, next := consistencyData(be, []float64{0.5, 1, -0.3, 2}, n, rand.New(rand.NewPCG(1, 2)))
	var w expfam.Weight
	if weighted {
		w = be.DefaultWeight()
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		fitSM(b, be, w, 0, phi, next)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkMLEExponential4x1e4: maximum likelihood for a product of four
// exponential coordinates (phi = [s, 1]) on 10⁴ transitions, started at
// W = 0, where no coordinate is normalisable: every block starts from the
// weighted score-matching estimate.
func BenchmarkMLEExponential4x1e4(b *testing.B) {
	ex, _ := expfam.NewExponential(1)
	const ds, n = 4, 10_000
	cs := make([]expfam.Coord, ds)
	for i := range cs {
		cs[i] = ex
	}
	fam, _ := expfam.NewCoords(cs)
	rng := rand.New(rand.NewPCG(1, 2))
	e := NewMLE(fam, 2)
	next := make([]float64, ds)
	for range n {
		s := 2*rng.Float64() - 1
		for i := range next {
			next[i] = ex.Sample([]float64{0.5*s + 2}, rng)
		}
		e.Add([]float64{s, 1}, next)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := e.Fit(1e-8, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefitSM2000 is the refit of sm's Gaussian model on D = 2000
// features (d_s 17; 400 transitions so far): released hands the previous
// fit back first (Fit.Release, as the agents do), so the factor is written
// into its memory; fresh allocates a new 32 MB factor per refit, as before.
// B/op shows the difference in memory, ns/op the time.
func BenchmarkRefitSM2000(b *testing.B) {
	const ds, dphi, n = 17, 2000, 400
	g, _ := expfam.NewGaussian(ds, 0.05)
	for _, release := range []bool{true, false} {
		name := "fresh"
		if release {
			name = "released"
		}
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			e := NewSM(g, dphi) // each its own: no factor left in the pool by the other
			phi, next := make([]float64, dphi), make([]float64, ds)
			for range n {
				for j := range phi {
					phi[j] = rng.NormFloat64()
				}
				for k := range next {
					next[k] = rng.NormFloat64()
				}
				e.Add(phi, next)
			}
			b.ReportAllocs()
			var last *Fit
			for b.Loop() {
				f, err := e.Fit(1e-3)
				if err != nil {
					b.Fatal(err)
				}
				if release {
					last.Release()
				}
				last = f
			}
		})
	}
}
