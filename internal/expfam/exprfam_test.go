package expfam

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

func mustExprScalar(t testing.TB, logq string, psi string, lo, hi float64) *ExprScalar {
	t.Helper()
	s, err := NewExprScalar(ExprSpec{LogQ: logq, Psi: []string{psi}, Lo: lo, Hi: hi})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var inf = math.Inf(1)

// TestExprPaperFamilyMatchesCustomSin: the paper's family written as
// expressions computes what the built-in custom-sin computes.
func TestExprPaperFamilyMatchesCustomSin(t *testing.T) {
	sin, _ := NewSin(4, 1.7)
	ex := mustExprScalar(t, "-abs(x)^1.7/1.7", "sin(4*x)", -inf, inf)
	for i := -400; i <= 400; i++ {
		x := float64(i) * 0.0137
		if a, b := ex.LogQ(x), sin.LogQ(x); !numeric.Within(a, b, 1e-15) {
			t.Errorf("LogQ(%g) = %.17g, custom-sin %.17g", x, a, b)
		}
		if a, b := ex.DLogQ(x), sin.DLogQ(x); !numeric.Within(a, b, 1e-14) {
			t.Errorf("DLogQ(%g) = %.17g, custom-sin %.17g", x, a, b)
		}
		if a, b := ex.Psi(x), sin.Psi(x); a != b {
			t.Errorf("Psi(%g) = %.17g, custom-sin %.17g", x, a, b)
		}
		g1, x1 := ex.Score(x)
		g2, x2 := sin.Score(x)
		if !numeric.Within(g1, g2, 1e-15) || !numeric.Within(x1, x2, 1e-14) {
			t.Errorf("Score(%g) = (%g, %g), custom-sin (%g, %g)", x, g1, x1, g2, x2)
		}
		if a, b := ex.D2Psi(x), sin.D2Psi(x); !numeric.Within(a, b, 1e-15) {
			t.Errorf("D2Psi(%g) = %g, custom-sin %g", x, a, b)
		}
	}
	k1, ok1 := ex.Kink()
	k2, ok2 := sin.Kink()
	if k1 != k2 || ok1 != ok2 || !ex.BoundedPsi() {
		t.Errorf("Kink (%v, %v), custom-sin (%v, %v); BoundedPsi %v", k1, ok1, k2, ok2, ex.BoundedPsi())
	}
	// The expression's table samples the built-in's distribution (KS at 1%).
	const n = 20000
	crit := 1.628 / math.Sqrt(n)
	tab := NewTable(ex)
	for i, eta := range []float64{-2.3, 0.4, 5} {
		c, err := NewCDF(sin, eta)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 17))
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = tab.Quantile(eta, rng.Float64())
		}
		if d := stats.KS(xs, c.At); d > crit {
			t.Errorf("η=%g: KS of the expression's sampler against custom-sin's CDF %.4f > %.4f", eta, d, crit)
		}
	}
	for _, eta := range []float64{-6, -1, 0, 0.7, 3, 20} {
		a, err1 := NewCDF(ex, eta)
		b, err2 := NewCDF(sin, eta)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !numeric.Within(a.LogZ, b.LogZ, 1e-13) || !numeric.Within(a.Mean, b.Mean, 1e-12) || !numeric.Within(a.MeanX, b.MeanX, 1e-12) || !numeric.Within(a.Variance, b.Variance, 1e-12) {
			t.Errorf("η=%g: CDF (%v %v %v), custom-sin (%v %v %v)", eta, a.LogZ, a.Mean, a.MeanX, b.LogZ, b.Mean, b.MeanX)
		}
	}
}

