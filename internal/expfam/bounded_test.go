package expfam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
	"gonum.org/v1/gonum/mathext"
)

// tanhSinh integrates g over u ∈ (0, 1) by the double-exponential rule
// (step 1/64 on t ∈ [−6.5, 6.5], reaching 1e-300 of the ends), passing g the point u and its distances
// from 0 and 1 computed without cancellation, so that integrable endpoint
// singularities (x^{−0.9}) and maps of (0, 1) onto a half-line keep full
// precision. Independent of the package's Gauss–Legendre quadrature.
func tanhSinh(g func(u, d0, d1 float64) float64) float64 {
	const h = 1.0 / 64
	var s float64
	for k := -416; k <= 416; k++ {
		t := float64(k) * h
		v := math.Pi / 2 * math.Sinh(t)
		// u = (1 + tanh v)/2; distances 1/(1 + e^{−2v}) and 1/(1 + e^{2v}).
		d0, d1 := 1/(1+math.Exp(-2*v)), 1/(1+math.Exp(2*v))
		w := math.Pi / 2 * math.Cosh(t) / (2 * math.Cosh(v) * math.Cosh(v))
		if d0 == 0 || d1 == 0 || w == 0 {
			continue
		}
		s += w * g(d0, d0, d1)
	}
	return s * h
}

// onSupport integrates f over the support (lo, hi) of a coordinate: (0, 1)
// scaled for an interval, x = scale·u/(1 − u) for the half-line (0, ∞).
// f gets x and hi − x, computed without cancellation.
func onSupport(lo, hi, scale float64, f func(x, dhi float64) float64) float64 {
	if math.IsInf(hi, 1) {
		return tanhSinh(func(_, d0, d1 float64) float64 {
			x := lo + scale*d0/d1
			v := f(x, math.Inf(1))
			if v == 0 {
				return 0
			}
			return v * scale / (d1 * d1)
		})
	}
	return tanhSinh(func(_, d0, d1 float64) float64 {
		x, dhi := lo+(hi-lo)*d0, (hi-lo)*d1
		if d1 < 0.5 {
			x = hi - dhi
		}
		return f(x, dhi) * (hi - lo)
	})
}

// psiAt is c.Psi at x, with hi − x = dhi for the beta family's log(1 − x),
// which x alone cannot resolve within 1e-16 of 1.
func psiAt(c Coord, x, dhi float64, out []float64) {
	c.Psi(x, out)
	if _, ok := c.(*Beta); ok {
		out[1] = math.Log(dhi)
	}
}

type boundedCase struct {
	c     Coord
	etas  [][]float64
	scale func(eta []float64) float64 // typical size of x, for the half-line map
	cdf   func(eta []float64, x float64) float64
}

func boundedCases(t *testing.T) []boundedCase {
	t.Helper()
	ex, _ := NewExponential(1)
	ga, _ := NewGamma(1)
	be, _ := NewBeta(0.5)
	tg, _ := NewTruncGauss(0.5, -0.3, 1.2)
	return []boundedCase{
		{ex, [][]float64{{0.01}, {0.5}, {1}, {7.5}, {300}},
			func(e []float64) float64 { return 1 / e[0] },
			func(e []float64, x float64) float64 { return -math.Expm1(-e[0] * x) }},
		{ga, [][]float64{{-0.9, 1}, {-0.5, 0.2}, {0, 1}, {2.5, 3}, {40, 10}},
			func(e []float64) float64 { return (e[0] + 1) / e[1] },
			func(e []float64, x float64) float64 { return mathext.GammaIncReg(e[0]+1, e[1]*x) }},
		{be, [][]float64{{-0.9, -0.9}, {-0.5, 2}, {0, 0}, {3, 1.5}, {30, 60}},
			nil,
			func(e []float64, x float64) float64 { return mathext.RegIncBeta(e[0]+1, e[1]+1, x) }},
		{tg, [][]float64{{0}, {0.4}, {-3}, {6}, {-40}, {1e3}},
			nil,
			func(e []float64, x float64) float64 {
				phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
				a, b, z := (tg.Lo-e[0])/tg.Sigma, (tg.Hi-e[0])/tg.Sigma, (x-e[0])/tg.Sigma
				// In a far tail (η = −40, 1000) the survival functions
				// underflow to 0/0: there ratios of Q(z) = φ(z)R(z), in logs
				// (Mills ratio R, checked against quadrature in
				// TestMillsAgainstQuadrature), keep the digits.
				logQ := func(z float64) float64 { return -0.5*z*z - 0.5*math.Log(2*math.Pi) + logMills(z) }
				switch {
				case a > 0: // upper tail: (Q(a) − Q(z)) / (Q(a) − Q(b))
					return math.Expm1(logQ(z)-logQ(a)) / math.Expm1(logQ(b)-logQ(a))
				case b < 0: // lower tail: Φ(z) = Q(−z)
					return (math.Exp(logQ(-z)-logQ(-b)) - math.Exp(logQ(-a)-logQ(-b))) / -math.Expm1(logQ(-a)-logQ(-b))
				}
				return (phi(z) - phi(a)) / (phi(b) - phi(a))
			}},
	}
}

