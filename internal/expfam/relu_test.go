package expfam

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// simpsonVec integrates each component of f (which fills out, of length
// dim) on [a, b] with n (even) Simpson panels: component k is the composite
// Simpson integral of x ↦ out[k] as a scalar rule sums it (the same sums in
// the same order, so the same bits as one pass per component), from one
// call of f per node instead of one per component.
func simpsonVec(f func(x float64, out []float64), dim int, a, b float64, n int) []float64 {
	h := (b - a) / float64(n)
	s, v := make([]float64, dim), make([]float64, dim)
	f(a, s)
	f(b, v)
	for k := range s {
		s[k] += v[k]
	}
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		f(a+float64(i)*h, v)
		for k := range s {
			s[k] += w * v[k]
		}
	}
	for k := range s {
		s[k] = s[k] * h / 3
	}
	return s
}

// millsRef returns R(a) = ∫_0^∞ e^{−y²/2 − a y} dy and the truncated mean
// excess t and variance v by Simpson's rule in the variable w = y·max(a, 1)
// (so that the far-tail integrand exp(−w²/(2a²) − w) is resolved), over a
// range beyond which the integrand is below e^{−45} of its peak. Independent
// of the continued fraction and of erfc.
func millsRef(a float64) (r, t, v float64) {
	sc := max(a, 1)
	peak := max(-a, 0) // mode of the integrand in y
	yhi := peak + 10
	if a > 0 {
		yhi = min(10, 46/a) // e^{−a y} alone is below e^{−46} beyond
	}
	hi := yhi * sc
	g := func(w float64, out []float64) {
		y := w / sc
		// exp relative to the peak value to stay finite for a ≪ 0.
		e := math.Exp(-0.5*y*y - a*y - (0.5 * peak * peak))
		for k := range out {
			out[k] = math.Pow(y, float64(k)) * e / sc
		}
	}
	const n = 400000
	ms := simpsonVec(g, 3, 0, hi, n)
	m0, m1, m2 := ms[0], ms[1], ms[2]
	mean := m1 / m0
	// log R = log m0 + peak²/2; the caller compares logs.
	return math.Log(m0) + 0.5*peak*peak, mean, m2/m0 - mean*mean
}

func TestMillsAgainstQuadrature(t *testing.T) {
	for _, a := range []float64{-30, -8, -2.5, -0.3, 0, 0.4, 1, 2.9, 3, 3.1, 5, 12, 40, 300, 1e4} {
		logR, tRef, vRef := millsRef(a)
		if got := logMills(a); !numeric.AbsWithin(got, logR, 1e-11*(1+math.Abs(logR))) {
			t.Errorf("a=%g: log R = %.15g, quadrature %.15g", a, got, logR)
		}
		tt, v := truncMoments(a)
		// E[Z|Z≥a] − a = t; the reference mean is E[Y] = t since Y = Z − a.
		numeric.AbsClosef(t, tt, tRef, 1e-10*math.Abs(tRef), "a=%g: t = %.15g, quadrature %.15g", a, tt, tRef)
		numeric.AbsClosef(t, v, vRef, 1e-8*vRef, "a=%g: v = %.15g, quadrature %.15g", a, v, vRef)
	}
}

// Both branches agree where they meet: the continued fraction just above
// millsCFMin and erfc just below are accurate to near double precision; and
// millsRatio is exp(logMills).
func TestMillsBranchesAgree(t *testing.T) {
	for _, a := range []float64{-30, -12, -1, 0, 2, 4.99, 5, 7, 30, 1e4} {
		// e^{a²/2} carries the rounding of a²/2: about a²·1e-16 relative.
		if r, l := millsRatio(a), logMills(a); !numeric.AbsWithin(r/math.Exp(l), 1, 1e-14*(1+a*a)) {
			t.Errorf("a=%g: millsRatio %.17g, exp(logMills) %.17g", a, r, math.Exp(l))
		}
	}
	for _, a := range []float64{3, 3.5, 4, 5, 6} {
		f1, f2, f3 := millsCF(a)
		lambda := math.Exp(-0.5*a*a) / (math.Sqrt(2*math.Pi) * 0.5 * math.Erfc(a/math.Sqrt2))
		if d := math.Abs(1/f1 - 1/lambda); d > 1e-14/lambda {
			t.Errorf("a=%g: CF R = %.17g, erfc R = %.17g", a, 1/f1, 1/lambda)
		}
		tCF, tErfc := 1/f2, lambda-a
		numeric.AbsClosef(t, tCF, tErfc, 1e-12*tCF, "a=%g: CF t = %.17g, erfc t = %.17g", a, tCF, tErfc)
		_ = f3
	}
}

