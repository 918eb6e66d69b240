package expfam

import (
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// checkJointDerivatives checks a Joint family's GradLogBase, PsiJac and
// ScoreTerms at x against central differences of LogBase and Psi (first
// and second), to tol.
func checkJointDerivatives(t *testing.T, j Joint, x []float64, tol float64) {
	t.Helper()
	d, dpsi := j.StateDim(), j.StatDim()
	grad := make([]float64, d)
	lq := j.GradLogBase(x, grad)
	numeric.Close(t, "log q", lq, j.LogBase(x), 1e-12)
	psi, jac := make([]float64, dpsi), make([]float64, d*dpsi)
	j.PsiJac(x, psi, jac)
	want := make([]float64, dpsi)
	j.Psi(x, want)
	numeric.CloseSlices(t, "PsiJac's psi", psi, want, 1e-15)
	jac2, xi := make([]float64, d*dpsi), make([]float64, dpsi)
	j.ScoreTerms(x, jac2, xi)
	numeric.CloseSlices(t, "ScoreTerms' Jacobian", jac2, jac, 1e-15)
	const h = 1e-4
	wantXi := make([]float64, dpsi)
	pp, pm, p0 := make([]float64, dpsi), make([]float64, dpsi), make([]float64, dpsi)
	j.Psi(x, p0)
	for i := range d {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		numeric.Close(t, "∂ log q", grad[i], (j.LogBase(xp)-j.LogBase(xm))/(2*h), tol)
		j.Psi(xp, pp)
		j.Psi(xm, pm)
		for k := range dpsi {
			d1 := (pp[k] - pm[k]) / (2 * h)
			d2 := (pp[k] - 2*p0[k] + pm[k]) / (h * h)
			numeric.Close(t, "∂ psi", jac[i*dpsi+k], d1, tol)
			wantXi[k] += grad[i]*d1 + d2
		}
	}
	numeric.CloseSlices(t, "xi", xi, wantXi, 100*tol) // the second difference is the coarser
}

func TestCoupledSinDerivatives(t *testing.T) {
	for _, d := range []int{1, 2, 3, 5} {
		c, err := NewCoupledSin(d, 1.7, 4, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{0.3, -0.8, 1.1, 0.05, -1.4}[:d]
		checkJointDerivatives(t, c, x, 1e-6)
		// TiltedGrad is log q + <psi, η> and its gradient.
		eta := []float64{0.5, -1, 2, 0.1, 0.7}[:d]
		g, g2 := make([]float64, d), make([]float64, d)
		l := c.TiltedGrad(x, eta, g)
		tt := &Tilted{J: c, Eta: eta, psi: make([]float64, d), jac: make([]float64, d*d)} // the general path
		l2 := tt.LogDensityGrad(x, g2)
		numeric.Close(t, "tilted log density", l, l2, 1e-14)
		numeric.CloseSlices(t, "tilted gradient", g, g2, 1e-14)
	}
}

// TestCoupledSinIsCustomSinWithoutCoupling checks that κ = 0 leaves the
// product of custom-sin coordinates: the same log q, psi and score terms.
func TestCoupledSinIsCustomSinWithoutCoupling(t *testing.T) {
	c, _ := NewCoupledSin(3, 1.7, 4, 0)
	s, _ := NewSin(4, 1.7)
	p := &Product{S: s, D: 3}
	x := []float64{0.3, -0.8, 1.1}
	numeric.Close(t, "log q", c.LogBase(x), p.LogBase(x), 1e-15)
	g1, x1, g2, x2 := make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3)
	c.ScoreDiag(x, g1, x1)
	p.ScoreDiag(x, g2, x2)
	numeric.CloseSlices(t, "g", g1, g2, 1e-14)
	numeric.CloseSlices(t, "xi", x1, x2, 1e-13)
}

func TestJointExprDerivatives(t *testing.T) {
	j, err := NewJointExpr(3, "-0.5*(x0^2 + x1^2 + x2^2) + 0.4*x0*x1 + 0.2*cos(x1 - x2)", []string{"x0", "sin(x1)*x2", "x0*x1", "exp(-x2^2)"})
	if err != nil {
		t.Fatal(err)
	}
	checkJointDerivatives(t, j, []float64{0.3, -0.8, 1.1}, 1e-6)
	if _, err := NewJointExpr(2, "-x0^2", []string{"1 + 2"}); err == nil {
		t.Error("a constant statistic was accepted")
	}
	if _, err := NewJointExpr(2, "-x0^2", []string{"x2"}); err == nil {
		t.Error("x2 of a family of dim 2 was accepted")
	}
	if math.IsNaN(j.LogBase([]float64{0, 0, 0})) {
		t.Error("NaN")
	}
}
