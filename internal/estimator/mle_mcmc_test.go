package estimator

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// coupledGauss is the joint Gaussian family q(x) = exp(−½ xᵀΛx), psi(x) = x:
// P(· | η) = N(Λ⁻¹η, Λ⁻¹). A test's own Joint, so the MCMC MLE is tested
// against closed forms without the environment's families.
type coupledGauss struct {
	d   int
	lam []float64 // Λ, row-major
}

func (g coupledGauss) String() string { return "test coupled Gaussian" }
func (g coupledGauss) StateDim() int  { return g.d }
func (g coupledGauss) StatDim() int   { return g.d }
func (g coupledGauss) Psi(x, out []float64) {
	copy(out, x[:g.d])
}
func (g coupledGauss) LogBase(x []float64) float64 {
	grad := make([]float64, g.d)
	return g.GradLogBase(x, grad)
}
func (g coupledGauss) GradLogBase(x, grad []float64) float64 {
	var q float64
	for i := range g.d {
		var s float64
		for j := range g.d {
			s += g.lam[i*g.d+j] * x[j]
		}
		grad[i] = -s
		q += s * x[i]
	}
	return -0.5 * q
}
func (g coupledGauss) PsiJac(x, psi, jac []float64) {
	copy(psi, x[:g.d])
	clear(jac[:g.d*g.d])
	for i := range g.d {
		jac[i*g.d+i] = 1
	}
}

// ScoreTerms: jac = I and xi_k = ∂_k log q = −(Λx)_k.
func (g coupledGauss) ScoreTerms(x, jac, xi []float64) {
	g.PsiJac(x, xi, jac)
	g.GradLogBase(x, xi)
}

// jointGaussData draws n transitions s' ~ N(Λ⁻¹ W0 phi, Λ⁻¹) with phi = (1, u)
// and u ~ N(0, I_{dphi−1}).
func jointGaussData(g coupledGauss, w0 []float64, dphi, n int, rng *rand.Rand) (phis, nexts [][]float64) {
	var cov mat.Dense
	if err := cov.Inverse(mat.NewDense(g.d, g.d, append([]float64(nil), g.lam...))); err != nil {
		panic(err)
	}
	var ch mat.Cholesky
	ch.Factorize(mat.NewSymDense(g.d, cov.RawMatrix().Data))
	var l mat.TriDense
	ch.LTo(&l)
	eta := make([]float64, g.d)
	for range n {
		phi := make([]float64, dphi)
		phi[0] = 1
		for j := 1; j < dphi; j++ {
			phi[j] = rng.NormFloat64()
		}
		linear(w0, phi, eta)
		mean := make([]float64, g.d)
		for i := range g.d {
			for j := range g.d {
				mean[i] += cov.At(i, j) * eta[j]
			}
		}
		z := make([]float64, g.d)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		x := make([]float64, g.d)
		for i := range g.d {
			x[i] = mean[i]
			for j := 0; j <= i; j++ {
				x[i] += l.At(i, j) * z[j]
			}
		}
		phis, nexts = append(phis, phi), append(nexts, x)
	}
	return phis, nexts
}

// closedGauss is Ŵ = Λ (Σ x_t phi_tᵀ)(Σ phi_t phi_tᵀ + λI)⁻¹: both the SM
// estimate and (as λ → 0) the MLE of the coupled Gaussian.
func closedGauss(g coupledGauss, phis, nexts [][]float64, lambda float64) []float64 {
	dphi := len(phis[0])
	xp := mat.NewDense(g.d, dphi, nil)
	pp := mat.NewDense(dphi, dphi, nil)
	for t := range phis {
		for i := range g.d {
			for j := range dphi {
				xp.Set(i, j, xp.At(i, j)+nexts[t][i]*phis[t][j])
			}
		}
		for i := range dphi {
			for j := range dphi {
				pp.Set(i, j, pp.At(i, j)+phis[t][i]*phis[t][j])
			}
		}
	}
	for i := range dphi {
		pp.Set(i, i, pp.At(i, i)+lambda)
	}
	var inv, a, w mat.Dense
	if err := inv.Inverse(pp); err != nil {
		panic(err)
	}
	a.Mul(mat.NewDense(g.d, g.d, g.lam), xp)
	w.Mul(&a, &inv)
	return w.RawMatrix().Data
}