// TestExprGaussian: the Gaussian written as expressions (one statistic,
// tabulated) against GaussCoord's closed forms, and its sampler by KS.
func TestExprGaussian(t *testing.T) {
	const sigma = 0.5
	co, err := NewExprCoord(ExprSpec{LogQ: "-x^2/(2*0.5^2)", Psi: []string{"x/0.5^2"}, Lo: -inf, Hi: inf})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewGaussCoord(sigma)
	const n = 20000
	crit := 1.628 / math.Sqrt(n)
	for i, eta := range []float64{-1.3, 0, 0.4, 2} {
		var ga, gh, ea, eh [1]float64
		a1, ok1 := co.Cumulants([]float64{eta}, ga[:], gh[:])
		a2, _ := g.Cumulants([]float64{eta}, ea[:], eh[:])
		if !ok1 || !numeric.AbsWithin(a1, a2, 1e-9) || !numeric.AbsWithin(ga[0], ea[0], 1e-8) || !numeric.AbsWithin(gh[0], eh[0], 1e-3*eh[0]) {
			t.Errorf("η=%g: cumulants (%v, %v, %v), closed form (%v, %v, %v)", eta, a1, ga[0], gh[0], a2, ea[0], eh[0])
		}
		var sg, sx, eg, ex [1]float64
		for _, x := range []float64{-1, 0, 0.3} {
			co.Score(x, sg[:], sx[:])
			g.Score(x, eg[:], ex[:])
			if !numeric.Within(sg[0], eg[0], 1e-15) || !numeric.Within(sx[0], ex[0], 1e-15) {
				t.Errorf("Score(%g) = (%v, %v), closed form (%v, %v)", x, sg[0], sx[0], eg[0], ex[0])
			}
		}
		rng := rand.New(rand.NewPCG(uint64(i), 21))
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = co.Sample([]float64{eta}, rng)
		}
		cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(x-eta)/(sigma*math.Sqrt2)) }
		if d := stats.KS(xs, cdf); d > crit {
			t.Errorf("η=%g: KS %.4f > %.4f", eta, d, crit)
		}
	}
}

// TestExprCoordGaussianClosedForm: two statistics [x, −x²/2] with q ≡ 1 at
// η = (m, 1) is N(m, 1): log Z, E[ψ], Cov[ψ], the mean and the CDF (the
// exact inverse-CDF sampler's error bound: below 1e-9 in Kolmogorov
// distance) in closed form, and the sampler by KS.
func TestExprCoordGaussianClosedForm(t *testing.T) {
	co, err := NewExprCoord(ExprSpec{LogQ: "0", Psi: []string{"x", "-x^2/2"}, Lo: -inf, Hi: inf})
	if err != nil {
		t.Fatal(err)
	}
	c := co.(*ExprCoord)
	const n = 1000 // a draw is a quadrature: about 0.1 ms
	crit := 1.628 / math.Sqrt(n)
	for i, m := range []float64{-2, 0.7} {
		eta := []float64{m, 1}
		grad, hess := make([]float64, 2), make([]float64, 4)
		a, ok := c.Cumulants(eta, grad, hess)
		wantG := []float64{m, -(1 + m*m) / 2}
		wantH := []float64{1, -m, -m, m*m + 0.5}
		if !ok || !numeric.AbsWithin(a, (m*m/2+0.5*math.Log(2*math.Pi)), 1e-10) {
			t.Errorf("m=%g: log Z %v", m, a)
		}
		for k := range 2 {
			numeric.AbsClosef(t, grad[k], wantG[k], 1e-9, "m=%g: E[ψ] %v, want %v", m, grad, wantG)
		}
		for k := range 4 {
			numeric.AbsClosef(t, hess[k], wantH[k], 1e-8, "m=%g: Cov[ψ] %v, want %v", m, hess, wantH)
		}
		if mean := c.Mean(eta); !numeric.AbsWithin(mean, m, 1e-10) {
			t.Errorf("m=%g: Mean %v", m, mean)
		}
		cd, err := c.cdf(eta)
		if err != nil {
			t.Fatal(err)
		}
		normal := func(x float64) float64 { return 0.5 * math.Erfc(-(x-m)/math.Sqrt2) }
		var worst float64
		for x := m - 8; x <= m+8; x += 0.00731 {
			worst = math.Max(worst, math.Abs(cd.At(x)-normal(x)))
		}
		if worst > 1e-9 {
			t.Errorf("m=%g: CDF off the normal's by %.3g", m, worst)
		}
		rng := rand.New(rand.NewPCG(uint64(i), 5))
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = c.Sample(eta, rng)
		}
		if d := stats.KS(xs, normal); d > crit {
			t.Errorf("m=%g: KS %.4f > %.4f", m, d, crit)
		}
		// Cumulants are derivatives of LogPartition.
		const h = 1e-5
		for k := range 2 {
			up, dn := append([]float64(nil), eta...), append([]float64(nil), eta...)
			up[k] += h
			dn[k] -= h
			zu, _ := c.LogPartition(up)
			zd, _ := c.LogPartition(dn)
			if fd := (zu - zd) / (2 * h); !numeric.AbsWithin(fd, grad[k], 1e-6) {
				t.Errorf("m=%g: ∂A/∂η_%d = %v by differences, E[ψ] = %v", m, k, fd, grad[k])
			}
		}
	}
}