func TestTruncExcessIsTheTruncatedNormal(t *testing.T) {
	const n = 20000
	crit := 1.628 / math.Sqrt(n) // 1% KS critical value
	for i, a := range []float64{-3, 0, 0.4, 0.41, 2, 7, 1e3} {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = truncExcess(a, rng)
		}
		// P(Y − a ≤ e | Y ≥ a) = 1 − Φ(−(a+e))/Φ(−a) = 1 − R(a+e)φ(a+e)/(R(a)φ(a)).
		cdf := func(e float64) float64 {
			return -math.Expm1(logMills(a+e) - logMills(a) - 0.5*e*(2*a+e))
		}
		if d := stats.KS(xs, cdf); d > crit {
			t.Errorf("a=%g: KS %.4f > %.4f", a, d, crit)
		}
	}
}

// finishesWithin runs f and fails the test when it has not returned within
// d (or by the test's deadline), instead of hanging the test binary; f is
// then left running.
func finishesWithin(t *testing.T, d time.Duration, name string, f func()) {
	t.Helper()
	if dl, ok := t.Deadline(); ok && time.Until(dl)/2 < d {
		d = time.Until(dl) / 2
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s has not returned after %v", name, d)
	}
}

// Extreme inputs end: a NaN or +∞ truncation point gives NaN, and one so
// large that a² overflows (a > 1.34e154) still draws, at the rate λ = a.
// Where log Z overflows, LogPartition and Cumulants fail.
func TestReLUExtremeInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, a := range []float64{math.NaN(), math.Inf(1)} {
		finishesWithin(t, 10*time.Second, fmt.Sprintf("truncExcess(%v)", a), func() {
			if e := truncExcess(a, rng); !math.IsNaN(e) {
				t.Errorf("truncExcess(%v) = %v, want NaN", a, e)
			}
		})
	}
	for _, a := range []float64{1e149, 1e151, 1.3e154, 1e155, 1e300, math.MaxFloat64} {
		finishesWithin(t, 10*time.Second, fmt.Sprintf("truncExcess(%g)", a), func() {
			for range 100 {
				// Y − a is about Exp(1)/a.
				if e := truncExcess(a, rng); !(e >= 0 && e <= 50/a) {
					t.Fatalf("truncExcess(%g) = %v, want in [0, %g]", a, e, 50/a)
				}
			}
		})
	}
	f2, _ := NewReLU(1, 2)
	f3, _ := NewReLU(0.5, 3)
	for _, c := range []struct {
		f   *ReLU
		eta []float64
		nan bool
	}{
		{f2, []float64{math.NaN(), 0}, true},
		{f3, []float64{math.NaN(), 0, 0}, true},
		{f3, []float64{0, 0, math.NaN()}, true},
		{f2, []float64{1e155, -2e155}, false}, // α₊ = α₋ = 1e155
		{f3, []float64{1e155, -2e155, 0}, false},
		{f3, []float64{-1e300, 0, -1e300}, false}, // α₊ = 5e299, α₋ = 0
	} {
		finishesWithin(t, 10*time.Second, fmt.Sprintf("%v Sample(%v)", c.f, c.eta), func() {
			for range 100 {
				x := c.f.Sample(c.eta, rng)
				if c.nan != math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%v Sample(%v) = %v", c.f, c.eta, x)
				}
			}
		})
	}
	for _, eta := range [][]float64{{-1e155, 2e155}, {1e200, 0}, {-1e160, 0}} {
		if z, err := f2.LogPartition(eta); !errors.Is(err, ErrNotNormalisable) {
			t.Errorf("%v LogPartition(%v) = %v, %v; want ErrNotNormalisable", f2, eta, z, err)
		}
		if _, ok := f2.Cumulants(eta, make([]float64, 2), make([]float64, 4)); ok {
			t.Errorf("%v Cumulants(%v) succeeded", f2, eta)
		}
	}
	// Just short of the overflow log Z is finite: about α₋²/2 = 5e307.
	if z, err := f2.LogPartition([]float64{-1e154, 0}); err != nil || !(z > 4e307 && z < 6e307) {
		t.Errorf("%v LogPartition(−1e154, 0) = %v, %v; want about 5e307", f2, z, err)
	}
}