// TestMCMCMLEGaussian: on the coupled Gaussian (d = 2, d_phi = 3, n = 200,
// λ = 1e-9; the test's own Joint and expfam's gaussian-coupled) the MCMC
// MLE agrees with the closed form within half of score
// matching's sandwich standard error, entry by entry; its stopping rule
// holds before MaxIter; score matching itself equals the closed form to
// 1e-9; and the fit is the same for 1 and 3 workers, bit for bit.
func TestMCMCMLEGaussian(t *testing.T) {
	g := coupledGauss{d: 2, lam: []float64{2, -0.8, -0.8, 1}}
	w0 := []float64{0.5, 1, -0.5, -0.3, 0.4, 0.8}
	const dphi, n, lambda = 3, 200, 1e-9
	phis, nexts := jointGaussData(g, w0, dphi, n, rand.New(rand.NewPCG(61, 62)))
	want := closedGauss(g, phis, nexts, lambda)

	sm := NewSM(g, dphi)
	for t := range phis {
		sm.Add(phis[t], nexts[t])
	}
	smFit, err := sm.Fit(lambda)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !testutil.AbsWithin(smFit.W[i], want[i], 1e-9) {
			t.Fatalf("SM W[%d] = %.12g, closed form %.12g", i, smFit.W[i], want[i])
		}
	}
	se, err := sm.Sandwich(smFit, n, func(t int) ([]float64, []float64) { return phis[t], nexts[t] }, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}

	real, err := expfam.NewGaussCoupled([][]float64{{2, -0.8}, {-0.8, 1}})
	if err != nil {
		t.Fatal(err)
	}
	fit := func(workers int, fam expfam.Joint) (*Fit, MCMCReport, *MCMCMLE) {
		e, err := NewMCMCMLE(fam, dphi, MCMCOptions{Sampler: mcmc.Settings{Warmup: 200, Leapfrog: 5}, Seed: 7, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for i := range phis {
			e.Add(phis[i], nexts[i])
		}
		f, err := e.Fit(lambda, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f, e.Report, e
	}
	var f1 *Fit // the test family's fit with 1 worker, compared with 3 below
	for name, fam := range map[string]expfam.Joint{"test family": g, "expfam.GaussCoupled": real} {
		f, rep, e := fit(1, fam)
		if name == "test family" {
			f1 = f
		}
		checkMCMCMLE(t, name, f, rep, want, se, gaussInverseInfo(g, phis))
		// For this Gaussian H⁻¹g_t of the MLE equals SM's A⁻¹g_t
		// (both r_t ⊗ (Σφφᵀ)⁻¹φ_t with r_t = Ŵφ_t − Λs'_t): the
		// sandwiches agree up to the Monte Carlo error of C̄ and m̄_t.
		sw, err := e.Sandwich(f, SEOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sw {
			if r := sw[i] / se[i]; r < 0.85 || r > 1.15 {
				t.Errorf("%s: sandwich variance of W[%d] %.4g, SM's %.4g", name, i, sw[i], se[i])
			}
		}
		if _, err := e.Sandwich(&Fit{N: n}, SEOptions{}); err == nil {
			t.Errorf("%s: a sandwich of another fit was not refused", name)
		}
	}
	f3, _, _ := fit(3, g)
	for i := range f1.W {
		if math.Float64bits(f1.W[i]) != math.Float64bits(f3.W[i]) {
			t.Fatalf("W[%d] = %v with 1 worker, %v with 3", i, f1.W[i], f3.W[i])
		}
	}
}

// checkMCMCMLE compares an MCMC MLE fit with the closed form want within
// half of SM's sandwich standard errors (variances se), and its inverse
// information with the closed form info.
func checkMCMCMLE(t *testing.T, name string, f *Fit, rep MCMCReport, want, se, info []float64) {
	t.Helper()
	t.Logf("%s: report %+v", name, rep)
	if !rep.Converged {
		t.Errorf("%s: the stopping rule did not hold in %d iterations: %+v", name, rep.Iterations, rep)
	}
	var worst float64
	for i := range want {
		sd := math.Sqrt(se[i])
		worst = max(worst, math.Abs(f.W[i]-want[i])/sd)
		testutil.AbsClosef(t, f.W[i], want[i], 0.5*sd, "%s: MCMC MLE W[%d] = %.5f, closed form %.5f: off by %.2f SM standard errors (> 0.5)", name, i, f.W[i], want[i], math.Abs(f.W[i]-want[i])/sd)
	}
	t.Logf("%s: largest |W − closed form| = %.3f SM standard errors", name, worst)
	// The information block is Σ_t Ĉ_t ⊗ phi_t phi_tᵀ with Ĉ_t ≈ Λ⁻¹: its
	// inverse diagonal within 10% of the closed form info.
	inv, err := f.InverseDiag()
	if err != nil {
		t.Fatal(err)
	}
	for i := range inv {
		if r := inv[i] / info[i]; r < 0.9 || r > 1.1 {
			t.Errorf("%s: variance of W[%d]: inverse information %.4g, closed form %.4g", name, i, inv[i], info[i])
		}
	}
}

// gaussInverseInfo is diag((Λ⁻¹ ⊗ Σ phi phiᵀ)⁻¹) = diag(Λ ⊗ (Σ phi phiᵀ)⁻¹):
// the coupled Gaussian's inverse Fisher information (λ → 0), whose
// Cov_η[psi] = Λ⁻¹ at every η.
func gaussInverseInfo(g coupledGauss, phis [][]float64) []float64 {
	dphi := len(phis[0])
	pp := mat.NewDense(dphi, dphi, nil)
	for _, phi := range phis {
		for i := range dphi {
			for j := range dphi {
				pp.Set(i, j, pp.At(i, j)+phi[i]*phi[j])
			}
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(pp); err != nil {
		panic(err)
	}
	out := make([]float64, g.d*dphi)
	for k := range g.d {
		for j := range dphi {
			out[k*dphi+j] = g.lam[k*g.d+k] * inv.At(j, j)
		}
	}
	return out
}

// TestMCMCMLERefusals: λ = 0 with a constant feature column is singular;
// a family whose density has a NaN gradient fails naming the chain.
func TestMCMCMLERefusals(t *testing.T) {
	g := coupledGauss{d: 2, lam: []float64{1, 0, 0, 1}}
	e, err := NewMCMCMLE(g, 2, MCMCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		e.Add([]float64{1, 0}, []float64{float64(i) / 10, 0})
	}
	if _, err := e.Fit(0, []float64{0, 0, 0, 0}); !errors.Is(err, ErrSingular) {
		t.Errorf("a zero feature column at λ = 0: %v, want ErrSingular", err)
	}
	bad := nanJoint{coupledGauss{d: 1, lam: []float64{1}}}
	e, err = NewMCMCMLE(bad, 1, MCMCOptions{Sampler: mcmc.Settings{Warmup: 100}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		e.Add([]float64{1}, []float64{float64(i%5) / 10})
	}
	_, err = e.Fit(0.1, []float64{0})
	if !errors.Is(err, mcmc.ErrDiverged) {
		t.Errorf("a NaN gradient: %v, want mcmc.ErrDiverged", err)
	}
}

// nanJoint has a NaN gradient of log q beyond x = 1.
type nanJoint struct{ coupledGauss }

func (g nanJoint) GradLogBase(x, grad []float64) float64 {
	l := g.coupledGauss.GradLogBase(x, grad)
	if x[0] > 1 {
		grad[0] = math.NaN()
	}
	return l
}

// TestMCMCMLEAgainstNewton: coupled-sin with κ = 0 is the product of two
// custom-sin coordinates (q(x) = e^{−x²/2}, psi = sin 2x: not Gaussian, and
// Cov_η[psi] varies with η, so the Kronecker preconditioner is only an
// approximation). Its MLE by MCMC, fitted as a joint family, must agree
// with Newton's method on the product family (quadrature cumulants: an
// independent computation) within half of the Newton fit's
// inverse-information standard error, entry by entry (n = 300, d_phi = 2;
// over 24 chain seeds the largest distance was 0.06–0.30 standard errors).
// The variances from the chains (the observed information Ĉ_t and the
// sandwiches' m̄_t) carry Monte Carlo error: over 24 chain seeds
// (2026-11-29) their ratios to Newton's were 0.86–1.21 for the sandwich
// and 0.93–1.09 for the inverse information, means 0.996 and 0.990,
// standard deviations 0.068 and 0.033. So each is checked within
// [0.7, 1.4] and [0.8, 1.25] for four chain seeds (this fit's, 3, and 4–6)
// and their mean over the four within 10% and 6% (about three standard
// errors of a mean of four).
func TestMCMCMLEAgainstNewton(t *testing.T) {
	joint, err := expfam.NewCoupledSin(2, 2, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	sin, err := expfam.NewSin(2, 2)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := expfam.NewProduct(sin, 2)
	if err != nil {
		t.Fatal(err)
	}
	w0 := []float64{0.5, 1, -1, 0.5}
	const dphi, n, lambda = 2, 300, 1e-6
	rng := rand.New(rand.NewPCG(71, 72))
	newton := NewMLE(prod, dphi)
	eta := make([]float64, 2)
	phis, nexts := make([][]float64, n), make([][]float64, n)
	for k := range n {
		phi, next := []float64{1, rng.NormFloat64()}, make([]float64, 2)
		linear(w0, phi, eta)
		prod.Sample(eta, rng, next)
		newton.Add(phi, next)
		phis[k], nexts[k] = phi, next
	}
	want, err := newton.Fit(lambda, nil)
	if err != nil {
		t.Fatal(err)
	}
	v, err := want.InverseDiag()
	if err != nil {
		t.Fatal(err)
	}
	nw, err := newton.Sandwich(want, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	swMean, ivMean := make([]float64, len(v)), make([]float64, len(v))
	seeds := []uint64{3, 4, 5, 6}
	for _, seed := range seeds {
		sa, err := NewMCMCMLE(joint, dphi, MCMCOptions{Sampler: mcmc.Settings{Warmup: 200}, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for k := range n {
			sa.Add(phis[k], nexts[k])
		}
		got, err := sa.Fit(lambda, nil)
		if err != nil {
			t.Fatalf("chain seed %d: %v", seed, err)
		}
		t.Logf("chain seed %d: report %+v", seed, sa.Report)
		if !sa.Report.Converged {
			t.Errorf("chain seed %d: the stopping rule did not hold: %+v", seed, sa.Report)
		}
		var worst float64
		for i := range want.W {
			sd := math.Sqrt(v[i])
			worst = max(worst, math.Abs(got.W[i]-want.W[i])/sd)
			testutil.AbsClosef(t, got.W[i], want.W[i], 0.5*sd, "chain seed %d, W[%d]: MCMC %.5f, Newton %.5f: %.2f standard errors apart (> 0.5)", seed, i, got.W[i], want.W[i], math.Abs(got.W[i]-want.W[i])/sd)
		}
		t.Logf("chain seed %d: largest |W_MCMC − W_Newton| = %.3f standard errors", seed, worst)
		sw, err := sa.Sandwich(got, SEOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mv, err := got.InverseDiag()
		if err != nil {
			t.Fatal(err)
		}
		for i := range sw {
			rs, ri := sw[i]/nw[i], mv[i]/v[i]
			t.Logf("chain seed %d, W[%d]: sandwich variance MCMC %.4g, Newton %.4g (%.3f); inverse information MCMC %.4g, Newton %.4g (%.3f)", seed, i, sw[i], nw[i], rs, mv[i], v[i], ri)
			if rs < 0.7 || rs > 1.4 {
				t.Errorf("chain seed %d: sandwich variance of W[%d]: MCMC %.4g, Newton %.4g", seed, i, sw[i], nw[i])
			}
			if ri < 0.8 || ri > 1.25 {
				t.Errorf("chain seed %d: inverse information of W[%d]: MCMC %.4g, Newton %.4g", seed, i, mv[i], v[i])
			}
			swMean[i] += rs / float64(len(seeds))
			ivMean[i] += ri / float64(len(seeds))
		}
	}
	for i := range swMean {
		if math.Abs(swMean[i]-1) > 0.10 {
			t.Errorf("sandwich variance of W[%d]: MCMC/Newton %.3f over %d chain seeds, want within 10%% of 1", i, swMean[i], len(seeds))
		}
		if math.Abs(ivMean[i]-1) > 0.06 {
			t.Errorf("inverse information of W[%d]: MCMC/Newton %.3f over %d chain seeds, want within 6%% of 1", i, ivMean[i], len(seeds))
		}
	}
}

// coupledSinTransitions draws n transitions of d = 4 coupled-sin at η = W0 phi,
// phi = (s, a, 1) with s uniform on [−1, 1]⁴ and a = ±1 (configs/coupled.yaml's
// features): each s' is the state of a chain started at s after 200
// adapting and 20 kept transitions, as the true environment draws it.
func coupledSinTransitions(t *testing.T, fam *expfam.CoupledSin, w0 []float64, n int, seed uint64) (phis, nexts [][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		phi := make([]float64, 6)
		for j := range 4 {
			phi[j] = 2*rng.Float64() - 1
		}
		phi[4] = float64(1 - 2*rng.IntN(2))
		phi[5] = 1
		eta := make([]float64, 4)
		linear(w0, phi, eta)
		c, err := mcmc.NewChain(expfam.NewTilted(fam, eta), mcmc.Settings{Warmup: 200, Leapfrog: 8}, rand.NewPCG(seed, uint64(100+i)))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(phi[:4]); err != nil {
			t.Fatal(err)
		}
		if err := c.Warmup(); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if err := c.Step(); err != nil {
				t.Fatal(err)
			}
		}
		phis = append(phis, phi)
		nexts = append(nexts, slices.Clone(c.State()))
	}
	return phis, nexts
}

// TestMCMCMLEFewTransitionsCoupledSin is the mle agent's first refit on
// configs/coupled.yaml: 10 transitions of d = 4 coupled-sin (κ = 0.5) for
// 24 parameters, from W = 0. The penalised MLE there has |η_t| in the
// tens, where the tilted density is far steeper than at W = 0 where the
// chains' step was adapted: the chains used to diverge (energy error
// ~1500 > 1000) and fail the fit, at λ = 10⁻⁴ (the config's) and at λ = 1.
// Now they halve their step and the fit succeeds with a finite W; at λ = 1
// (a well-posed maximum) the stopping rule (averaged gradient within its
// Monte Carlo error of zero) holds.
func TestMCMCMLEFewTransitionsCoupledSin(t *testing.T) {
	fam, err := expfam.NewCoupledSin(4, 1.7, 4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	w0 := []float64{0.6, 0.3, 0, 0, 0.6, 0.1, 0, 0.6, 0.3, 0, 0.6, 0, 0, 0, 0.6, 0.3, -0.6, 0, 0.3, 0, 0, 0.6, -0.6, -0.1}
	phis, nexts := coupledSinTransitions(t, fam, w0, 10, 1)
	for _, lambda := range []float64{1e-4, 1} {
		e, err := NewMCMCMLE(fam, 6, MCMCOptions{Sampler: mcmc.Settings{Warmup: 200, Leapfrog: 8}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range phis {
			e.Add(phis[i], nexts[i])
		}
		f, err := e.Fit(lambda, make([]float64, len(w0)))
		if err != nil {
			t.Fatalf("λ = %g: %v", lambda, err)
		}
		t.Logf("λ = %g: %+v", lambda, e.Report)
		for i, v := range f.W {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("λ = %g: W[%d] = %v", lambda, i, v)
			}
		}
		if e.Report.Halvings == 0 {
			t.Errorf("λ = %g: no chain halved its step: the case no longer exercises the divergent chains", lambda)
		}
		if lambda == 1 && !e.Report.Converged {
			t.Errorf("λ = 1: the stopping rule did not hold in %d iterations: %+v", e.Report.Iterations, e.Report)
		}
	}
}

// cliff is a 1-D target: −x²/2 within r of the origin, a drop to −5000
// (finite, with a zero gradient) beyond: a proposal that leaves the ball
// has an energy error near 5000, beyond the bound 1000, at any step size.
type cliff struct{ r float64 }

func (c cliff) Dim() int { return 1 }
func (c cliff) LogDensityGrad(x, grad []float64) float64 {
	if math.Abs(x[0]) > c.r {
		grad[0] = 0
		return -5000
	}
	grad[0] = -x[0]
	return -0.5 * x[0] * x[0]
}

// TestStepShrinking: from step size 1, a chain on a cliff of radius 0.01
// diverges until its step is small enough to stay inside, halving it
// each time (a step of 1 with 8 leapfrog steps flies off; at 2⁻¹⁰ it
// stays in); a cliff of radius 0, where every move diverges whatever the
// step, fails after maxHalvings halvings with mcmc.ErrDiverged.
func TestStepShrinking(t *testing.T) {
	s := mcmc.Settings{StepSize: 1, Leapfrog: 8}
	c, err := mcmc.NewChain(cliff{r: 0.01}, s, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start([]float64{0}); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if err := stepShrinking(c); err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.State()[0]) > 0.01 {
			t.Fatalf("the chain left the ball: x = %v", c.State())
		}
	}
	if c.StepSize() >= 1.0/64 || c.StepSize() < math.Ldexp(1, -maxHalvings) {
		t.Errorf("step size %g after the divergences, want a few halvings below 1/64", c.StepSize())
	}
	t.Logf("step size after the divergences: %g", c.StepSize())

	c, err = mcmc.NewChain(cliff{r: 0}, s, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start([]float64{0}); err != nil {
		t.Fatal(err)
	}
	err = stepShrinking(c)
	if !errors.Is(err, mcmc.ErrDiverged) {
		t.Fatalf("every move divergent: %v, want mcmc.ErrDiverged", err)
	}
	if got, want := c.StepSize(), math.Ldexp(1, -maxHalvings); got != want {
		t.Errorf("step size %g after failing, want 2^-%d = %g", got, maxHalvings, want)
	}
	t.Log(err)
}
