package estimator

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// gaussCoupledData draws n transitions of the coupled Gaussian with
// precision prec, affine features of (s, a) ~ Unif[−1, 1]^{d+1} and W0.
func gaussCoupledData(t *testing.T, prec [][]float64, w0 []float64, n int) (phis, xs [][]float64) {
	t.Helper()
	g, err := expfam.NewGaussCoupled(prec)
	if err != nil {
		t.Fatal(err)
	}
	d := g.D
	feat := expfam.Affine{DS: d, DA: 1}
	m, err := expfam.NewModel(g, feat, w0)
	if err != nil {
		t.Fatal(err)
	}
	st := expfam.NewStepper(m)
	rng := rand.New(rand.NewPCG(3, 4))
	s, a := make([]float64, d), make([]float64, 1)
	for range n {
		for i := range s {
			s[i] = 2*rng.Float64() - 1
		}
		a[0] = 2*rng.Float64() - 1
		phi := make([]float64, feat.Dim())
		feat.Phi(s, a, phi)
		x := make([]float64, d)
		st.Step(s, a, rng, x)
		phis, xs = append(phis, phi), append(xs, x)
	}
	return phis, xs
}

// closedFormCoupled is Ŵ = Λ (Σ_t x_t φ_tᵀ)(Σ_t φ_t φ_tᵀ + λI)⁻¹, score
// matching's estimate for q(x) = exp(−½ xᵀΛx), psi(x) = x (C = I and
// ξ = −Λx), computed with gonum.
func closedFormCoupled(prec [][]float64, phis, xs [][]float64, lambda float64) []float64 {
	d, dphi := len(prec), len(phis[0])
	sxp := mat.NewDense(d, dphi, nil)
	spp := mat.NewSymDense(dphi, nil)
	for t := range phis {
		for i := range d {
			for j := range dphi {
				sxp.Set(i, j, sxp.At(i, j)+xs[t][i]*phis[t][j])
			}
		}
		for j := range dphi {
			for k := j; k < dphi; k++ {
				spp.SetSym(j, k, spp.At(j, k)+phis[t][j]*phis[t][k])
			}
		}
	}
	for j := range dphi {
		spp.SetSym(j, j, spp.At(j, j)+lambda)
	}
	var inv mat.Dense
	if err := inv.Inverse(spp); err != nil {
		panic(err)
	}
	lam := mat.NewDense(d, d, nil)
	for i, row := range prec {
		for j, v := range row {
			lam.Set(i, j, v)
		}
	}
	var w, lw mat.Dense
	lw.Mul(lam, sxp)
	w.Mul(&lw, &inv)
	return w.RawMatrix().Data
}

// TestSMGaussCoupledIsClosedForm checks score matching on the coupled
// Gaussian against its closed form to 1e-9, through both of the
// estimator's paths: the family's own (Separable with C = I) and the
// general one of ScoreTerms (the family hidden behind Family only).
func TestSMGaussCoupledIsClosedForm(t *testing.T) {
	prec := [][]float64{{2, 0.6, 0}, {0.6, 1, -0.3}, {0, -0.3, 1.5}}
	w0 := []float64{
		0.5, 0, 0, 0.3, 0.1,
		0, 0.5, 0.2, -0.2, 0,
		0.1, 0, -0.4, 0.2, 0.3,
	}
	phis, xs := gaussCoupledData(t, prec, w0, 500)
	g, _ := expfam.NewGaussCoupled(prec)
	const lambda = 1e-3
	want := closedFormCoupled(prec, phis, xs, lambda)
	for name, fam := range map[string]expfam.Family{"separable": g, "general": familyOnly{g}} {
		sm := NewSM(fam, len(phis[0]))
		for i := range phis {
			sm.Add(phis[i], xs[i])
		}
		f, err := sm.Fit(lambda)
		if err != nil {
			t.Fatal(err)
		}
		testutil.CloseSlices(t, name+" Ŵ", f.W, want, 1e-9)
	}
}

// familyOnly hides every interface of a family but Family.
type familyOnly struct{ expfam.Family }

// TestSMGaussCoupledExpressionTwin checks the coupled Gaussian written as
// a joint expression family (log q and psi of x0, x1, x2): its exact
// derivatives from the tapes give score matching's closed form to 1e-9.
func TestSMGaussCoupledExpressionTwin(t *testing.T) {
	prec := [][]float64{{2, 0.6, 0}, {0.6, 1, -0.3}, {0, -0.3, 1.5}}
	w0 := []float64{
		0.5, 0, 0, 0.3, 0.1,
		0, 0.5, 0.2, -0.2, 0,
		0.1, 0, -0.4, 0.2, 0.3,
	}
	phis, xs := gaussCoupledData(t, prec, w0, 500)
	twin, err := expfam.NewJointExpr(3, "-0.5*(2*x0^2 + 1.2*x0*x1 + x1^2 - 0.6*x1*x2 + 1.5*x2^2)", []string{"x0", "x1", "x2"})
	if err != nil {
		t.Fatal(err)
	}
	const lambda = 1e-3
	sm := NewSM(twin, len(phis[0]))
	for i := range phis {
		sm.Add(phis[i], xs[i])
	}
	f, err := sm.Fit(lambda)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CloseSlices(t, "Ŵ", f.W, closedFormCoupled(prec, phis, xs, lambda), 1e-9)
}

// TestSMJointExpressionThatIsAProduct checks a joint expression family
// that is secretly the product of custom-sin coordinates: on the same data
// its score-matching estimate (the general path, one dense block) is the
// product's (one block per coordinate) to 1e-12.
func TestSMJointExpressionThatIsAProduct(t *testing.T) {
	s, err := expfam.NewSin(4, 1.7)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := expfam.NewProduct(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	joint, err := expfam.NewJointExpr(2, "-abs(x0)^1.7/1.7 - abs(x1)^1.7/1.7", []string{"sin(4*x0)", "sin(4*x1)"})
	if err != nil {
		t.Fatal(err)
	}
	feat := expfam.Affine{DS: 2, DA: 1}
	m, err := expfam.NewModel(prod, feat, []float64{0.5, 0.2, 0.3, 0.1, -0.2, 0.6, -0.4, 0})
	if err != nil {
		t.Fatal(err)
	}
	st := expfam.NewStepper(m)
	rng := rand.New(rand.NewPCG(5, 6))
	a := []float64{0}
	sp, sj := NewSM(prod, feat.Dim()), NewSM(joint, feat.Dim())
	s0, x, phi := make([]float64, 2), make([]float64, 2), make([]float64, feat.Dim())
	for range 2000 {
		s0[0], s0[1], a[0] = 2*rng.Float64()-1, 2*rng.Float64()-1, 2*rng.Float64()-1
		feat.Phi(s0, a, phi)
		st.Step(s0, a, rng, x)
		sp.Add(phi, x)
		sj.Add(phi, x)
	}
	fp, err := sp.Fit(1e-4)
	if err != nil {
		t.Fatal(err)
	}
	fj, err := sj.Fit(1e-4)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CloseSlices(t, "joint Ŵ", fj.W, fp.W, 1e-12)
}
