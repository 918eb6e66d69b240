package estimator

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/mat"
)

// denseTerms returns V_t (d×d) and b_t (d) of one transition, built from
// the family's ScoreTerms alone (∂_i psi rows and ξ), as the paper writes
// them: V_t = Σ_i vec(∂_i psi phiᵀ) vec(∂_i psi phiᵀ)ᵀ, b_t = ξ ⊗ phi.
func denseTerms(fam expfam.Family, phi, next []float64) (v, b []float64) {
	ds, dpsi, dphi := fam.StateDim(), fam.StatDim(), len(phi)
	d := dpsi * dphi
	jac := make([]float64, ds*dpsi)
	xi := make([]float64, dpsi)
	fam.ScoreTerms(next, jac, xi)
	v, b = make([]float64, d*d), make([]float64, d)
	for i := range ds {
		row := make([]float64, d)
		for k := range dpsi {
			for j := range dphi {
				row[k*dphi+j] = jac[i*dpsi+k] * phi[j]
			}
		}
		for p := range row {
			for q := range row {
				v[p*d+q] += row[p] * row[q]
			}
		}
	}
	for k := range dpsi {
		for j := range dphi {
			b[k*dphi+j] = xi[k] * phi[j]
		}
	}
	return v, b
}

// denseSandwich computes diag(A⁻¹ (Σ g_t g_tᵀ) A⁻¹), A = Σ V_t + λI,
// g_t = V_t ŵ + b_t, ŵ = −A⁻¹ Σ b_t, with dense matrices only.
func denseSandwich(t *testing.T, fam expfam.Family, phis, nexts [][]float64, lambda float64) (w, variance []float64) {
	t.Helper()
	d := fam.StatDim() * len(phis[0])
	a := mat.NewDense(d, d, nil)
	bsum := mat.NewVecDense(d, nil)
	vs := make([]*mat.Dense, len(phis))
	bs := make([]*mat.VecDense, len(phis))
	for i := range phis {
		v, b := denseTerms(fam, phis[i], nexts[i])
		vs[i], bs[i] = mat.NewDense(d, d, v), mat.NewVecDense(d, b)
		a.Add(a, vs[i])
		bsum.AddVec(bsum, bs[i])
	}
	for i := range d {
		a.Set(i, i, a.At(i, i)+lambda)
	}
	var ainv mat.Dense
	if err := ainv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	var wv mat.VecDense
	wv.MulVec(&ainv, bsum)
	wv.ScaleVec(-1, &wv)
	meat := mat.NewDense(d, d, nil)
	for i := range phis {
		var g mat.VecDense
		g.MulVec(vs[i], &wv)
		g.AddVec(&g, bs[i])
		var o mat.Dense
		o.Outer(1, &g, &g)
		meat.Add(meat, &o)
	}
	var cov mat.Dense
	cov.Product(&ainv, meat, &ainv)
	variance = make([]float64, d)
	for i := range d {
		variance[i] = cov.At(i, i)
	}
	return wv.RawVector().Data, variance
}