// Every bounded family's log Z, E[ψ], Cov[ψ] and mean against the
// double-exponential quadrature of q exp(<η, ψ>) on its support, and the
// closed-form CDFs used by the KS test against the same quadrature.
func TestBoundedFamiliesAgainstQuadrature(t *testing.T) {
	for _, c := range boundedCases(t) {
		m := c.c.StatDim()
		lo, hi := SupportOf(c.c)
		for _, eta := range c.etas {
			scale := 1.0
			if c.scale != nil {
				scale = c.scale(eta)
			}
			grad, hess := make([]float64, m), make([]float64, m*m)
			a, ok := c.c.Cumulants(eta, grad, hess)
			if !ok {
				t.Fatalf("%v at η = %v: not normalisable", c.c, eta)
			}
			psi := make([]float64, m)
			dens := func(x, dhi float64) float64 { // normalised with A as a shift only
				psiAt(c.c, x, dhi, psi)
				l := c.c.LogQ(x) - a
				for k, e := range eta {
					l += e * psi[k]
				}
				return math.Exp(l)
			}
			z := onSupport(lo, hi, scale, dens)
			if math.Abs(math.Log(z)) > 1e-10 {
				t.Errorf("%v at η = %v: log Z = %.14g, quadrature %.14g", c.c, eta, a, a+math.Log(z))
			}
			// A node where the density underflows to 0 adds 0: there x or ψ
			// may be infinite (the half-line map's far end), and x·0 would
			// make the reference NaN, which the comparisons let pass.
			moment := func(f func(x, dhi float64) float64) float64 {
				return onSupport(lo, hi, scale, func(x, dhi float64) float64 {
					if d := dens(x, dhi); d != 0 {
						return f(x, dhi) * d
					}
					return 0
				}) / z
			}
			mean := moment(func(x, _ float64) float64 { return x })
			if got := c.c.Mean(eta); !numeric.AbsWithin(got, mean, 1e-10*(1+math.Abs(mean))) {
				t.Errorf("%v at η = %v: mean %.14g, quadrature %.14g", c.c, eta, got, mean)
			}
			ep := make([]float64, m)
			for k := range m {
				ep[k] = moment(func(x, dhi float64) float64 { psiAt(c.c, x, dhi, psi); return psi[k] })
				numeric.AbsClosef(t, grad[k], ep[k], 1e-9*(1+math.Abs(ep[k])), "%v at η = %v: E[ψ_%d] %.14g, quadrature %.14g", c.c, eta, k, grad[k], ep[k])
			}
			for k := range m {
				for l := range m {
					cov := moment(func(x, dhi float64) float64 {
						psiAt(c.c, x, dhi, psi)
						return (psi[k] - ep[k]) * (psi[l] - ep[l])
					})
					numeric.AbsClosef(t, hess[k*m+l], cov, 1e-8*(1+math.Abs(cov)), "%v at η = %v: Cov[ψ]_%d%d %.14g, quadrature %.14g", c.c, eta, k, l, hess[k*m+l], cov)
				}
			}
			// The closed-form CDF at the quartiles of the quadrature's mass.
			for _, x := range []float64{mean / 2, mean, (mean + min(hi, 2*mean+1)) / 2} {
				if !(x > lo && x < hi) {
					continue
				}
				want := onSupport(lo, x, scale, func(y, dx float64) float64 { return dens(y, hi-x+dx) }) / z
				if got := c.cdf(eta, x); !numeric.AbsWithin(got, want, 1e-9) {
					t.Errorf("%v at η = %v: CDF(%g) = %.14g, quadrature %.14g", c.c, eta, x, got, want)
				}
			}
		}
	}
}

