package mcmc

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// ar1 returns n draws of the stationary AR(1) x_t = ρ x_{t−1} + √(1−ρ²) ε_t.
func ar1(n int, rho float64, rng *rand.Rand) []float64 {
	x := make([]float64, n)
	x[0] = rng.NormFloat64()
	s := math.Sqrt(1 - rho*rho)
	for i := 1; i < n; i++ {
		x[i] = rho*x[i-1] + s*rng.NormFloat64()
	}
	return x
}

// TestESSOfAR1 compares ESS with the closed form n(1−ρ)/(1+ρ) of an AR(1)
// sequence (its integrated autocorrelation time is (1+ρ)/(1−ρ)), for
// positive, strong and negative (antithetic: ESS > n) correlation, and
// for four chains. Tolerance 8%: the estimator's relative standard error
// at n = 10⁵ is about √(2(2K+1)/n)·… ≈ 2–4% for the truncation lags K met.
func TestESSOfAR1(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 100000
	for _, rho := range []float64{0.5, 0.9, -0.3} {
		want := n * (1 - rho) / (1 + rho)
		got := ESS([][]float64{ar1(n, rho, rng)})
		numeric.AbsClosef(t, got/want, 1, 0.08, "ρ = %g: ESS %.0f, closed form %.0f", rho, got, want)
		four := [][]float64{ar1(n/4, rho, rng), ar1(n/4, rho, rng), ar1(n/4, rho, rng), ar1(n/4, rho, rng)}
		if got := ESS(four); !numeric.AbsWithin(got/want, 1, 0.08) {
			t.Errorf("ρ = %g, 4 chains: ESS %.0f, closed form %.0f", rho, got, want)
		}
	}
	if e := ESS([][]float64{{1, 1, 1, 1, 1}}); !math.IsNaN(e) {
		t.Errorf("ESS of a constant chain = %g, want NaN", e)
	}
	if e := ESS([][]float64{{1, 2, 3, 4}, {1, 2, 3}}); !math.IsNaN(e) {
		t.Errorf("ESS of chains of unequal length = %g, want NaN", e)
	}
}

