package mcmc

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
	"gonum.org/v1/gonum/mat"
)

// chains returns m started chains on targets made by mk, seeded (seed, i).
func chains(t *testing.T, mk func() Target, s Settings, m int, seed uint64, x0 []float64) []*Chain {
	t.Helper()
	cs := make([]*Chain, m)
	for i := range cs {
		c, err := NewChain(mk(), s, rand.NewPCG(seed, uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(x0); err != nil {
			t.Fatal(err)
		}
		cs[i] = c
	}
	return cs
}

// checkGaussian compares the draws of chains on N(mu, cov) with the truth:
// each mean within 4 Monte Carlo standard errors √(cov_ii/ESS_i), each
// covariance entry within 4 standard errors √(Var((x_i−μ_i)(x_j−μ_j))/ESS)
// with the product's own ESS and the Gaussian's Var = cov_ii cov_jj +
// cov_ij², and each marginal by a KS test whose 0.1% critical value
// 1.95/√n uses the coordinate's ESS for n (the draws are correlated).
func checkGaussian(t *testing.T, name string, draws [][]float64, mu, cov []float64) {
	t.Helper()
	d := len(mu)
	ess := PerCoordinate(draws, d, ESS)
	for i := range d {
		xs := allCoordinate(draws, d, i)
		m := mean(xs)
		se := math.Sqrt(cov[i*d+i] / ess[i])
		numeric.AbsClosef(t, m, mu[i], 4*se, "%s: mean_%d = %.4f, want %.4f ± 4·%.4f (ESS %.0f)", name, i, m, mu[i], se, ess[i])
		sd := math.Sqrt(cov[i*d+i])
		D := stats.KS(xs, func(x float64) float64 { return 0.5 * math.Erfc(-(x-mu[i])/(sd*math.Sqrt2)) })
		if crit := 1.95 / math.Sqrt(ess[i]); D > crit {
			t.Errorf("%s: KS statistic of coordinate %d = %.4f > %.4f", name, i, D, crit)
		}
		for j := 0; j <= i; j++ {
			prods := make([][]float64, len(draws))
			for c, ch := range draws {
				n := len(ch) / d
				prods[c] = make([]float64, n)
				for r := range n {
					prods[c][r] = (ch[r*d+i] - mu[i]) * (ch[r*d+j] - mu[j])
				}
			}
			got := mean(allOf(prods))
			e := ESS(prods)
			se := math.Sqrt((cov[i*d+i]*cov[j*d+j] + cov[i*d+j]*cov[i*d+j]) / e)
			numeric.AbsClosef(t, got, cov[i*d+j], 4*se, "%s: cov_%d%d = %.4f, want %.4f ± 4·%.4f (ESS %.0f)", name, i, j, got, cov[i*d+j], se, e)
		}
	}
}

func allCoordinate(draws [][]float64, d, i int) []float64 {
	var xs []float64
	for _, ch := range draws {
		xs = append(xs, Coordinate(ch, d, i)...)
	}
	return xs
}

func allOf(xs [][]float64) []float64 {
	var out []float64
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// correlated returns a d-dimensional covariance with unequal scales and
// correlations: cov_ij = s_i s_j ρ^|i−j|, s_i = 0.5 + i/2, and its inverse.
func correlated(d int, rho float64) (cov, prec []float64) {
	cov = make([]float64, d*d)
	for i := range d {
		for j := range d {
			cov[i*d+j] = (0.5 + float64(i)/2) * (0.5 + float64(j)/2) * math.Pow(rho, math.Abs(float64(i-j)))
		}
	}
	var p mat.Dense
	if err := p.Inverse(mat.NewDense(d, d, append([]float64(nil), cov...))); err != nil {
		panic(err)
	}
	return cov, p.RawMatrix().Data
}

func TestGaussianTargets(t *testing.T) {
	cases := []struct {
		name string
		d    int
		rho  float64
		s    Settings
	}{
		{"hmc 2-D", 2, 0.9, Settings{Kind: HMC, Warmup: 300, Leapfrog: 8}},
		{"hmc 5-D mass", 5, 0.6, Settings{Kind: HMC, Warmup: 500, Leapfrog: 8, AdaptMass: true}},
		{"mala 2-D", 2, 0.9, Settings{Kind: MALA, Warmup: 500}},
		{"mala 5-D mass", 5, 0.6, Settings{Kind: MALA, Warmup: 1000, AdaptMass: true}},
	}
	for _, tc := range cases {
		cov, prec := correlated(tc.d, tc.rho)
		mu := make([]float64, tc.d)
		for i := range mu {
			mu[i] = float64(i) - 1
		}
		cs := chains(t, func() Target { return newGauss(mu, prec) }, tc.s, 4, 7, make([]float64, tc.d))
		n := 1000
		if tc.s.Kind == MALA {
			n = 3000
		}
		draws, err := Draws(cs, n, 1, 2)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkGaussian(t, tc.name, draws, mu, cov)
		for i, c := range cs {
			want := c.Settings().TargetAccept
			// Dual averaging ends at the averaged step ε̄, which is
			// smaller than the last iterates: the acceptance lands
			// above the target more often than below.
			if a := c.MeanAcceptProb(); a < want-0.1 || a > want+0.2 {
				t.Errorf("%s: chain %d mean acceptance probability %.3f, adapted toward %.3f (want within [−0.1, +0.2])", tc.name, i, a, want)
			}
		}
		rh := PerCoordinate(draws, tc.d, SplitRhat)
		for i, r := range rh {
			if r > 1.05 {
				t.Errorf("%s: split-R̂ of coordinate %d = %.3f for mixed chains", tc.name, i, r)
			}
		}
	}
}

// TestBanana compares HMC on a curved non-Gaussian density with moments by
// 2-D quadrature. Its quartic tails make leapfrog unstable at the step of
// the default target acceptance 0.8 (a divergent transition in a few
// thousand), so the test asks for 0.9, as one would in Stan.
//
// 2-D quadrature (midpoint rule on [−4, 4] × [−3, 10], 800×800 cells; the
// density is below e^{−30} outside): E x², E y, E y², P(y < 0.5), each
// within 4 Monte Carlo standard errors from the quantity's own ESS.
func TestBanana(t *testing.T) {
	f := func(x, y float64) []float64 {
		ind := 0.0
		if y < 0.5 {
			ind = 1
		}
		return []float64{x * x, y, y * y, ind}
	}
	want := make([]float64, 4)
	var z float64
	const nx, ny = 800, 800
	g := make([]float64, 2)
	for i := range nx {
		x := -4 + 8*(float64(i)+0.5)/nx
		for j := range ny {
			y := -3 + 13*(float64(j)+0.5)/ny
			w := math.Exp(banana{}.LogDensityGrad([]float64{x, y}, g))
			z += w
			for k, v := range f(x, y) {
				want[k] += w * v
			}
		}
	}
	for k := range want {
		want[k] /= z
	}
	cs := chains(t, func() Target { return banana{} }, Settings{Warmup: 400, Leapfrog: 10, AdaptMass: true, TargetAccept: 0.9}, 4, 11, []float64{0, 0})
	draws, err := Draws(cs, 1500, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"E x²", "E y", "E y²", "P(y < 0.5)"}
	for k := range want {
		series := make([][]float64, len(draws))
		for c, ch := range draws {
			for r := 0; r < len(ch)/2; r++ {
				series[c] = append(series[c], f(ch[2*r], ch[2*r+1])[k])
			}
		}
		all := allOf(series)
		got := mean(all)
		se := math.Sqrt(variance(all) / ESS(series))
		numeric.AbsClosef(t, got, want[k], 4*se, "banana %s = %.4f, quadrature %.4f (4 SE = %.4f)", names[k], got, want[k], 4*se)
	}
}

// TestFixedStepSlowBurnIn: at a fixed small step size a proper density
// whose chain starts far out climbs through warm-up; that is a slow
// burn-in, not an improper density, and warm-up must not refuse it (the
// drift check applies where the step size adapts).
func TestFixedStepSlowBurnIn(t *testing.T) {
	for _, kind := range []string{HMC, MALA} {
		c, err := NewChain(newGauss([]float64{0}, []float64{1}), Settings{Kind: kind, Warmup: 200, StepSize: 0.01}, rand.NewPCG(7, 8))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start([]float64{30}); err != nil {
			t.Fatal(err)
		}
		if err := c.Warmup(); err != nil {
			t.Errorf("%s: warm-up at step 0.01 from x = 30 refused: %v", kind, err)
		}
	}
}

// TestDivergence: a NaN gradient and an improper density stop the chain
// with ErrDiverged naming the state; −Inf outside a support does not.
func TestDivergence(t *testing.T) {
	for _, kind := range []string{HMC, MALA} {
		for name, tg := range map[string]Target{"NaN gradient": nanGrad{}, "improper": improper{}} {
			c, err := NewChain(tg, Settings{Kind: kind, Warmup: 200}, rand.NewPCG(3, 4))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start([]float64{0.1}); err != nil {
				t.Fatal(err)
			}
			err = c.Warmup()
			if err == nil {
				err = c.Sample(2000, 1, make([]float64, 2000))
			}
			var de *DivergenceError
			if !errors.Is(err, ErrDiverged) || !errors.As(err, &de) || len(de.At) != 1 {
				t.Errorf("%s %s: got %v, want a DivergenceError", kind, name, err)
				continue
			}
			t.Logf("%s %s: %v", kind, name, err)
			// The drift check's message gives the two means it compared,
			// the later the larger.
			if i := strings.Index(de.Reason, "its mean from "); i >= 0 {
				var first, last float64
				if _, err := fmt.Sscanf(de.Reason[i:], "its mean from %g to %g", &first, &last); err != nil || !(last > first) {
					t.Errorf("%s %s: %q: means %v, %v (%v), want the later larger", kind, name, de.Reason, first, last, err)
				}
			}
		}
		// At a state with a NaN gradient the chain cannot start.
		c, _ := NewChain(nanGrad{}, Settings{Kind: kind}, rand.NewPCG(3, 4))
		if err := c.Start([]float64{2}); !errors.Is(err, ErrDiverged) {
			t.Errorf("%s: start at a NaN gradient: %v", kind, err)
		}
	}
	// A half-normal: log p = −x²/2 on x > 0, −Inf elsewhere. Proposals
	// across 0 are rejected, not divergent; the mean is √(2/π).
	cs := chains(t, func() Target { return halfNormal{} }, Settings{Warmup: 300}, 2, 5, []float64{1})
	draws, err := Draws(cs, 2000, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	xs := allOf(draws)
	se := math.Sqrt((1 - 2/math.Pi) / ESS(draws))
	if m := mean(xs); !numeric.AbsWithin(m, math.Sqrt(2/math.Pi), 4*se) {
		t.Errorf("half-normal mean %.4f, want %.4f ± 4·%.4f", m, math.Sqrt(2/math.Pi), se)
	}
}

type halfNormal struct{}

func (halfNormal) Dim() int { return 1 }
func (halfNormal) LogDensityGrad(x, grad []float64) float64 {
	grad[0] = -x[0]
	if x[0] <= 0 {
		return math.Inf(-1)
	}
	return -0.5 * x[0] * x[0]
}

// TestDeterminism: the same seeds give the same bits for 1 and 3 workers,
// and a chain run twice from the same seed repeats itself.
func TestDeterminism(t *testing.T) {
	_, prec := correlated(3, 0.5)
	run := func(workers int, kind string) [][]float64 {
		cs := chains(t, func() Target { return newGauss([]float64{0, 1, 2}, prec) }, Settings{Kind: kind, Warmup: 200, AdaptMass: true}, 5, 9, []float64{0, 0, 0})
		d, err := Draws(cs, 200, 2, workers)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, kind := range []string{HMC, MALA} {
		a, again, b := run(1, kind), run(1, kind), run(3, kind)
		for i := range a {
			for j := range a[i] {
				if math.Float64bits(a[i][j]) != math.Float64bits(again[i][j]) {
					t.Fatalf("%s: chain %d draw value %d differs between two runs from the same seeds: %v vs %v", kind, i, j, a[i][j], again[i][j])
				}
				if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
					t.Fatalf("%s: chain %d draw value %d differs between 1 and 3 workers: %v vs %v", kind, i, j, a[i][j], b[i][j])
				}
			}
		}
	}
}

func TestSettingsValidate(t *testing.T) {
	bad := []Settings{{Kind: "nuts"}, {Warmup: -1}, {Leapfrog: -2}, {StepSize: math.NaN()}, {StepSize: -1}, {MaxEnergyError: -1}, {TargetAccept: 1.5}}
	for _, s := range bad {
		if _, err := NewChain(quartic1{}, s, rand.NewPCG(1, 1)); !errors.Is(err, ErrSettings) {
			t.Errorf("%+v: %v, want ErrSettings", s, err)
		}
	}
}

// TestFixedStepWarmup: with a fixed step size warm-up still runs its
// transitions (burn-in from a far start) and keeps the step; a chain
// started at 30 on N(0, 1) is near 0 afterwards.
func TestFixedStepWarmup(t *testing.T) {
	c, err := NewChain(newGauss([]float64{0}, []float64{1}), Settings{Warmup: 200, StepSize: 0.3, Leapfrog: 5}, rand.NewPCG(8, 9))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start([]float64{30}); err != nil {
		t.Fatal(err)
	}
	if err := c.Warmup(); err != nil {
		t.Fatal(err)
	}
	if c.StepSize() != 0.3 || math.Abs(c.State()[0]) > 4 {
		t.Errorf("after a fixed-step warm-up from 30: step %g, state %v", c.StepSize(), c.State())
	}
}
