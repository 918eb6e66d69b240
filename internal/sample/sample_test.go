package sample

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// The coupled Gaussian of the tests, as gaussian-coupled (exact sampler)
// and as its expression twin (sampled by MCMC): Λ = [[2, 0.6], [0.6, 1]].
const (
	gaussCoupledYAML = `
env:
  family:
    kind: gaussian-coupled
    precision: [[2, 0.6], [0.6, 1]]
  features: {kind: affine}
  w0: [[0.5, 0, 0.3, 0.1], [0, 0.5, -0.2, 0]]
`
	gaussTwinYAML = `
env:
  family:
    kind: expression
    log_q: "-0.5*(2*x0^2 + 1.2*x0*x1 + x1^2)"
    psi: ["x0", "x1"]
  features: {kind: affine}
  w0: [[0.5, 0, 0.3, 0.1], [0, 0.5, -0.2, 0]]
`
)

func draw(t *testing.T, yaml string, s, a []float64, n int, seed uint64, workers int) (*Result, *expfam.Model) {
	t.Helper()
	c, err := testutil.LoadYAML(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Model(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Draw(context.Background(), m, Request{State: s, Action: a, N: n, Seed: seed, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return res, m
}

// TestSampleGaussCoupledMoments checks the draws of gaussian-coupled (the
// exact sampler) and of its expression twin (4 HMC chains) against
// N(Λ⁻¹η, Λ⁻¹): each mean and covariance within 4 Monte Carlo standard
// errors, computed with the reported effective sample size for the chains
// (n for the exact sampler), and each marginal by a KS test at the 0.1%
// level for that many effective draws.
func TestSampleGaussCoupledMoments(t *testing.T) {
	s, a := []float64{0.5, -0.5}, []float64{1}
	g, _ := expfam.NewGaussCoupled([][]float64{{2, 0.6}, {0.6, 1}})
	eta := []float64{0.5*0.5 + 0.3 + 0.1, 0.5*-0.5 - 0.2}
	mu := make([]float64, 2)
	g.Mean(eta, mu)
	cov := g.Covariance()
	const n = 4000
	for name, yaml := range map[string]string{"exact": gaussCoupledYAML, "twin": gaussTwinYAML} {
		res, _ := draw(t, yaml, s, a, n, 7, 2)
		ness := []float64{n, n}
		if name == "twin" {
			if res.Diag == nil {
				t.Fatal("the expression twin was not sampled by chains")
			}
			for i, e := range res.Diag.ESS {
				ness[i] = math.Min(e, n) // antithetic chains may report ESS > n; count no more than n
				if r := res.Diag.Rhat[i]; !(r < 1.05) {
					t.Errorf("split-R̂ of s_next%d = %v", i, r)
				}
			}
		} else if res.Diag != nil {
			t.Fatal("gaussian-coupled was sampled by chains, not exactly")
		}
		checkGaussMoments(t, name, res, mu, cov, ness)
	}
}

func checkGaussMoments(t *testing.T, name string, res *Result, mu, cov, ness []float64) {
	t.Helper()
	d := res.D
	n := len(res.Draws) / d
	for i := range d {
		xs := mcmc.Coordinate(res.Draws, d, i)
		var m float64
		for _, x := range xs {
			m += x / float64(n)
		}
		if se := math.Sqrt(cov[i*d+i] / ness[i]); !testutil.AbsWithin(m, mu[i], 4*se) {
			t.Errorf("%s: mean of s_next%d = %v, want %v ± 4·%.3g", name, i, m, mu[i], se)
		}
		for j := range d {
			var c float64
			ys := mcmc.Coordinate(res.Draws, d, j)
			for r := range n {
				c += (xs[r] - mu[i]) * (ys[r] - mu[j]) / float64(n)
			}
			ne := math.Min(ness[i], ness[j])
			if se := math.Sqrt((cov[i*d+i]*cov[j*d+j] + cov[i*d+j]*cov[i*d+j]) / ne); !testutil.AbsWithin(c, cov[i*d+j], 4*se) {
				t.Errorf("%s: cov[%d][%d] = %v, want %v ± 4·%.3g", name, i, j, c, cov[i*d+j], se)
			}
		}
		sd := math.Sqrt(cov[i*d+i])
		ks := stats.KS(xs, func(x float64) float64 { return 0.5 * (1 + math.Erf((x-mu[i])/(sd*math.Sqrt2))) })
		if crit := 1.95 / math.Sqrt(ness[i]); ks > crit {
			t.Errorf("%s: KS of s_next%d = %.4f > %.4f (0.1%% level for %.0f effective draws)", name, i, ks, crit, ness[i])
		}
	}
}

// TestSampleDoesNotDependOnWorkers checks that the chains' draws are the
// same bits on 1 and 3 workers.
func TestSampleDoesNotDependOnWorkers(t *testing.T) {
	r1, _ := draw(t, gaussTwinYAML, []float64{0, 0}, []float64{1}, 400, 3, 1)
	r3, _ := draw(t, gaussTwinYAML, []float64{0, 0}, []float64{1}, 400, 3, 3)
	testutil.RequireSameBits(t, "draws", r3.Draws, r1.Draws)
}

// ks2 is the two-sample Kolmogorov–Smirnov statistic sup |F_a − F_b|
// (a and b are sorted in place).
func ks2(a, b []float64) float64 {
	slices.Sort(a)
	slices.Sort(b)
	var i, j int
	var d float64
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// TestSampleJointProductAgainstInverseCDF checks a joint expression
// family that is secretly the product of two custom-sin coordinates: its
// chains' draws against the inverse-CDF sampler of the product (the
// config custom-sin with dim 2) by the two-sample KS test at the 0.1%
// level, with the chains' effective sample size.
func TestSampleJointProductAgainstInverseCDF(t *testing.T) {
	const w0 = "  features: {kind: affine}\n  w0: [[0.5, 0.2, 0.3, 0.1], [-0.2, 0.6, -0.4, 0]]\n  reward: {centers: [0, 0]}\n"
	joint := "env:\n  family:\n    kind: expression\n    log_q: \"-abs(x0)^1.7/1.7 - abs(x1)^1.7/1.7\"\n    psi: [\"sin(4*x0)\", \"sin(4*x1)\"]\n" + w0
	prod := "env:\n  family:\n    kind: custom-sin\n    dim: 2\n" + w0
	s, a := []float64{0.3, -0.6}, []float64{-1}
	const n = 3000
	rj, _ := draw(t, joint, s, a, n, 11, 2)
	rp, _ := draw(t, prod, s, a, n, 12, 2)
	if rj.Diag == nil || rp.Diag != nil {
		t.Fatal("want the joint family sampled by chains, the product exactly")
	}
	for i := range 2 {
		ne := math.Min(rj.Diag.ESS[i], n)
		d := ks2(mcmc.Coordinate(rj.Draws, 2, i), mcmc.Coordinate(rp.Draws, 2, i))
		if crit := 1.95 * math.Sqrt((ne+n)/(ne*n)); d > crit {
			t.Errorf("s_next%d: two-sample KS = %.4f > %.4f", i, d, crit)
		}
	}
}

// coupledSin2 is coupled-sin at d = 2 with κ = 0.5.
const coupledSin2 = `
env:
  family: {kind: coupled-sin, dim: 2, coupling: 0.5}
  features: {kind: affine}
  w0: [[0.5, 0, 0.3, 0.1], [0, 0.5, -0.2, 0]]
`

// TestSampleCoupledSinAgainstQuadrature checks d = 2 coupled-sin: each
// marginal of the chains' draws against the CDF of a 2-D quadrature of
// the density (KS at the 0.1% level for the effective draws), and log Z
// by importance sampling against the quadrature within 3 of its reported
// standard errors.
func TestSampleCoupledSinAgainstQuadrature(t *testing.T) {
	s, a := []float64{0.2, -0.4}, []float64{1}
	const n = 3000
	res, m := draw(t, coupledSin2, s, a, n, 5, 2)
	eta := make([]float64, 2)
	m.Eta(s, a, make([]float64, m.Feat.Dim()), eta)
	mc := m.Dist.(*expfam.MCMC)
	tt := expfam.NewTilted(mc.Joint, eta)
	grad := make([]float64, 2)
	// The density on the midpoints of a grid of [−l, l]², once.
	const l, h = 6.0, 0.02
	k := int(2 * l / h)
	grid := make([]float64, k*k)
	var z float64
	for r := range k {
		for c := range k {
			x := []float64{-l + (float64(r)+0.5)*h, -l + (float64(c)+0.5)*h}
			grid[r*k+c] = math.Exp(tt.LogDensityGrad(x, grad))
			z += grid[r*k+c]
		}
	}
	ends := make([]float64, k) // the right ends of the cells
	for r := range ends {
		ends[r] = -l + float64(r+1)*h
	}
	for i := range 2 {
		cdf := make([]float64, k)
		var acc float64
		for r := range k {
			for c := range k {
				if i == 0 {
					acc += grid[r*k+c]
				} else {
					acc += grid[c*k+r]
				}
			}
			cdf[r] = acc / z
		}
		f := func(x float64) float64 {
			j, _ := slices.BinarySearch(ends, x)
			if j == 0 {
				return cdf[0] * math.Max(0, (x-(ends[0]-h))/h)
			}
			if j >= k {
				return 1
			}
			return cdf[j-1] + (x-ends[j-1])/h*(cdf[j]-cdf[j-1])
		}
		ne := math.Min(res.Diag.ESS[i], n)
		ks := stats.KS(mcmc.Coordinate(res.Draws, 2, i), f)
		if crit := 1.95 / math.Sqrt(ne); ks > crit {
			t.Errorf("s_next%d: KS against the quadrature = %.4f > %.4f", i, ks, crit)
		}
	}
	z *= h * h
	lz, err := mc.LogZ(eta, 4000, rand.New(rand.NewPCG(9, 10)))
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(z); !testutil.AbsWithin(lz.LogZ, want, 3*lz.SE) {
		t.Errorf("log Z by importance sampling = %v ± %.3g, quadrature %v", lz.LogZ, lz.SE, want)
	}
	t.Logf("log Z = %.5f ± %.5f (IS), %.5f (quadrature)", lz.LogZ, lz.SE, math.Log(z))
}
