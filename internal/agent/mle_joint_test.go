package agent

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// jointNormal is N(η, 1) on R written as a joint family (q(x) = e^{−x²/2},
// psi(x) = x) and not a product: the mle estimator must fit it by MCMC.
type jointNormal struct{}

func (jointNormal) String() string              { return "test joint normal" }
func (jointNormal) StateDim() int               { return 1 }
func (jointNormal) StatDim() int                { return 1 }
func (jointNormal) Psi(x, out []float64)        { out[0] = x[0] }
func (jointNormal) LogBase(x []float64) float64 { return -0.5 * x[0] * x[0] }
func (jointNormal) ScoreTerms(x, jac, xi []float64) {
	jac[0], xi[0] = 1, -x[0]
}
func (jointNormal) GradLogBase(x, grad []float64) float64 {
	grad[0] = -x[0]
	return -0.5 * x[0] * x[0]
}
func (jointNormal) PsiJac(x, psi, jac []float64) { psi[0], jac[0] = x[0], 1 }
func (jointNormal) Sample(eta []float64, rng *rand.Rand, out []float64) {
	out[0] = eta[0] + rng.NormFloat64()
}
func (jointNormal) LogPartition(eta []float64) (float64, error) {
	return 0.5*eta[0]*eta[0] + 0.5*math.Log(2*math.Pi), nil
}
func (jointNormal) Mean(eta, out []float64) { out[0] = eta[0] }

var _ expfam.Joint = jointNormal{}

// TestMLEOfAJointFamilyIsMCMC: the mle estimator fits a joint family that
// is not a product by MCMC (the closed form here is least squares,
// Ŵ = Σ x φᵀ (Σ φφᵀ)⁻¹ at λ → 0, which it matches within 0.3 of the
// standard error 1/√(Σ φ²) of W), gives a sandwich near 1/Σφ² (the model
// is right), and refuses cross-validation with invalid input.
func TestMLEOfAJointFamilyIsMCMC(t *testing.T) {
	f, err := newMLEFitter(Setup{Spec: env.ModelSpec{Family: jointNormal{}}, Dphi: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var sxy, sxx float64
	const n = 100
	for range n {
		phi := []float64{1 + 0.5*rng.NormFloat64()}
		x := []float64{0.7*phi[0] + rng.NormFloat64()}
		f.Add(phi, x)
		sxy += x[0] * phi[0]
		sxx += phi[0] * phi[0]
	}
	fit, err := f.Fit(1e-9, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := sxy / sxx
	if se := 1 / math.Sqrt(sxx); !testutil.AbsWithin(fit.W[0], want, 0.3*se) {
		t.Errorf("mle of a joint family: W = %.5f, least squares %.5f (SE %.4f)", fit.W[0], want, se)
	}
	sw, err := f.Sandwich(fit, n, nil, estimator.SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := sw[0] * sxx; r < 0.7 || r > 1.3 {
		t.Errorf("sandwich variance %.4g, 1/Σφ² = %.4g", sw[0], 1/sxx)
	}
	if _, err := f.CrossValidate(n, nil, 5, []float64{0.1, 1}, nil); !errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("cross-validation: %v, want invalid input", err)
	}
}
