package estimator

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// spectrum returns the extreme eigenvalues of the dense symmetric d×d
// matrix v (row-major), by gonum's EigenSym.
func spectrum(t *testing.T, v []float64, d int) (lo, hi float64) {
	t.Helper()
	var e mat.EigenSym
	if !e.Factorize(mat.NewSymDense(d, v), false) {
		t.Fatal("EigenSym failed")
	}
	ev := e.Values(nil)
	return ev[0], ev[d-1]
}

// checkConditioning compares f.Conditioning with the spectrum of the
// dense V it should describe (plus f.Lambda on the diagonal for the
// condition number).
func checkConditioning(t *testing.T, what string, f *Fit, v []float64, d int) {
	t.Helper()
	reg := append([]float64(nil), v...)
	for i := range d {
		reg[i*d+i] += f.Lambda
	}
	lo, hi := spectrum(t, reg, d)
	vlo, _ := spectrum(t, v, d)
	got, ok := f.Conditioning()
	if !ok {
		t.Fatalf("%s: Conditioning failed", what)
	}
	if want := hi / lo; !testutil.AbsWithin(got.Cond, want, 1e-8*want) {
		t.Errorf("%s: cond %.12g, dense %.12g", what, got.Cond, want)
	}
	testutil.AbsClosef(t, got.MinEig, vlo, 1e-9*hi, "%s: λ_min(V) %.12g, dense %.12g", what, got.MinEig, vlo)
}

// The diagnostics of a fit are the spectrum of the V + λI it solves with,
// whatever its block structure: SM of a dense, a product, a Gaussian (one
// shared block) and a mixed product family against the naive dense V; the
// LDS fit against Σ φφᵀ per row; the Gaussian MLE against its Fisher
// information I ⊗ G/σ².
func TestConditioningIsTheSpectrumOfV(t *testing.T) {
	sin, _ := expfam.NewSin(4, 1.7)
	prod, _ := expfam.NewProduct(sin, 3)
	gauss, _ := expfam.NewGaussian(3, 0.8)
	relu, _ := expfam.NewReLU(0.7, 3)
	gc, _ := expfam.NewGaussCoord(1.3)
	coords, _ := expfam.NewCoords([]expfam.Coord{relu, gc, expfam.NewScalarCoord(sin)})
	const dphi, n, lambda = 4, 30, 0.05
	rng := rand.New(rand.NewPCG(5, 6))
	phis := make([][]float64, n)
	for t0 := range phis {
		// The last feature copies the third in all but two transitions:
		// a weakly determined direction, as in the study.
		phi := []float64{rng.NormFloat64(), rng.NormFloat64(), 1, 1}
		if t0 < 2 {
			phi[3] = -1
		}
		phis[t0] = phi
	}
	for _, fam := range []expfam.Family{denseFamily{}, prod, gauss, coords} {
		ds, dpsi := fam.StateDim(), fam.StatDim()
		d := dpsi * dphi
		sm := NewSM(fam, dphi)
		naive := make([]float64, d*d)
		jac := make([]float64, ds*dpsi)
		xi := make([]float64, dpsi)
		for _, phi := range phis {
			next := make([]float64, ds)
			for i := range next {
				next[i] = 2 * rng.NormFloat64()
			}
			sm.Add(phi, next)
			fam.ScoreTerms(next, jac, xi)
			for i := 0; i < ds; i++ {
				for p := 0; p < d; p++ {
					for q := 0; q < d; q++ {
						naive[p*d+q] += jac[i*dpsi+p/dphi] * phi[p%dphi] * jac[i*dpsi+q/dphi] * phi[q%dphi]
					}
				}
			}
		}
		f, err := sm.Fit(lambda)
		if err != nil {
			t.Fatal(err)
		}
		checkConditioning(t, "sm "+fam.String(), f, naive, d)
	}

	const sigma = 0.6
	g, _ := expfam.NewGaussian(2, sigma)
	mle, lds := NewMLE(g, dphi), NewLDS(2, dphi)
	gram := make([]float64, dphi*dphi)
	for _, phi := range phis {
		next := []float64{phi[0] + rng.NormFloat64(), phi[1] - phi[0] + rng.NormFloat64()}
		mle.Add(phi, next)
		lds.Add(phi, next)
		for p := range dphi {
			for q := range dphi {
				gram[p*dphi+q] += phi[p] * phi[q]
			}
		}
	}
	fl, err := lds.FitNoise(lambda, []float64{2, 3}) // row scales do not enter V + λI
	if err != nil {
		t.Fatal(err)
	}
	checkConditioning(t, "lds", fl, gram, dphi)
	fm, err := mle.Fit(lambda, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := make([]float64, dphi*dphi)
	for i, x := range gram {
		info[i] = x / (sigma * sigma)
	}
	checkConditioning(t, "mle", fm, info, dphi)
}

// rffLDS returns least squares on d random Fourier features of 4-D
// inputs after n transitions, the pendulum's model class (D = 200).
func rffLDS(d, n int) *LDS {
	rng := rand.New(rand.NewPCG(7, 8))
	omega := make([]float64, 4*d)
	for i := range omega {
		omega[i] = rng.NormFloat64()
	}
	e := NewLDS(3, d)
	phi := make([]float64, d)
	for range n {
		x := []float64{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.NormFloat64(), rng.Float64()*2 - 1}
		for j := range phi {
			var s float64
			for i, v := range x {
				s += omega[4*j+i] * v
			}
			phi[j] = math.Sqrt(2/float64(d)) * math.Cos(s+float64(j))
		}
		e.Add(phi, []float64{phi[0], phi[1], phi[2]})
	}
	return e
}

// On a block larger than lanczosSteps the estimates lie inside the
// spectrum and near its ends: for the pendulum's 200 features, the
// condition number within 1% and λ_min(V + λI) within 1% of EigenSym's.
func TestConditioningOfALargeBlock(t *testing.T) {
	const d, lambda = 200, 1e-3
	e := rffLDS(d, 1000)
	f, err := e.Fit(lambda)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := spectrum(t, e.g, d)
	got, ok := f.Conditioning()
	want := (hi + lambda) / (lo + lambda)
	if !ok || got.Cond > want*(1+1e-9) || got.Cond < 0.99*want {
		t.Errorf("cond %.6g, EigenSym %.6g", got.Cond, want)
	}
	if m := got.MinEig + lambda; m < (lo+lambda)*(1-1e-9) || m > 1.01*(lo+lambda) {
		t.Errorf("λ_min(V + λI) %.6g, EigenSym %.6g", m, lo+lambda)
	}
}

func BenchmarkConditioningRFF200(b *testing.B) {
	f, err := rffLDS(200, 1000).Fit(1e-3)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		f.Conditioning()
	}
}

func BenchmarkFitRFF200(b *testing.B) {
	e := rffLDS(200, 1000)
	for b.Loop() {
		e.Fit(1e-3)
	}
}

// V + λI = c·I (every eigenvalue equal) has condition number exactly 1,
// never below: a journal refuses a cond below 1.
func TestConditioningOfAMultipleOfI(t *testing.T) {
	for _, d := range []int{1, 3, 20} {
		e := NewLDS(1, d)
		f, err := e.Fit(0.7) // no data: V = 0, V + λI = 0.7 I
		if err != nil {
			t.Fatal(err)
		}
		c, ok := f.Conditioning()
		if !ok || c.Cond != 1 || math.Abs(c.MinEig) > 1e-15 {
			t.Errorf("d = %d: %+v, ok %v", d, c, ok)
		}
	}
}