// TestSplitRhat: independent stationary chains give R̂ < 1.01; chains
// stuck at the two modes of a bimodal target (HMC started at each) give
// R̂ > 1.1; one chain with a trend (its halves differ) gives R̂ > 1.1.
func TestSplitRhat(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	mixed := [][]float64{ar1(5000, 0.5, rng), ar1(5000, 0.5, rng), ar1(5000, 0.5, rng), ar1(5000, 0.5, rng)}
	if r := SplitRhat(mixed); !(r < 1.01) {
		t.Errorf("split-R̂ of mixed chains = %.4f, want < 1.01", r)
	}
	var stuck [][]float64
	for i, x0 := range []float64{-5, 5, -5, 5} {
		c, err := NewChain(bimodal{}, Settings{Warmup: 200}, rand.NewPCG(33, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start([]float64{x0}); err != nil {
			t.Fatal(err)
		}
		d, err := Draws([]*Chain{c}, 1000, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		stuck = append(stuck, d[0])
	}
	if r := SplitRhat(stuck); !(r > 1.1) {
		t.Errorf("split-R̂ of chains at different modes = %.4f, want > 1.1", r)
	}
	trend := ar1(2000, 0.5, rng)
	for i := range trend {
		trend[i] += 3 * float64(i) / 2000
	}
	if r := SplitRhat([][]float64{trend}); !(r > 1.1) {
		t.Errorf("split-R̂ of a chain with a trend = %.4f, want > 1.1", r)
	}
}

// TestThinToESS: on a correlated 2-D Gaussian with HMC at a deliberately
// short trajectory (ESS per draw well below 1/2), ThinToESS thins by more
// than 1 and its reported ESS is at least n/2; with maxThin 1 it fails
// with ErrThin.
func TestThinToESS(t *testing.T) {
	_, prec := correlated(2, 0.95)
	s := Settings{Kind: MALA, Warmup: 300}
	c, err := NewChain(newGauss([]float64{0, 0}, prec), s, rand.NewPCG(41, 42))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start([]float64{0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := c.Warmup(); err != nil {
		t.Fatal(err)
	}
	const n = 400
	out := make([]float64, 2*n)
	if _, _, err := ThinToESS(c, n, 1, out); !errors.Is(err, ErrThin) {
		t.Errorf("maxThin 1: %v, want ErrThin", err)
	}
	k, ess, err := ThinToESS(c, n, 256, out)
	if err != nil {
		t.Fatal(err)
	}
	if k < 2 || min(ess[0], ess[1]) < n/2 {
		t.Errorf("thinned by %d to ESS %v of %d draws", k, ess, n)
	}
}

// TestImportanceLogZ compares importance-sampled log Z with closed forms
// and quadrature, each within 3 reported standard errors: a correlated
// 3-D Gaussian (log Z = (d/2) log 2π + ½ log det Σ) from a proposal with
// an inflated covariance 1.5Σ and an offset mean, and the 1-D density
// exp(−x⁴/4 + sin 2x) (midpoint rule on [−6, 6], 20000 cells) from
// N(0.3, 1). A proposal far from the mass is refused with ErrDegenerate.
func TestImportanceLogZ(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	cov, prec := correlated(3, 0.5)
	mu := []float64{1, 0, -1}
	logdet := math.Log(det3(cov)) // by cofactor expansion
	want := 1.5*math.Log(2*math.Pi) + 0.5*logdet
	inflated := make([]float64, len(cov))
	for i, v := range cov {
		inflated[i] = 1.5 * v
	}
	q, err := NewGaussian([]float64{1.2, 0.1, -0.8}, inflated)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ImportanceLogZ(newGauss(mu, prec), q, 20000, rng, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !numeric.AbsWithin(r.LogZ, want, 3*r.SE) || r.SE > 0.05 {
		t.Errorf("Gaussian log Z = %.5f ± %.5f (ESS %.0f), closed form %.5f", r.LogZ, r.SE, r.ESS, want)
	}

	var z float64
	g := make([]float64, 1)
	const cells = 20000
	for i := range cells {
		x := -6 + 12*(float64(i)+0.5)/cells
		z += math.Exp(quartic1{}.LogDensityGrad([]float64{x}, g)) * 12 / cells
	}
	q1, _ := NewGaussian([]float64{0.3}, []float64{1})
	r, err = ImportanceLogZ(quartic1{}, q1, 20000, rng, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !numeric.AbsWithin(r.LogZ, math.Log(z), 3*r.SE) || r.SE > 0.05 {
		t.Errorf("quartic log Z = %.5f ± %.5f (ESS %.0f), quadrature %.5f", r.LogZ, r.SE, r.ESS, math.Log(z))
	}

	far, _ := NewGaussian([]float64{8}, []float64{0.01})
	if r, err := ImportanceLogZ(quartic1{}, far, 2000, rng, 100); !errors.Is(err, ErrDegenerate) {
		t.Errorf("a proposal at 8 with sd 0.1: %+v, %v; want ErrDegenerate", r, err)
	}
	if _, err := NewGaussian([]float64{0, 0}, []float64{1, 2, 2, 1}); !errors.Is(err, ErrSettings) {
		t.Errorf("an indefinite covariance: %v", err)
	}
}

func det3(a []float64) float64 {
	return a[0]*(a[4]*a[8]-a[5]*a[7]) - a[1]*(a[3]*a[8]-a[5]*a[6]) + a[2]*(a[3]*a[7]-a[4]*a[6])
}

// TestAnnealedLogZ compares annealed importance sampling with quadrature
// and a closed form, within 3 reported standard errors: the banana
// (2-D midpoint rule as in TestBanana), whose curved mass a Gaussian
// proposal covers poorly, from N(0, diag(1, 2)) and the correlated 5-D
// Gaussian from N(0, I); and the same bits for 1 and 3 workers.
func TestAnnealedLogZ(t *testing.T) {
	var z float64
	g := make([]float64, 2)
	const nx, ny = 800, 800
	for i := range nx {
		x := -4 + 8*(float64(i)+0.5)/nx
		for j := range ny {
			y := -3 + 13*(float64(j)+0.5)/ny
			z += math.Exp(banana{}.LogDensityGrad([]float64{x, y}, g)) * (8.0 / nx) * (13.0 / ny)
		}
	}
	q, _ := NewGaussian([]float64{0, 0.5}, []float64{1, 0, 0, 2})
	a := Annealing{Temps: 50, Runs: 200, Sampler: Settings{Warmup: 200, Leapfrog: 5, TargetAccept: 0.9}, Seed: 3, Workers: 1, MinESS: 50}
	r, err := AnnealedLogZ(func() Target { return banana{} }, q, a)
	if err != nil {
		t.Fatal(err)
	}
	if !numeric.AbsWithin(r.LogZ, math.Log(z), 3*r.SE) || r.SE > 0.05 {
		t.Errorf("banana: AIS log Z = %.5f ± %.5f (ESS %.0f), quadrature %.5f", r.LogZ, r.SE, r.ESS, math.Log(z))
	}
	a.Workers = 3
	r3, err := AnnealedLogZ(func() Target { return banana{} }, q, a)
	if err != nil || math.Float64bits(r3.LogZ) != math.Float64bits(r.LogZ) {
		t.Errorf("3 workers: %v, %v; 1 worker: %v", r3, err, r)
	}

	cov, prec := correlated(5, 0.6)
	want := 2.5*math.Log(2*math.Pi) + 0.5*logDet(cov, 5)
	id, _ := NewGaussian(make([]float64, 5), identity(5))
	a = Annealing{Temps: 200, Runs: 200, Sampler: Settings{Warmup: 200, Leapfrog: 5}, Seed: 4, Workers: 2, MinESS: 50}
	r, err = AnnealedLogZ(func() Target { return newGauss(make([]float64, 5), prec) }, id, a)
	if err != nil {
		t.Fatal(err)
	}
	if !numeric.AbsWithin(r.LogZ, want, 3*r.SE) || r.SE > 0.05 {
		t.Errorf("5-D Gaussian: AIS log Z = %.5f ± %.5f (ESS %.0f), closed form %.5f", r.LogZ, r.SE, r.ESS, want)
	}
	t.Logf("banana AIS (bananas from 2-D quadrature) and 5-D Gaussian: %+v, closed form %.5f", r, want)
}

func identity(d int) []float64 {
	m := make([]float64, d*d)
	for i := range d {
		m[i*d+i] = 1
	}
	return m
}

// logDet is log det of a symmetric positive definite d×d matrix by gonum's
// LU (independent of the Cholesky the Gaussian uses).
func logDet(a []float64, d int) float64 {
	var lu mat.LU
	lu.Factorize(mat.NewDense(d, d, append([]float64(nil), a...)))
	l, _ := lu.LogDet()
	return l
}