// The exact samplers pass a KS test at the 1% level (critical value
// 1.628/√n) against the closed-form CDFs, at every test η.
func TestBoundedSamplersKolmogorovSmirnov(t *testing.T) {
	const n = 20000
	crit := 1.628 / math.Sqrt(n)
	for i, c := range boundedCases(t) {
		lo, hi := SupportOf(c.c)
		for j, eta := range c.etas {
			if _, ok := c.c.(*Beta); ok && eta[1] < -0.8 {
				// 1 − X < 2⁻⁵³ has probability 0.013 at β = 0.1, and such
				// draws round to 1 − 2⁻⁵³ (see Beta.Sample): a stated bound
				// of the sampler, not tested here.
				continue
			}
			rng := rand.New(rand.NewPCG(uint64(i), uint64(j)))
			xs := make([]float64, n)
			for k := range xs {
				xs[k] = c.c.Sample(eta, rng)
				if !(xs[k] > lo && xs[k] < hi) && !(xs[k] == lo || xs[k] == hi) {
					t.Fatalf("%v at η = %v: draw %v outside the support", c.c, eta, xs[k])
				}
			}
			if d := stats.KS(xs, func(x float64) float64 { return c.cdf(eta, x) }); d > crit {
				t.Errorf("%v at η = %v: KS = %.4f > %.4f", c.c, eta, d, crit)
			}
		}
	}
}

// Score is the derivative of ψ and log q (central differences), and the
// default weights vanish at the ends of the support.
func TestBoundedScoresAndWeights(t *testing.T) {
	for _, c := range boundedCases(t) {
		m := c.c.StatDim()
		g, xi, p1, p2 := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
		lo, hi := SupportOf(c.c)
		for _, x := range []float64{0.05, 0.3, 0.7, 0.95} {
			if !(x > lo && x < hi) {
				continue
			}
			c.c.Score(x, g, xi)
			const e = 1e-6
			c.c.Psi(x+e, p1)
			c.c.Psi(x-e, p2)
			dlq := (c.c.LogQ(x+e) - c.c.LogQ(x-e)) / (2 * e)
			g1, g2 := make([]float64, m), make([]float64, m)
			c.c.Score(x+e, g1, xi)
			c.c.Score(x-e, g2, xi)
			c.c.Score(x, g, xi)
			for k := range m {
				fd := (p1[k] - p2[k]) / (2 * e)
				d2 := (g1[k] - g2[k]) / (2 * e)
				if !numeric.AbsWithin(fd, g[k], 1e-6*(1+math.Abs(fd))) || !numeric.AbsWithin(dlq*g[k]+d2, xi[k], 1e-5*(1+math.Abs(xi[k]))) {
					t.Errorf("%v at x = %g: ψ'_%d = %g (fd %g), ξ = %g (fd %g)", c.c, x, k, g[k], fd, xi[k], dlq*g[k]+d2)
				}
			}
		}
		w := DefaultWeight(c.c)
		if w == nil {
			t.Fatalf("%v has no default weight", c.c)
		}
		for _, x := range []float64{lo, hi} {
			if math.IsInf(x, 0) {
				continue
			}
			if h, _ := w.At(x); h != 0 {
				t.Errorf("%v: weight %v at the boundary %g is %g", c.c, w, x, h)
			}
		}
	}
}

