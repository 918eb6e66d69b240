package expfam

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

var testPrecision = [][]float64{{2, 0.6}, {0.6, 1}}

// TestGaussCoupledLogPartitionIsQuadrature checks Z(η) against a 2-D
// midpoint sum of q(x) exp(<x, η>) on a fine grid (an independent truth).
func TestGaussCoupledLogPartitionIsQuadrature(t *testing.T) {
	g, err := NewGaussCoupled(testPrecision)
	if err != nil {
		t.Fatal(err)
	}
	eta := []float64{0.7, -0.4}
	const h, half = 0.01, 12.0
	var sum float64
	x := make([]float64, 2)
	for a := -half + h/2; a < half; a += h {
		for b := -half + h/2; b < half; b += h {
			x[0], x[1] = a, b
			sum += math.Exp(g.LogBase(x) + eta[0]*a + eta[1]*b)
		}
	}
	z, err := g.LogPartition(eta)
	if err != nil {
		t.Fatal(err)
	}
	numeric.Close(t, "log Z", z, math.Log(sum*h*h), 1e-9)
	mean := make([]float64, 2)
	g.Mean(eta, mean)
	// Λ⁻¹η by hand: det = 2 − 0.36 = 1.64.
	numeric.CloseSlices(t, "mean", mean, []float64{(1*0.7 - 0.6*-0.4) / 1.64, (-0.6*0.7 + 2*-0.4) / 1.64}, 1e-14)
	numeric.CloseSlices(t, "covariance", g.Covariance(), []float64{1 / 1.64, -0.6 / 1.64, -0.6 / 1.64, 2 / 1.64}, 1e-14)
}

// TestGaussCoupledSampleMoments checks the exact sampler's mean and
// covariance against N(Λ⁻¹η, Λ⁻¹) within 4 standard errors.
func TestGaussCoupledSampleMoments(t *testing.T) {
	g, err := NewGaussCoupled([][]float64{{2, 0.6, 0}, {0.6, 1, -0.3}, {0, -0.3, 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	eta := []float64{0.5, -1, 0.25}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 40000
	d := 3
	mu := make([]float64, d)
	g.Mean(eta, mu)
	cov := g.Covariance()
	sum := make([]float64, d)
	sum2 := make([]float64, d*d)
	x := make([]float64, d)
	for range n {
		g.Sample(eta, rng, x)
		for i := range d {
			sum[i] += x[i]
			for j := range d {
				sum2[i*d+j] += (x[i] - mu[i]) * (x[j] - mu[j])
			}
		}
	}
	for i := range d {
		se := math.Sqrt(cov[i*d+i] / n)
		if m := sum[i] / n; !numeric.AbsWithin(m, mu[i], 4*se) {
			t.Errorf("mean[%d] = %v, want %v ± 4·%.3g", i, m, mu[i], se)
		}
		for j := range d {
			c := sum2[i*d+j] / n
			se := math.Sqrt((cov[i*d+i]*cov[j*d+j] + cov[i*d+j]*cov[i*d+j]) / n)
			numeric.AbsClosef(t, c, cov[i*d+j], 4*se, "cov[%d][%d] = %v, want %v ± 4·%.3g", i, j, c, cov[i*d+j], se)
		}
	}
}

// TestGaussCoupledScoreTermsAreDerivatives checks ∇ log q, the Jacobian
// and ξ against central differences of LogBase and Psi.
func TestGaussCoupledScoreTermsAreDerivatives(t *testing.T) {
	g, err := NewGaussCoupled(testPrecision)
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.3, -1.2}
	grad := make([]float64, 2)
	lq := g.GradLogBase(x, grad)
	numeric.Close(t, "log q", lq, g.LogBase(x), 0)
	const h = 1e-5
	for i := range 2 {
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		numeric.Close(t, "∂ log q", grad[i], (g.LogBase(xp)-g.LogBase(xm))/(2*h), 1e-8)
	}
	jac, xi, psi := make([]float64, 4), make([]float64, 2), make([]float64, 2)
	g.ScoreTerms(x, jac, xi)
	jac2 := make([]float64, 4)
	g.PsiJac(x, psi, jac2)
	numeric.CloseSlices(t, "jac", jac, []float64{1, 0, 0, 1}, 0)
	numeric.CloseSlices(t, "PsiJac", jac2, jac, 0)
	numeric.CloseSlices(t, "psi", psi, x, 0)
	// ξ_k = Σ_i ∂_i log q ∂_i psi_k + ∂_i² psi_k = ∂_k log q.
	numeric.CloseSlices(t, "xi", xi, grad, 0)
}

func TestGaussCoupledRefusesBadPrecision(t *testing.T) {
	for name, p := range map[string][][]float64{
		"not positive definite": {{1, 2}, {2, 1}},
		"not symmetric":         {{1, 0.2}, {0.3, 1}},
		"not square":            {{1, 0}, {0}},
		"NaN":                   {{1, math.NaN()}, {math.NaN(), 1}},
		"singular":              {{1, 1}, {1, 1}},
	} {
		if _, err := NewGaussCoupled(p); !errors.Is(err, ErrNotSPD) {
			t.Errorf("%s: err = %v, want ErrNotSPD", name, err)
		}
	}
}