// TestSandwichEqualsDense: the structured sandwich of every family
// structure (dense, separable, constant C, blocked) equals the dense
// A⁻¹ (Σ g gᵀ) A⁻¹ built from ScoreTerms alone, to 1e-9.
func TestSandwichEqualsDense(t *testing.T) {
	sin, _ := expfam.NewSin(4, 1.7)
	prod, _ := expfam.NewProduct(sin, 3)
	gauss, _ := expfam.NewGaussian(3, 0.8)
	relu, _ := expfam.NewReLU(0.7, 3)
	gc, _ := expfam.NewGaussCoord(1.3)
	coords, _ := expfam.NewCoords([]expfam.Coord{relu, gc, expfam.NewScalarCoord(sin)})
	const dphi, n = 4, 60
	for _, fam := range []expfam.Family{denseFamily{}, prod, gauss, coords} {
		for _, lambda := range []float64{0.05, 0.3} {
			rng := rand.New(rand.NewPCG(7, 8))
			var phis, nexts [][]float64
			sm := NewSM(fam, dphi)
			for range n {
				phi := make([]float64, dphi)
				for j := range phi {
					phi[j] = rng.NormFloat64()
				}
				next := make([]float64, fam.StateDim())
				for i := range next {
					next[i] = 1.5 * rng.NormFloat64()
				}
				phis, nexts = append(phis, phi), append(nexts, next)
				sm.Add(phi, next)
			}
			f, err := sm.Fit(lambda)
			if err != nil {
				t.Fatalf("%v λ=%g: %v", fam, lambda, err)
			}
			got, err := sm.Sandwich(f, n, func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w, want := denseSandwich(t, fam, phis, nexts, lambda)
			for i := range want {
				if !testutil.AbsWithin(f.W[i], w[i], 1e-9*(1+math.Abs(w[i]))) {
					t.Fatalf("%v λ=%g: W[%d] = %.12g, dense %.12g", fam, lambda, i, f.W[i], w[i])
				}
				testutil.AbsClosef(t, got[i], want[i], 1e-9*math.Abs(want[i]), "%v λ=%g: sandwich variance[%d] = %.12g, dense %.12g", fam, lambda, i, got[i], want[i])
			}
			hc1, err := sm.Sandwich(f, n, func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{HC1: true})
			if err != nil {
				t.Fatal(err)
			}
			d := float64(len(want))
			if r := hc1[0] / got[0]; !testutil.AbsWithin(r, n/(n-d), 1e-12) {
				t.Errorf("%v: HC1/HC0 = %v, want n/(n−d) = %v", fam, r, n/(n-d))
			}
		}
	}
}

// TestSandwichGaussianIsHC0: for the Gaussian family at λ = 0, SM is least
// squares and its sandwich is White's HC0, (XᵀX)⁻¹ (Σ e_t² x_t x_tᵀ)
// (XᵀX)⁻¹ per row; the MLE's sandwich is the same and its inverse
// information is σ² (XᵀX)⁻¹ (the Gaussian family with known σ); the LDS
// fit's sandwich is HC0 too.
func TestSandwichGaussianIsHC0(t *testing.T) {
	const sigma, n = 0.7, 150
	g, _ := expfam.NewGaussian(2, sigma)
	sm, mle, lds := NewSM(g, 3), NewMLE(g, 3), NewLDS(2, 3)
	var phis, nexts [][]float64
	rng := rand.New(rand.NewPCG(3, 3))
	// heteroscedastic data: the noise grows with |phi_0|
	for range n {
		phi := []float64{rng.NormFloat64(), rng.NormFloat64(), 1}
		s := 0.5 + math.Abs(phi[0])
		next := []float64{phi[0] + s*rng.NormFloat64(), phi[1] - phi[0] + s*rng.NormFloat64()}
		phis, nexts = append(phis, phi), append(nexts, next)
		sm.Add(phi, next)
		mle.Add(phi, next)
		lds.Add(phi, next)
	}
	fl, err := lds.Fit(0)
	if err != nil {
		t.Fatal(err)
	}
	vl, err := lds.Sandwich(fl, n, func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := sm.Fit(0)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := sm.Sandwich(fs, n, func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fm, err := mle.Fit(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := mle.Sandwich(fm, SEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vi, err := fm.InverseDiag()
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(n, 3, nil)
	for i, p := range phis {
		x.SetRow(i, p)
	}
	var xtx, xinv mat.Dense
	xtx.Mul(x.T(), x)
	if err := xinv.Inverse(&xtx); err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		// OLS row k and its residuals
		y := mat.NewVecDense(n, nil)
		for i := range n {
			y.SetVec(i, nexts[i][k])
		}
		var xty, beta mat.VecDense
		xty.MulVec(x.T(), y)
		beta.MulVec(&xinv, &xty)
		meat := mat.NewDense(3, 3, nil)
		for i := range n {
			e := nexts[i][k] - mat.Dot(beta.SliceVec(0, 3), mat.NewVecDense(3, phis[i]))
			xi := mat.NewVecDense(3, phis[i])
			var o mat.Dense
			o.Outer(e*e, xi, xi)
			meat.Add(meat, &o)
		}
		var hc0 mat.Dense
		hc0.Product(&xinv, meat, &xinv)
		for j := range 3 {
			want := hc0.At(j, j)
			for name, got := range map[string]float64{"SM sandwich": vs[k*3+j], "MLE sandwich": vm[k*3+j], "LDS sandwich": vl[k*3+j]} {
				testutil.AbsClosef(t, got, want, 1e-9*want, "W[%d,%d]: %s %.12g, HC0 %.12g", k, j, name, got, want)
			}
			if got, want := vi[k*3+j], sigma*sigma*xinv.At(j, j); !testutil.AbsWithin(got, want, 1e-9*want) {
				t.Errorf("W[%d,%d]: inverse information %.12g, σ²(XᵀX)⁻¹ %.12g", k, j, got, want)
			}
		}
	}
}

// TestWaldCoverage: the 95% Wald intervals ŵ ± 1.96 SE of every entry of
// W cover the true W0 in [92%, 98%] of simulated data sets, for SM
// (sandwich) and MLE (inverse information and sandwich) on the paper's
// custom-sin model and on a Gaussian. The default run uses 400 data sets
// of n = 200 for the Gaussian and 400 of n = 400 for custom-sin;
// SMRL_LONG=1 uses 2000 data sets each. The binomial standard error of a
// coverage at 400 sets is 1.1%, so the band [92%, 98%] is 2.7 standard
// errors wide on either side of 95%; it depends on the number of sets, not
// on n. n = 400 (1000 until 2026-11-28) is still in the asymptotic regime:
// with SMRL_LONG=1 (2000 sets, standard error 0.5%) the six coverages were
// 94.8–95.5% on 2026-11-28, and intervals 15% too narrow (1.67 SE) fail
// every entry at the default 400 sets (coverage about 90%).
func TestWaldCoverage(t *testing.T) {
	sets := 400
	if os.Getenv("SMRL_LONG") == "1" {
		sets = 2000
	}
	type result struct{ cover, total int }
	check := func(name string, r []result) {
		for j, x := range r {
			c := float64(x.cover) / float64(x.total)
			t.Logf("%s: W entry %d: coverage %.1f%% over %d data sets", name, j, 100*c, x.total)
			if c < 0.92 || c > 0.98 {
				t.Errorf("%s: W entry %d: 95%% Wald coverage %.1f%% outside [92%%, 98%%]", name, j, 100*c)
			}
		}
	}
	count := func(r []result, w, v, w0 []float64) {
		for j := range w0 {
			r[j].total++
			if math.Abs(w[j]-w0[j]) <= 1.959963984540054*math.Sqrt(v[j]) {
				r[j].cover++
			}
		}
	}
	t.Run("custom-sin", func(t *testing.T) {
		w0 := []float64{1, 1}
		m := paperModel(t, w0)
		rng := rand.New(rand.NewPCG(22, 1))
		smR, mleI, mleS := make([]result, 2), make([]result, 2), make([]result, 2)
		for range sets {
			phis, nexts := draw(t, m, 400, rng)
			sm, mle := NewSM(m.Dist, 2), NewMLE(m.Dist.(expfam.Blocked), 2)
			for i := range phis {
				sm.Add(phis[i], nexts[i])
				mle.Add(phis[i], nexts[i])
			}
			fs, err := sm.Fit(0)
			if err != nil {
				t.Fatal(err)
			}
			v, err := sm.Sandwich(fs, len(phis), func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{})
			if err != nil {
				t.Fatal(err)
			}
			count(smR, fs.W, v, w0)
			fm, err := mle.Fit(0, nil)
			if err != nil {
				t.Fatal(err)
			}
			vi, err := fm.InverseDiag()
			if err != nil {
				t.Fatal(err)
			}
			count(mleI, fm.W, vi, w0)
			vs, err := mle.Sandwich(fm, SEOptions{})
			if err != nil {
				t.Fatal(err)
			}
			count(mleS, fm.W, vs, w0)
		}
		check("SM sandwich", smR)
		check("MLE inverse information", mleI)
		check("MLE sandwich", mleS)
	})
	t.Run("gaussian", func(t *testing.T) {
		const sigma = 0.5
		w0 := [][]float64{{0.8, -0.4, 0.2}, {0.3, 0.5, -1}}
		flat := append(append([]float64(nil), w0[0]...), w0[1]...)
		g, _ := expfam.NewGaussian(2, sigma)
		rng := rand.New(rand.NewPCG(22, 2))
		smR, mleI := make([]result, 6), make([]result, 6)
		for range sets {
			sm, mle := NewSM(g, 3), NewMLE(g, 3)
			var phis, nexts [][]float64
			gaussData(rng, w0, sigma, 200, sm.Add, mle.Add, func(phi, next []float64) {
				phis, nexts = append(phis, phi), append(nexts, next)
			})
			fs, err := sm.Fit(0)
			if err != nil {
				t.Fatal(err)
			}
			v, err := sm.Sandwich(fs, len(phis), func(i int) ([]float64, []float64) { return phis[i], nexts[i] }, SEOptions{})
			if err != nil {
				t.Fatal(err)
			}
			count(smR, fs.W, v, flat)
			fm, err := mle.Fit(0, nil)
			if err != nil {
				t.Fatal(err)
			}
			vi, err := fm.InverseDiag()
			if err != nil {
				t.Fatal(err)
			}
			count(mleI, fm.W, vi, flat)
		}
		check("SM sandwich", smR)
		check("MLE inverse information", mleI)
	})
}

// TestCrossValidateEqualsRefit: every CV loss equals the loss computed by
// re-fitting each fold's complement from scratch and summing the held-out
// ½ wᵀ V_t w + b_tᵀ w of dense per-transition terms, for a separable and a
// dense family; the final statistics equal a plain accumulation.
func TestCrossValidateEqualsRefit(t *testing.T) {
	sin, _ := expfam.NewSin(4, 1.7)
	prod, _ := expfam.NewProduct(sin, 2)
	grid := []float64{1e-3, 0.1, 1, 10}
	const dphi, n, folds = 3, 53, 5
	for _, fam := range []expfam.Family{prod, denseFamily{}} {
		rng := rand.New(rand.NewPCG(5, 6))
		var phis, nexts [][]float64
		for range n {
			phi := []float64{rng.NormFloat64(), rng.NormFloat64(), 1}
			next := make([]float64, fam.StateDim())
			for i := range next {
				next[i] = rng.NormFloat64()
			}
			phis, nexts = append(phis, phi), append(nexts, next)
		}
		data := func(i int) ([]float64, []float64) { return phis[i], nexts[i] }
		cv, err := CrossValidate(NewSM(fam, dphi), n, data, folds, grid)
		if err != nil {
			t.Fatal(err)
		}
		d := fam.StatDim() * dphi
		for i, l := range grid {
			var want float64
			for k := range folds {
				lo, hi := k*n/folds, (k+1)*n/folds
				rest := NewSM(fam, dphi)
				addOutside(rest.Add, phis, nexts, lo, hi)
				f, err := rest.Fit(l)
				if err != nil {
					t.Fatal(err)
				}
				for j := lo; j < hi; j++ {
					v, b := denseTerms(fam, phis[j], nexts[j])
					for p := range d {
						want += b[p] * f.W[p]
						for q := range d {
							want += 0.5 * f.W[p] * v[p*d+q] * f.W[q]
						}
					}
				}
			}
			want /= n
			if got := cv.Points[i].Loss; !testutil.AbsWithin(got, want, 1e-9*(1+math.Abs(want))) {
				t.Errorf("%v λ=%g: CV loss %.12g, re-fit %.12g", fam, l, got, want)
			}
		}
		best := cv.Best
		for i, p := range cv.Points {
			if p.Loss < cv.Points[best].Loss || (p.Loss == cv.Points[best].Loss && i < best) {
				t.Errorf("%v: best %d (loss %g) but point %d has loss %g", fam, best, cv.Points[best].Loss, i, p.Loss)
			}
		}
		all := NewSM(fam, dphi)
		for i := range n {
			all.Add(phis[i], nexts[i])
		}
		fa, _ := all.Fit(0.1)
		fc, err := cv.All.Fit(0.1)
		if err != nil {
			t.Fatal(err)
		}
		for i := range fa.W {
			if !testutil.AbsWithin(fa.W[i], fc.W[i], 1e-10*(1+math.Abs(fa.W[i]))) {
				t.Errorf("%v: W from the fold sums %v, from one pass %v", fam, fc.W, fa.W)
				break
			}
		}
	}
}

func TestCrossValidateRefuses(t *testing.T) {
	sin, _ := expfam.NewSin(4, 1.7)
	prod, _ := expfam.NewProduct(sin, 1)
	phi, next := []float64{1, 0.5}, []float64{0.2}
	data := func(int) ([]float64, []float64) { return phi, next }
	for _, tc := range []struct {
		name  string
		n, k  int
		grid  []float64
		fails bool
	}{
		{"fewer transitions than folds", 3, 5, []float64{1}, true},
		{"one fold", 10, 1, []float64{1}, true},
		{"empty grid", 10, 2, nil, true},
		{"negative λ", 10, 2, []float64{-1}, true},
		{"NaN λ", 10, 2, []float64{math.NaN()}, true},
		{"every λ singular", 10, 2, []float64{0}, true}, // one repeated phi spans one direction
		{"fine", 10, 2, []float64{0, 1}, false},
	} {
		_, err := CrossValidate(NewSM(prod, 2), tc.n, data, tc.k, tc.grid)
		if (err != nil) != tc.fails {
			t.Errorf("%s: err = %v, want failure %v", tc.name, err, tc.fails)
		}
	}
}