// TestExprBoundedSupport: q ≡ 1 and ψ = x on [0, 1] is the truncated
// exponential, log Z = log((e^η − 1)/η), F(x) = (e^{ηx} − 1)/(e^η − 1); on
// [0, ∞) with ψ = −x, the exponential of rate η.
func TestExprBoundedSupport(t *testing.T) {
	s := mustExprScalar(t, "0", "x", 0, 1)
	tab := NewTable(s)
	const n = 20000
	crit := 1.628 / math.Sqrt(n)
	for i, eta := range []float64{-3, 0.5, 2.25} {
		c, err := NewCDF(s, eta)
		if err != nil {
			t.Fatal(err)
		}
		if want := math.Log(math.Expm1(eta) / eta); !numeric.AbsWithin(c.LogZ, want, 1e-12) {
			t.Errorf("η=%g: log Z %.15g, want %.15g", eta, c.LogZ, want)
		}
		lo, hi := c.Support()
		if lo < 0 || hi > 1 {
			t.Errorf("η=%g: support [%g, %g] outside [0, 1]", eta, lo, hi)
		}
		F := func(x float64) float64 { return math.Expm1(eta*math.Min(math.Max(x, 0), 1)) / math.Expm1(eta) }
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		xs := make([]float64, n)
		for j := range xs {
			xs[j] = tab.Quantile(eta, rng.Float64())
			if xs[j] < 0 || xs[j] > 1 {
				t.Fatalf("η=%g: draw %g outside the support", eta, xs[j])
			}
		}
		if d := stats.KS(xs, F); d > crit {
			t.Errorf("η=%g: KS %.4f > %.4f", eta, d, crit)
		}
	}
	e := mustExprScalar(t, "0", "-x", 0, inf)
	c, err := NewCDF(e, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !numeric.AbsWithin(c.LogZ, math.Log(0.5), 1e-12) || !numeric.AbsWithin(c.MeanX, 0.5, 1e-12) {
		t.Errorf("exponential(2): log Z %.15g, mean %.15g; want log(1/2), 1/2", c.LogZ, c.MeanX)
	}
}

// TestWeightedScoreMatchingIdentity: on a bounded support the terms weighted
// with the family's default weight h satisfy E_p[h ψ'² η + h ξ + h' ψ'] = 0
// at the true η (generalised score matching's population equation, from
// integration by parts with h vanishing at the ends), which the unweighted
// terms violate by the boundary terms. The expectation is a composite
// Simpson integral of the normalised density.
func TestWeightedScoreMatchingIdentity(t *testing.T) {
	for _, c := range []struct {
		logq, psi string
		lo, hi    float64
		eta       float64
	}{
		{"-x^2", "sin(3*x)", 0, 2, 1.3},
		{"0", "x", 0, 1, -0.8},
		{"-x", "log1p(x)", 0, inf, 1.5},
		{"-x^2/2", "x^3/3", -inf, 1, 0.4},
	} {
		s := mustExprScalar(t, c.logq, c.psi, c.lo, c.hi)
		cdf, err := NewCDF(s, c.eta)
		if err != nil {
			t.Fatal(err)
		}
		a, b := cdf.Support()
		const m = 200000
		h := (b - a) / m
		var wsum, usum float64
		for i := 0; i <= m; i++ {
			x := a + float64(i)*h
			w := 2.0
			if i == 0 || i == m {
				w = 1
			} else if i%2 == 1 {
				w = 4
			}
			p := math.Exp(s.LogQ(x) + c.eta*s.Psi(x) - cdf.LogZ)
			g, xi := s.Score(x)
			hw, dh := s.DefaultWeight().At(x)
			wsum += w * p * (hw*g*g*c.eta + hw*xi + dh*g)
			usum += w * p * (g*g*c.eta + xi)
		}
		wsum *= h / 3
		usum *= h / 3
		// Simpson's rule is O(step) = 1e-5 here: h' jumps where the
		// distance reaches the cap C.
		if math.Abs(wsum) > 1e-4 {
			t.Errorf("%s, %s on [%g, %g]: weighted E[g²η + ξ] = %.3g, want 0", c.logq, c.psi, c.lo, c.hi, wsum)
		}
		if math.Abs(usum) < 1e-3 {
			t.Errorf("%s, %s on [%g, %g]: unweighted E = %.3g: the test cannot tell", c.logq, c.psi, c.lo, c.hi, usum)
		}
	}
}

// TestExprReLUMatchesBuiltIn: ψ = [x, relu(x)] with a Gaussian base is the
// built-in relu family: closed-form cumulants, the smooth score and the
// kink's jump.
func TestExprReLUMatchesBuiltIn(t *testing.T) {
	co, err := NewExprCoord(ExprSpec{LogQ: "-x^2/2", Psi: []string{"x", "relu(x)"}, Lo: -inf, Hi: inf})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewReLU(1, 2)
	for _, eta := range [][]float64{{0, 0}, {0.5, -1}, {-1, 2}} {
		g1, h1 := make([]float64, 2), make([]float64, 4)
		g2, h2 := make([]float64, 2), make([]float64, 4)
		a1, _ := co.Cumulants(eta, g1, h1)
		a2, _ := r.Cumulants(eta, g2, h2)
		numeric.AbsClosef(t, a1, a2, 1e-9, "η=%v: log Z %v, relu %v", eta, a1, a2)
		for k := range g1 {
			numeric.AbsClosef(t, g1[k], g2[k], 1e-8, "η=%v: E[ψ] %v, relu %v", eta, g1, g2)
		}
		for k := range h1 {
			numeric.AbsClosef(t, h1[k], h2[k], 1e-7, "η=%v: Cov[ψ] %v, relu %v", eta, h1, h2)
		}
	}
	for _, x := range []float64{-1.5, 0, 0.25} {
		g1, x1 := make([]float64, 2), make([]float64, 2)
		g2, x2 := make([]float64, 2), make([]float64, 2)
		co.Score(x, g1, x1)
		r.Score(x, g2, x2)
		for k := range 2 {
			if g1[k] != g2[k] || x1[k] != x2[k] {
				t.Errorf("Score(%g) = %v %v, relu %v %v", x, g1, x1, g2, x2)
			}
		}
	}
	at, jump := co.(Kinked).Kinks()
	rat, rjump := r.Kinks()
	if len(at) != 1 || at[0] != rat[0] || jump[0][0] != rjump[0][0] || jump[0][1] != rjump[0][1] {
		t.Errorf("Kinks %v %v, relu %v %v", at, jump, rat, rjump)
	}
}

func TestExprFamilyErrors(t *testing.T) {
	for _, c := range []struct {
		spec ExprSpec
		frag string
	}{
		{ExprSpec{LogQ: "-x^2", Psi: []string{"sin(4*y)"}, Lo: -inf, Hi: inf}, `psi[0]: "sin(4*y)" column 7: unknown name "y"`},
		{ExprSpec{LogQ: "-x^", Psi: []string{"x"}, Lo: -inf, Hi: inf}, "log_q:"},
		{ExprSpec{LogQ: "-x^2", Psi: []string{"3"}, Lo: -inf, Hi: inf}, "does not depend on x"},
		{ExprSpec{LogQ: "x > 1", Psi: []string{"x"}, Lo: -inf, Hi: inf}, "comparison"},
		{ExprSpec{LogQ: "-x^2", Psi: []string{"x"}, Lo: 1, Hi: 1}, "lo < hi"},
		{ExprSpec{LogQ: "-x^2", Lo: -inf, Hi: inf}, "at least one"},
	} {
		_, err := NewExprCoord(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("%+v: error %v, want %q", c.spec, err, c.frag)
		}
	}
	for _, c := range []struct {
		logq, psi string
		frag      string
	}{
		{"-x^2", "1/x", `psi[0]: invalid expression family: "1/x" has the value +Inf at x = 0`},
		{"-x^2", "log(x)", `psi[0]: invalid expression family: "log(x)" has the value NaN`},
		{"-x^2", "x - x", "is constant"},
		{"-x^2 + sqrt(x)", "x", "log_q: invalid expression family"},
	} {
		s := mustExprScalar(t, c.logq, c.psi, -inf, inf)
		err := s.CheckOn(-3, 3)
		if err == nil || !strings.Contains(err.Error(), c.frag) || !errors.Is(err, ErrBadFamily) {
			t.Errorf("%s, %s: CheckOn error %v, want %q", c.logq, c.psi, err, c.frag)
		}
	}
	if err := mustExprScalar(t, "-abs(x)^1.7/1.7", "sin(4*x)", -inf, inf).CheckOn(-5, 5); err != nil {
		t.Errorf("paper family: %v", err)
	}
	if _, err := NewCDF(mustExprScalar(t, "x^2", "x", -inf, inf), 0); !errors.Is(err, ErrNotNormalisable) {
		t.Errorf("log q = x²: %v, want ErrNotNormalisable", err)
	}
	// ψ = exp(x²) at η = 1 reaches a log-density near 1e28 within the scan,
	// where lmax − logTail rounds to lmax: refused, with a range that is not
	// reversed or infinite in its message.
	_, err := NewCDF(mustExprScalar(t, "-x^2/2", "exp(x^2)", -inf, inf), 1)
	if !errors.Is(err, ErrNotNormalisable) || strings.Contains(err.Error(), "Inf") {
		t.Errorf("ψ = exp(x²): %v, want ErrNotNormalisable without an infinite range", err)
	}
}

// At a kink the tape's derivative is each primitive's mean of its one-sided
// values, which hides an infinite pair: abs(x)^0.5 has ψ'(0) = 0 on the
// tape and ∓Inf from the sides. CheckOn evaluates the one-sided
// derivatives at the kinks of log q and ψ, 0 and ±1 and refuses such a
// family, naming the expression, the side and the point; a kink with
// finite one-sided derivatives (relu(x)^2, the paper's log q) passes.
func TestExprCheckOneSidedDerivatives(t *testing.T) {
	for _, c := range []struct {
		logq, psi string
		frag      string
	}{
		{"-x^2/2", "abs(x)^0.5", `psi[0]: invalid expression family: "abs(x)^0.5" has the derivative from the left -Inf at x = 0`},
		{"-x^2/2", "relu(x)^0.5", `"relu(x)^0.5" has the derivative +Inf at x = 0`},
		{"-x^2/2", "sqrt(abs(x - 0.3))", `"sqrt(abs(x - 0.3))" has the derivative from the left -Inf at x = 0.3`},
		{"-x^2/2", "abs(x)^1.5", `"abs(x)^1.5" has the second derivative from the left +Inf at x = 0`},
		{"-x^2/2 - abs(x - 0.7)^0.5", "x", `log_q: invalid expression family: "-x^2/2 - abs(x - 0.7)^0.5" has the derivative from the left +Inf at x = 0.7`},
		{"-x^2/2", "abs(x^2)^0.25", `"abs(x^2)^0.25" has the second derivative +Inf at x = 0`},
	} {
		err := mustExprScalar(t, c.logq, c.psi, -inf, inf).CheckOn(-3, 3)
		if err == nil || !strings.Contains(err.Error(), c.frag) || !errors.Is(err, ErrBadFamily) {
			t.Errorf("%s, %s: CheckOn error %v, want %q", c.logq, c.psi, err, c.frag)
		}
	}
	for _, c := range [][2]string{{"-x^2/2", "relu(x)^2"}, {"-abs(x)^1.7/1.7", "sin(4*x)"}, {"-x^2/2", "abs(x - 0.3)"}, {"-x^2/2", "max(x, 2*x)^2"}} {
		if err := mustExprScalar(t, c[0], c[1], -inf, inf).CheckOn(-3, 3); err != nil {
			t.Errorf("%s, %s: %v", c[0], c[1], err)
		}
	}
}

func TestExprFeatures(t *testing.T) {
	f, err := NewExprFeatures(2, 1, []string{"s0", "s1", "a0", "s0*a0", "1"})
	if err != nil {
		t.Fatal(err)
	}
	s, a := []float64{0.5, -2}, []float64{3}
	out := make([]float64, 5)
	f.Phi(s, a, out)
	want := []float64{0.5, -2, 3, 1.5, 1}
	for j := range out {
		if out[j] != want[j] {
			t.Fatalf("Phi = %v, want %v", out, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { f.Phi(s, a, out) }); n != 0 {
		t.Errorf("Phi allocates %v times", n)
	}
	if _, err := NewExprFeatures(1, 1, []string{"s0", "s1"}); err == nil || !strings.Contains(err.Error(), `phi[1]: "s1" column 1: unknown name "s1"`) {
		t.Errorf("unknown variable: %v", err)
	}
	if err := f.CheckAt([]float64{0, 0}, []float64{0}); err != nil {
		t.Error(err)
	}
	g, _ := NewExprFeatures(1, 1, []string{"1/s0"})
	if err := g.CheckAt([]float64{0}, []float64{0}); err == nil || !strings.Contains(err.Error(), "phi[0]") {
		t.Errorf("1/s0 at 0: %v", err)
	}
}

// BenchmarkExprCoordSample is one exact inverse-CDF draw of a family of
// three statistics (a quadrature per draw).
func BenchmarkExprCoordSample(b *testing.B) {
	co, err := NewExprCoord(ExprSpec{LogQ: "-x^4/4", Psi: []string{"x", "x^2", "x^3"}, Lo: -inf, Hi: inf})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	eta := []float64{0.3, 1, -0.1}
	for b.Loop() {
		co.Sample(eta, rng)
	}
}

// BenchmarkExprScalarScore is ψ' and ξ of the paper's family as
// expressions (ExprScalar.Score), against BenchmarkSinScore.
func BenchmarkExprScalarScore(b *testing.B) {
	s := mustExprScalar(b, "-abs(x)^1.7/1.7", "sin(4*x)", -inf, inf)
	var sink float64
	for i := 0; b.Loop(); i++ {
		g, xi := s.Score(0.3 + float64(i&255)*0.01)
		sink += g + xi
	}
	_ = sink
}

func BenchmarkSinScore(b *testing.B) {
	s, _ := NewSin(4, 1.7)
	var sink float64
	for i := 0; b.Loop(); i++ {
		g, xi := s.Score(0.3 + float64(i&255)*0.01)
		sink += g + xi
	}
	_ = sink
}