// η outside the natural parameter space: LogPartition and Cumulants refuse
// it, Sample and Mean clamp it and stay finite inside the support.
func TestBoundedOutOfRangeEta(t *testing.T) {
	ex, _ := NewExponential(1)
	ga, _ := NewGamma(1)
	be, _ := NewBeta(0.5)
	tg, _ := NewTruncGauss(1, 0, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		c    Coord
		etas [][]float64
	}{
		{ex, [][]float64{{0}, {-3}, {math.NaN()}, {math.Inf(-1)}}},
		{ga, [][]float64{{-1, 1}, {0, 0}, {-5, -5}, {math.NaN(), 1}}},
		{be, [][]float64{{-1, 0}, {0, -1.5}, {-40, -40}, {math.NaN(), math.NaN()}}},
		{tg, [][]float64{{math.NaN()}, {math.Inf(1)}}},
	} {
		lo, hi := SupportOf(c.c)
		for _, eta := range c.etas {
			if _, err := c.c.LogPartition(eta); err == nil {
				t.Errorf("%v: LogPartition(%v) accepted", c.c, eta)
			}
			if _, ok := c.c.Cumulants(eta, make([]float64, 2), make([]float64, 4)); ok {
				t.Errorf("%v: Cumulants(%v) ok", c.c, eta)
			}
			mean := c.c.Mean(eta)
			if !(mean > lo && mean <= min(hi, 1024)) {
				t.Errorf("%v: Mean(%v) = %v", c.c, eta, mean)
			}
			for range 1000 {
				if x := c.c.Sample(eta, rng); !(x >= lo && x <= hi) || math.IsNaN(x) {
					t.Fatalf("%v: Sample(%v) = %v", c.c, eta, x)
				}
			}
		}
	}
}

// DistWeight's h' is the derivative of h (central differences), h is 1
// from the cap on and 0 at the kinks and ends.
func TestDistWeight(t *testing.T) {
	for _, w := range []*DistWeight{
		{Points: []float64{0}, Lo: math.Inf(-1), Hi: math.Inf(1), C: 0.7, P: 1},
		{Lo: 0, Hi: 1, C: 0.3, P: 2},
		{Points: []float64{0.5}, Lo: -1, Hi: 2, C: 0.4, P: 1.5},
	} {
		for x := -1.23; x < 2.5; x += 0.0173 {
			h, dh := w.At(x)
			const e = 1e-7
			hp, _ := w.At(x + e)
			hm, _ := w.At(x - e)
			if fd := (hp - hm) / (2 * e); !numeric.AbsWithin(fd, dh, 1e-5*(1+math.Abs(dh))) {
				t.Errorf("%v at %g: h' = %g, finite differences %g", w, x, dh, fd)
			}
			if h < 0 || h > 1 {
				t.Errorf("%v at %g: h = %g", w, x, h)
			}
		}
		for _, p := range w.Points {
			if h, _ := w.At(p); h != 0 {
				t.Errorf("%v: h(kink %g) = %g", w, p, h)
			}
		}
	}
}

// trigamma against gonum's Hurwitz zeta ζ(2, x), an independent series.
func TestTrigamma(t *testing.T) {
	for _, x := range []float64{1e-3, 0.0625, 0.5, 1, 1.5, 3, 9.99, 10, 17, 123.4, 1e5} {
		want := mathext.Zeta(2, x)
		if got := trigamma(x); !numeric.AbsWithin(got, want, 1e-14*want) {
			t.Errorf("trigamma(%g) = %.17g, ζ(2, x) = %.17g", x, got, want)
		}
	}
}

// Densities and marginals of a bounded family are 0 outside its support
// (figures evaluate them on a grid over the real line), and integrate to 1
// inside.
func TestBoundedDensityOutsideSupport(t *testing.T) {
	be, _ := NewBeta(0.5)
	fam, _ := NewCoords([]Coord{be})
	m, err := NewModel(fam, Affine{DS: 1, DA: 0}, []float64{0.5, 1, -0.3, 2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Density([]float64{0.2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mg, err := Marginal(fam, []float64{1.1, 1.94}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{-3, -1e-300, 0, 1, 1.5} {
		if v := d([]float64{x}); v != 0 {
			t.Errorf("density at %g = %v, want 0", x, v)
		}
		if v := mg(x); v != 0 {
			t.Errorf("marginal at %g = %v, want 0", x, v)
		}
	}
	z := onSupport(0, 1, 1, func(x, _ float64) float64 { return d([]float64{x}) })
	numeric.AbsClosef(t, z, 1, 1e-10, "density integrates to %.12g", z)
}
