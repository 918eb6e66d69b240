package expfam

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/mcmc"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

func testKernel(t *testing.T, d, m int, seed uint64) *Kernel {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	z := make([]float64, m*d)
	for i := range z {
		z[i] = 1.5 * rng.NormFloat64()
	}
	f, err := NewKernel(d, z, 0.7, 1.3)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestKernelDerivatives checks ∂_i psi, ∂_i² psi (through ξ) and ∂_i log q
// against central finite differences of Psi and LogBase.
func TestKernelDerivatives(t *testing.T) {
	for _, d := range []int{1, 3} {
		f := testKernel(t, d, 5, uint64(d))
		m := f.M
		rng := rand.New(rand.NewPCG(7, 7))
		x := make([]float64, d)
		for range 5 {
			for i := range x {
				x[i] = 1.2 * rng.NormFloat64()
			}
			jac := make([]float64, d*m)
			xi := make([]float64, m)
			f.ScoreTerms(x, jac, xi)
			psi, jac2 := make([]float64, m), make([]float64, d*m)
			f.PsiJac(x, psi, jac2)
			numeric.CloseSlices(t, "PsiJac vs ScoreTerms", jac2, jac, 1e-15)
			grad := make([]float64, d)
			f.GradLogBase(x, grad)
			const h = 1e-4
			wantXi := make([]float64, m)
			p0 := make([]float64, m)
			f.Psi(x, p0)
			numeric.CloseSlices(t, "PsiJac psi", psi, p0, 0)
			for i := range d {
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				pp, pm := make([]float64, m), make([]float64, m)
				f.Psi(xp, pp)
				f.Psi(xm, pm)
				dlq := (f.LogBase(xp) - f.LogBase(xm)) / (2 * h)
				numeric.Close(t, "∂ log q", grad[i], dlq, 1e-7)
				for k := range m {
					d1 := (pp[k] - pm[k]) / (2 * h)
					d2 := (pp[k] - 2*p0[k] + pm[k]) / (h * h)
					numeric.Close(t, "∂ψ", jac[i*m+k], d1, 1e-7)
					wantXi[k] += dlq*d1 + d2
				}
			}
			numeric.CloseSlices(t, "ξ", xi, wantXi, 1e-5)
			// TiltedGrad against finite differences of log q + <psi, η>.
			eta := []float64{0.5, -1, 2, 0.3, -0.7}
			g := make([]float64, d)
			l := f.TiltedGrad(x, eta, g)
			lp := func(y []float64) float64 {
				p := make([]float64, m)
				f.Psi(y, p)
				s := f.LogBase(y)
				for k := range p {
					s += eta[k] * p[k]
				}
				return s
			}
			numeric.Close(t, "tilted log density", l, lp(x), 1e-14)
			for i := range d {
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[i] += h
				xm[i] -= h
				numeric.Close(t, "tilted gradient", g[i], (lp(xp)-lp(xm))/(2*h), 1e-7)
			}
		}
	}
}

// TestKernelLogPartition checks the quadrature's Z(η) in d = 1 against a
// plain trapezoid rule on a fine grid (an independent integration), and
// the importance-sampled Z against the quadrature within 3 standard errors.
func TestKernelLogPartition(t *testing.T) {
	f := testKernel(t, 1, 6, 11)
	eta := []float64{1.5, -2, 0.8, 2.5, -0.4, 1}
	got, err := f.LogPartition(eta)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi, n = -15.0, 15.0, 300000
	h := (hi - lo) / n
	var s float64
	p := make([]float64, f.M)
	for i := 0; i <= n; i++ {
		x := []float64{lo + float64(i)*h}
		f.Psi(x, p)
		l := f.LogBase(x)
		for k := range p {
			l += eta[k] * p[k]
		}
		w := h
		if i == 0 || i == n {
			w = h / 2
		}
		s += w * math.Exp(l)
	}
	numeric.Close(t, "log Z quadrature vs trapezoid", got, math.Log(s), 1e-10)
	rng := rand.New(rand.NewPCG(3, 4))
	is, err := f.LogPartitionIS(eta, 20000, rng, 100)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(is.LogZ-got) > 3*is.SE || is.SE <= 0 {
		t.Errorf("importance log Z %.5f ± %.5f vs quadrature %.5f: beyond 3 SE", is.LogZ, is.SE, got)
	}
	// Sampling by the inverse CDF: the mean of draws against the quadrature mean.
	c, _ := f.LineCDF(eta)
	var mx, m2 float64
	const draws = 20000
	for range draws {
		x := f.Base * c.Quantile(rng.Float64())
		mx += x
		m2 += x * x
	}
	mx /= draws
	sd := math.Sqrt(m2/draws - mx*mx)
	if want := f.Base * c.MeanX; math.Abs(mx-want) > 4*sd/math.Sqrt(draws) {
		t.Errorf("sample mean %.4f vs quadrature mean %.4f (sd %.3f)", mx, want, sd)
	}
}

// TestKernelDegenerateIS: a strongly negative tilt carves a deep hole
// where the proposal's bump mass is absent, and a positive bump far out
// with a huge η concentrates the weights on a few draws: ErrDegenerate
// naming the ESS, never a silent number. A moderate tilt passes.
func TestKernelDegenerateIS(t *testing.T) {
	f, err := NewKernel(2, []float64{6, 6, 0, 0}, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.LogPartitionIS([]float64{1, 400}, 2000, rand.New(rand.NewPCG(1, 1)), 50)
	if !errors.Is(err, mcmc.ErrDegenerate) {
		t.Fatalf("degenerate weights: got %v, want ErrDegenerate", err)
	}
	if _, err := f.LogPartitionIS([]float64{1, 1}, 2000, rand.New(rand.NewPCG(1, 1)), 50); err != nil {
		t.Fatal(err)
	}
}

func TestKernelRefusals(t *testing.T) {
	for _, c := range []struct {
		z           []float64
		sigma, base float64
		want        error
	}{
		{[]float64{0, 1}, 0, 1, ErrKernelFamily},
		{[]float64{0, 1}, math.NaN(), 1, ErrKernelFamily},
		{[]float64{0, 1}, -1, 1, ErrKernelFamily},
		{[]float64{0, 1}, 1, math.Inf(1), ErrKernelFamily},
		{[]float64{0, 0.5, 0}, 1, 1, ErrKernelCentres},
		{[]float64{math.NaN()}, 1, 1, ErrKernelCentres},
		{nil, 1, 1, ErrKernelCentres},
	} {
		if _, err := NewKernel(1, c.z, c.sigma, c.base); !errors.Is(err, c.want) {
			t.Errorf("NewKernel(%v, σ=%v, b=%v) = %v, want %v", c.z, c.sigma, c.base, err, c.want)
		}
	}
}

// TestKernelRejectionVsInverseCDF: the rejection sampler's draws follow
// the quadrature's CDF (Kolmogorov–Smirnov distance below the 0.1% critical
// value 1.95/√n).
func TestKernelRejectionVsInverseCDF(t *testing.T) {
	f := testKernel(t, 1, 6, 11)
	eta := []float64{1.5, -2, 0.8, 2.5, -0.4, 1}
	c, err := f.LineCDF(eta)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	rng := rand.New(rand.NewPCG(9, 9))
	psi, x := make([]float64, f.M), make([]float64, 1)
	u := make([]float64, n)
	for i := range u {
		if err := f.SampleReject(eta, rng, 10000, psi, x); err != nil {
			t.Fatal(err)
		}
		u[i] = c.At(x[0] / f.Base)
	}
	slices.Sort(u)
	var ks float64
	for i, v := range u {
		ks = max(ks, math.Abs(v-float64(i)/n), math.Abs(v-float64(i+1)/n))
	}
	if ks > 1.95/math.Sqrt(n) {
		t.Errorf("KS distance %.4f of rejection draws from the quadrature CDF exceeds %.4f", ks, 1.95/math.Sqrt(n))
	}
	if err := f.SampleReject([]float64{400, 0, 0, 0, 0, 0}, rng, 10, psi, x); !errors.Is(err, ErrRejection) {
		t.Errorf("hopeless tilt: got %v, want ErrRejection", err)
	}
}

// TestKernelLogPartitionIS2D checks the importance-sampled log Z in d = 2
// against a trapezoid rule on a 2-D grid (within 3 SE), at a tilt with
// positive and negative bumps.
func TestKernelLogPartitionIS2D(t *testing.T) {
	f, err := NewKernel(2, []float64{-1, 0.5, 1.2, -0.3, 0.2, 1.5, 2.5, 2.5}, 0.5, 1.2)
	if err != nil {
		t.Fatal(err)
	}
	eta := []float64{2, -1.5, 1, 3}
	const lo, hi, n = -9.0, 9.0, 600
	h := (hi - lo) / n
	var s float64
	p := make([]float64, f.M)
	x := make([]float64, 2)
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			x[0], x[1] = lo+float64(i)*h, lo+float64(j)*h
			f.Psi(x, p)
			l := f.LogBase(x)
			for k := range p {
				l += eta[k] * p[k]
			}
			w := h * h
			if i == 0 || i == n {
				w /= 2
			}
			if j == 0 || j == n {
				w /= 2
			}
			s += w * math.Exp(l)
		}
	}
	want := math.Log(s)
	is, err := f.LogPartitionIS(eta, 20000, rand.New(rand.NewPCG(5, 6)), 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("log Z: grid %.5f, importance %.5f ± %.5f (ESS %.0f of %d)", want, is.LogZ, is.SE, is.ESS, is.N)
	if math.Abs(is.LogZ-want) > 3*is.SE || is.SE <= 0 || is.SE > 0.02 {
		t.Errorf("importance log Z %.5f ± %.5f vs grid %.5f", is.LogZ, is.SE, want)
	}
}

// TestKernelDistCheckEta: an η whose tilt is too large to normalise in
// float64 (η_0 = 1e50, a saved W entry of that size) is refused by
// CheckEta with the quadrature's error, which Sample would panic with; a
// moderate η is accepted.
func TestKernelDistCheckEta(t *testing.T) {
	f, err := NewKernel(1, []float64{-1, 1}, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	k := KernelDist{Kernel: f}
	if err := k.CheckEta([]float64{1e50, 0}); !errors.Is(err, ErrNotNormalisable) {
		t.Errorf("η_0 = 1e50: got %v, want ErrNotNormalisable", err)
	}
	if err := k.CheckEta([]float64{2, -1}); err != nil {
		t.Errorf("η = (2, −1): %v", err)
	}
}