func reluCatalog(t *testing.T) []*ReLU {
	t.Helper()
	var fs []*ReLU
	for _, c := range []struct {
		s float64
		m int
	}{{1, 2}, {0.24, 2}, {0.7, 3}, {0.02, 3}} {
		f, err := NewReLU(c.s, c.m)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// reluEtas are natural parameters from the centre to far tails: both pieces
// comparable, one piece dominant, both pieces in a far tail.
func reluEtas(f *ReLU) [][]float64 {
	s2 := f.S * f.S
	base := [][]float64{{0, 0, 0}, {0.5 / s2, -1 / s2, 0.3 / s2}, {3 / f.S, 2 / f.S, -1 / f.S}, {-4 / f.S, 1 / f.S, 2 / f.S},
		{-40 / f.S, 0, 0}, {40 / f.S, 30 / f.S, 10 / f.S}, {-1e3 / f.S, 2e3 / f.S, -5e2 / f.S}}
	for i := range base {
		base[i] = base[i][:f.Stats]
	}
	return base
}

// reluQuad integrates x^k·exp(log q + <ψ, η> − shift) and ψ-moments of the
// family by Simpson's rule on each side of the kink (where the integrand is
// smooth), over the range where it exceeds e^{−45} of its maximum.
type reluQuad struct {
	logZ, mean float64
	epsi, cov  []float64
}

func reluReference(f *ReLU, eta []float64) reluQuad {
	m := f.Stats
	psi := make([]float64, m)
	logd := func(x float64) float64 {
		f.Psi(x, psi)
		l := f.LogQ(x)
		for k := range m {
			l += psi[k] * eta[k]
		}
		return l
	}
	// Locate the maximum on a coarse grid around both piece modes.
	cp, cm := eta[0]+eta[1], eta[0]
	if m == 3 {
		cm = eta[0] - eta[2]
	}
	s2 := f.S * f.S
	cands := []float64{0, max(s2*cp, 0), min(s2*cm, 0)}
	lmax := math.Inf(-1)
	for _, x := range cands {
		lmax = max(lmax, logd(x))
	}
	// Each side: from the kink out to where the log-density fell by 45.
	edge := func(dir float64) float64 {
		x := max(s2*cp, 0) // the mode of this side's piece, clipped to the side
		if dir < 0 {
			x = min(s2*cm, 0)
		}
		step := f.S / 64
		for logd(x) > lmax-45 {
			x += dir * step
			step *= 1.05
		}
		return x
	}
	lo, hi := edge(-1), edge(1)
	const n = 40000
	// The moments g_k(x)·q(x)/q_max, on each side of the kink, all in one
	// pass (simpsonVec: the sums of one pass per moment, bit for bit).
	mom := func(dim int, g func(x float64, out []float64)) []float64 {
		h := func(x float64, out []float64) {
			g(x, out)
			e := math.Exp(logd(x) - lmax)
			for k := range out {
				out[k] *= e
			}
		}
		left, right := simpsonVec(h, dim, lo, 0, n), simpsonVec(h, dim, 0, hi, n)
		for k := range left {
			left[k] += right[k]
		}
		return left
	}
	first := mom(2+m, func(x float64, out []float64) { // 1, x, ψ(x)
		out[0], out[1] = 1, x
		f.Psi(x, out[2:])
	})
	z := first[0]
	q := reluQuad{logZ: math.Log(z) + lmax, epsi: make([]float64, m), cov: make([]float64, m*m)}
	q.mean = first[1] / z
	for k := range m {
		q.epsi[k] = first[2+k] / z
	}
	cov := mom(m*m, func(x float64, out []float64) {
		f.Psi(x, psi)
		for k := range m {
			for l := range m {
				out[k*m+l] = (psi[k] - q.epsi[k]) * (psi[l] - q.epsi[l])
			}
		}
	})
	for k := range cov {
		q.cov[k] = cov[k] / z
	}
	return q
}

func TestReLUClosedFormsMatchQuadrature(t *testing.T) {
	for _, f := range reluCatalog(t) {
		m := f.Stats
		for _, eta := range reluEtas(f) {
			ref := reluReference(f, eta)
			z, err := f.LogPartition(eta)
			if err != nil {
				t.Fatal(err)
			}
			numeric.AbsClosef(t, z, ref.logZ, 1e-9*(1+math.Abs(z)), "%v η=%v: log Z %.15g, quadrature %.15g", f, eta, z, ref.logZ)
			// Scales: the spread of x is at most s; of ψ likewise.
			tol := 1e-8 * f.S
			if got := f.Mean(eta); !numeric.AbsWithin(got, ref.mean, tol*(1+math.Abs(ref.mean)/f.S)) {
				t.Errorf("%v η=%v: mean %.15g, quadrature %.15g", f, eta, got, ref.mean)
			}
			grad, hess := make([]float64, m), make([]float64, m*m)
			a, ok := f.Cumulants(eta, grad, hess)
			if !ok || a != z {
				t.Errorf("%v η=%v: cumulants log Z %v (ok %v), want %v", f, eta, a, ok, z)
			}
			for k := range m {
				numeric.AbsClosef(t, grad[k], ref.epsi[k], tol*(1+math.Abs(ref.epsi[k])/f.S), "%v η=%v: E[ψ_%d] %.15g, quadrature %.15g", f, eta, k, grad[k], ref.epsi[k])
				for l := range m {
					r := ref.cov[k*m+l]
					numeric.AbsClosef(t, hess[k*m+l], r, 1e-7*f.S*f.S+1e-7*math.Abs(r), "%v η=%v: Cov[%d,%d] %.15g, quadrature %.15g", f, eta, k, l, hess[k*m+l], r)
				}
			}
		}
	}
}

// The gradient of A is E[ψ] and its Hessian Cov[ψ]: check against central
// differences of LogPartition, an independent route through the closed form.
func TestReLUCumulantsAreDerivatives(t *testing.T) {
	for _, f := range reluCatalog(t) {
		m := f.Stats
		for _, eta := range reluEtas(f)[:4] {
			grad, hess := make([]float64, m), make([]float64, m*m)
			f.Cumulants(eta, grad, hess)
			for k := range m {
				at := func(v float64) float64 {
					e := slices.Clone(eta)
					e[k] = v
					z, _ := f.LogPartition(e)
					return z
				}
				h := 1e-3 / f.S
				d := (-at(eta[k]+2*h) + 8*at(eta[k]+h) - 8*at(eta[k]-h) + at(eta[k]-2*h)) / (12 * h)
				numeric.AbsClosef(t, d, grad[k], 1e-7*f.S*(1+math.Abs(grad[k])/f.S), "%v η=%v: ∂A/∂η_%d = %.12g, finite difference %.12g", f, eta, k, grad[k], d)
				for l := range m {
					gl := func(v float64) float64 {
						e := slices.Clone(eta)
						e[k] = v
						g, hh := make([]float64, m), make([]float64, m*m)
						f.Cumulants(e, g, hh)
						return g[l]
					}
					d2 := (-gl(eta[k]+2*h) + 8*gl(eta[k]+h) - 8*gl(eta[k]-h) + gl(eta[k]-2*h)) / (12 * h)
					numeric.AbsClosef(t, d2, hess[k*m+l], 1e-6*f.S*f.S*(1+math.Abs(hess[k*m+l])/(f.S*f.S)), "%v η=%v: ∂²A/∂η_%d∂η_%d = %.12g, finite difference %.12g", f, eta, k, l, hess[k*m+l], d2)
				}
			}
		}
	}
}

func TestReLUScoreMatchesFiniteDifferences(t *testing.T) {
	for _, f := range reluCatalog(t) {
		m := f.Stats
		g, xi, psi := make([]float64, m), make([]float64, m), make([]float64, m)
		for _, x := range []float64{-2.1 * f.S, -0.3 * f.S, 0.2 * f.S, 1.7 * f.S} {
			f.Score(x, g, xi)
			dlq := centralDiff(f.LogQ, x)
			for k := range m {
				pk := func(v float64) float64 { f.Psi(v, psi); return psi[k] }
				dpsi := centralDiff(pk, x)
				numeric.AbsClose(t, fmt.Sprintf("%v x=%g: ψ'_%d (against its finite difference)", f, x, k), g[k], dpsi, 1e-8)
				// ψ” = 0 away from the kink, so ξ = (log q)' ψ'.
				if want := dlq * dpsi; !numeric.AbsWithin(xi[k], want, 1e-6*(1+math.Abs(want))) {
					t.Errorf("%v x=%g: ξ_%d = %g, want %g", f, x, k, xi[k], want)
				}
			}
		}
		at, jump := f.Kinks()
		f.Score(at[0]+1e-9, g, xi)
		right := slices.Clone(g)
		f.Score(at[0]-1e-9, g, xi)
		for k := range m {
			if d := right[k] - g[k]; d != jump[0][k] {
				t.Errorf("%v: jump of ψ'_%d at the kink %g, Kinks says %g", f, k, d, jump[0][k])
			}
		}
	}
}

func TestReLUSamplerKolmogorovSmirnov(t *testing.T) {
	const n = 20000
	crit := 1.628 / math.Sqrt(n)
	for fi, f := range reluCatalog(t) {
		for ei, eta := range reluEtas(f) {
			aPlus, aMinus := f.alphas(eta)
			p := plusProb(logMills(aPlus), logMills(aMinus))
			// F(x) from the closed-form piece CDFs: an independent route (Mills
			// ratio at the shifted point) from the rejection sampler.
			cdf := func(x float64) float64 {
				if x >= 0 {
					e := x / f.S
					tail := math.Exp(logMills(aPlus+e) - logMills(aPlus) - 0.5*e*(2*aPlus+e))
					return 1 - p*tail
				}
				e := -x / f.S
				return (1 - p) * math.Exp(logMills(aMinus+e)-logMills(aMinus)-0.5*e*(2*aMinus+e))
			}
			rng := rand.New(rand.NewPCG(uint64(fi), uint64(ei)))
			xs := make([]float64, n)
			var sum float64
			for j := range xs {
				xs[j] = f.Sample(eta, rng)
				sum += xs[j]
			}
			if d := stats.KS(xs, cdf); d > crit {
				t.Errorf("%v η=%v: KS %.4f > %.4f", f, eta, d, crit)
			}
			// The sample mean agrees with Mean within 5 standard errors.
			mean := sum / n
			var ss float64
			for _, x := range xs {
				ss += (x - mean) * (x - mean)
			}
			se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
			numeric.AbsClosef(t, mean, f.Mean(eta), 5*se+1e-12, "%v η=%v: sample mean %.6g, Mean %.6g (se %.2g)", f, eta, mean, f.Mean(eta), se)
		}
	}
}

func TestCoordsProduct(t *testing.T) {
	relu, _ := NewReLU(0.5, 3)
	g, _ := NewGaussCoord(0.3)
	sin, _ := NewSin(4, 1.7)
	p, err := NewCoords([]Coord{relu, g, NewScalarCoord(sin)})
	if err != nil {
		t.Fatal(err)
	}
	if p.StateDim() != 3 || p.StatDim() != 5 || !slices.Equal(p.Blocks(), []int{3, 1, 1}) {
		t.Fatalf("dims %d %d blocks %v", p.StateDim(), p.StatDim(), p.Blocks())
	}
	x := []float64{0.4, -1.2, 0.9}
	d := p.StatDim()
	jac, xi, g2, xi2 := make([]float64, 3*d), make([]float64, d), make([]float64, d), make([]float64, d)
	p.ScoreTerms(x, jac, xi)
	p.ScoreBlock(x, g2, xi2)
	psi := make([]float64, d)
	owner := []int{0, 0, 0, 1, 2}
	for i := range 3 {
		for k := range d {
			num := centralDiff(func(v float64) float64 { y := slices.Clone(x); y[i] = v; p.Psi(y, psi); return psi[k] }, x[i])
			numeric.AbsClose(t, fmt.Sprintf("jac[%d,%d] (against its finite difference)", i, k), jac[i*d+k], num, 1e-7)
			if owner[k] == i && jac[i*d+k] != g2[k] {
				t.Errorf("ScoreBlock g[%d] = %g, ScoreTerms %g", k, g2[k], jac[i*d+k])
			}
		}
	}
	if !slices.Equal(xi, xi2) {
		t.Errorf("xi %v vs %v", xi, xi2)
	}
	eta := []float64{0.3, -0.2, 0.1, 0.7, -1.5}
	z, err := p.LogPartition(eta)
	if err != nil {
		t.Fatal(err)
	}
	// Each coordinate's log Z and mean by Simpson's rule on its density, and
	// the Gaussian's in closed form: N(η, σ²).
	z0, m0 := coordMoments(relu, eta[:3], 6)
	z1, m1 := coordMoments(g, eta[3:4], 4)
	c, _ := NewCDF(sin, -1.5)
	if zg := 0.7*0.7/(2*0.09) + 0.5*math.Log(2*math.Pi*0.09); !numeric.AbsWithin(z1, zg, 1e-12) || !numeric.AbsWithin(m1, 0.7, 1e-12) {
		t.Fatalf("Simpson: Gaussian log Z %v, mean %v; closed form %v, 0.7", z1, m1, zg)
	}
	numeric.AbsClose(t, "log Z", z, z0+z1+c.LogZ, 1e-11)
	mean := make([]float64, 3)
	p.Mean(eta, mean)
	if want := []float64{m0, m1, c.MeanX}; !numeric.AbsWithin(mean[0], want[0], 1e-11) || !numeric.AbsWithin(mean[1], want[1], 1e-11) || !numeric.AbsWithin(mean[2], want[2], 1e-8) {
		t.Errorf("mean %.15g, want %.15g", mean, want)
	}
}

// coordMoments integrates a coordinate's density q(x) exp(<ψ(x), η>) by
// Simpson's rule on [−l, 0] and [0, l] (ψ may have a kink at 0) and returns
// log Z and the mean; l must reach far into both tails.
func coordMoments(c Coord, eta []float64, l float64) (logZ, mean float64) {
	psi := make([]float64, c.StatDim())
	dens := func(x float64, out []float64) { // the density and x times it
		c.Psi(x, psi)
		e := c.LogQ(x)
		for k, v := range psi {
			e += eta[k] * v
		}
		out[0] = math.Exp(e)
		out[1] = x * out[0]
	}
	const n = 200000
	left, right := simpsonVec(dens, 2, -l, 0, n), simpsonVec(dens, 2, 0, l, n)
	z := left[0] + right[0]
	return math.Log(z), (left[1] + right[1]) / z
}

// MeanX interpolates E[x | η] between table rows to near the quadrature's
// own accuracy, and agrees with an independent Simpson integral.
func TestTableMeanX(t *testing.T) {
	sin, _ := NewSin(4, 1.7)
	tab := NewTable(sin)
	for _, eta := range []float64{-6.3, -1.01, 0.004, 0.51, 2.77, 6.02, 300} {
		c, err := NewCDF(sin, eta)
		if err != nil {
			t.Fatal(err)
		}
		numeric.AbsClose(t, fmt.Sprintf("η=%g: table E[x] (against the exact)", eta), tab.MeanX(eta), c.MeanX, 1e-7)
		if math.Abs(eta) > 100 {
			continue
		}
		lo, hi := c.Support()
		g := func(x float64, out []float64) { // x^0 and x^1 times the density
			e := math.Exp(sin.LogQ(x) + eta*sin.Psi(x))
			out[0], out[1] = math.Pow(x, 0)*e, math.Pow(x, 1)*e
		}
		left, right := simpsonVec(g, 2, lo, 0, 200000), simpsonVec(g, 2, 0, hi, 200000)
		m := (left[1] + right[1]) / (left[0] + right[0])
		numeric.AbsClose(t, fmt.Sprintf("η=%g: E[x] (against Simpson's rule)", eta), c.MeanX, m, 1e-9)
	}
}

// Marginal integrates to 1 and matches the coordinate's mean, for each kind
// of product family.
func TestMarginal(t *testing.T) {
	relu, _ := NewReLU(0.5, 3)
	g, _ := NewGaussCoord(0.3)
	sin, _ := NewSin(4, 1.7)
	coords, _ := NewCoords([]Coord{relu, g})
	prod, _ := NewProduct(sin, 2)
	gauss, _ := NewGaussian(2, 0.7)
	for _, c := range []struct {
		d   Distribution
		eta []float64
	}{{coords, []float64{0.3, 1.2, -0.4, 0.9}}, {prod, []float64{0.8, -2}}, {gauss, []float64{1.5, -0.5}}} {
		mean := make([]float64, 2)
		c.d.Mean(c.eta, mean)
		for i := range 2 {
			f, err := Marginal(c.d, c.eta, i)
			if err != nil {
				t.Fatal(err)
			}
			g := func(x float64, out []float64) { out[0] = f(x); out[1] = x * out[0] }
			left, right := simpsonVec(g, 2, -12, 0, 60000), simpsonVec(g, 2, 0, 12, 60000)
			m0, m1 := left[0]+right[0], left[1]+right[1]
			if !numeric.AbsWithin(m0, 1, 1e-7) || !numeric.AbsWithin(m1, mean[i], 1e-6) {
				t.Errorf("%v coordinate %d: ∫p = %.9g, ∫x p = %.9g (mean %.9g)", c.d, i, m0, m1, mean[i])
			}
		}
	}
	if _, err := Marginal(struct{ Distribution }{gauss}, []float64{0, 0}, 0); err == nil {
		t.Error("Marginal accepted a family it cannot split")
	}
}

// TabulatedDensity is Density up to the table's interpolation of log Z.
func TestTabulatedDensity(t *testing.T) {
	sin, _ := NewSin(4, 1.7)
	prod, _ := NewProduct(sin, 1)
	m, _ := NewModel(prod, Linear{DS: 1, DA: 1}, []float64{1.3, 0.7})
	for _, s := range []float64{-2.2, -0.4, 0.9, 2.7} {
		exact, err := m.Density([]float64{s}, []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		tab, err := m.TabulatedDensity([]float64{s}, []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []float64{-1.5, 0, 0.4, 2} {
			a, b := exact([]float64{x}), tab([]float64{x})
			numeric.AbsClosef(t, a, b, 1e-8*a, "s=%g x=%g: exact %.12g, tabulated %.12g", s, x, a, b)
		}
	}
}
