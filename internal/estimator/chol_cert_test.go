package estimator

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/simd"
)

// gramOf returns a = Σ_t φ_t φ_tᵀ (d×d, upper triangle) of n feature vectors
// φ_t,j = sqrt(2/d)·cos(z), z ~ N(j, 1): random-Fourier-like rows, summed
// transition by transition.
func gramOf(rng *rand.Rand, n, d int) []float64 {
	a := make([]float64, d*d)
	phi := make([]float64, d)
	s := math.Sqrt(2 / float64(d))
	for range n {
		for j := range phi {
			phi[j] = s * math.Cos(rng.NormFloat64()+float64(j))
		}
		addOuter(a, phi, 1)
	}
	return a
}

// formed is fl(scale·a + λI) as factor writes it, as a SymDense.
func formed(a []float64, d int, scale, lambda float64) *mat.SymDense {
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			v := a[i*d+j]
			if scale != 1 {
				v *= scale
			}
			if i == j {
				v += lambda
			}
			s.SetSym(i, j, v)
		}
	}
	return s
}

type certCase struct {
	n, d          int
	scale, lambda float64
}

var certCases = []certCase{
	{30, 40, 1, 1e-3},      // below linalg.MinPotrf: gonum's Dpocon and Dlatrs
	{60, 260, 1, 1e-3},     // rank 60 of 260: λ_min(A) = λ
	{60, 260, 1.6e5, 1e-3}, // the scale config's C = 1/σ⁴ at σ 0.05
	{600, 300, 1, 1e-3},
	{600, 300, 1.6e5, 1e-3},
	{600, 300, 4, 1},
	{2000, 260, 1.6e5, 1e-3},
}

// TestGramFloorIsBelowTheSmallestEigenvalue: gramFloor's bound lies below
// the smallest eigenvalue of fl(scale·a + λI) by gonum's eigensolver, and
// near λ (the data's own eigenvalues are ≥ 0) where the roundings are small.
func TestGramFloorIsBelowTheSmallestEigenvalue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range certCases {
		t.Run(fmt.Sprintf("n%d_d%d_s%g_l%g", c.n, c.d, c.scale, c.lambda), func(t *testing.T) {
			a := gramOf(rng, c.n, c.d)
			lo := gramFloor(a, c.d, c.scale, c.lambda, c.n)
			var es mat.EigenSym
			if !es.Factorize(formed(a, c.d, c.scale, c.lambda), false) {
				t.Fatal("eigendecomposition failed")
			}
			minEig := es.Values(nil)[0]
			if !(lo > 0.9*c.lambda) || lo > minEig {
				t.Fatalf("gramFloor %v, want in (0.9λ, λ_min = %v]", lo, minEig)
			}
		})
	}
}

// TestCertifiedBoundCoversTheEstimate: where factor skips the condition
// estimate, the bound it relied on is at least the estimate computed
// afterwards (Cond, gonum's Dpocon), and √n of it is needed: in a rank-
// deficient case the estimate exceeds the bound divided by √n.
func TestCertifiedBoundCoversTheEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	needRoot := false
	for _, c := range certCases {
		a := gramOf(rng, c.n, c.d)
		ch, err := factor(nil, a, c.d, c.scale, c.lambda, "test", c.n, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if ch.condKnown || math.IsInf(ch.condBound, 1) {
			t.Fatalf("%+v: the estimate was not skipped (bound %v)", c, ch.condBound)
		}
		est := ch.Cond()
		if !(est <= ch.condBound) {
			t.Fatalf("%+v: estimate %v above the proven bound %v", c, est, ch.condBound)
		}
		if est > ch.condBound/math.Sqrt(float64(c.d)) {
			needRoot = true
		}
		// The estimate computed late is the one computed at once.
		b, err := factor(nil, a, c.d, c.scale, c.lambda, "test", c.n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !b.condKnown || math.Float64bits(b.cond) != math.Float64bits(est) {
			t.Fatalf("%+v: late estimate %v, at once %v", c, est, b.cond)
		}
	}
	if !needRoot {
		t.Fatal("no case needs the bound's √n: the test cannot tell it is there")
	}
}

// TestCertificateKeepsRefusals: with the bound or without it, factor
// accepts and refuses the same matrices, across λ that take the condition
// estimate from below maxCond to above it.
func TestCertificateKeepsRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, d = 60, 260
	a := gramOf(rng, n, d)
	refused, skipped, computed := 0, 0, 0
	for _, lambda := range []float64{1, 1e-3, 1e-8, 1e-11, 1e-12, 3e-13, 1e-13, 3e-14, 1e-14, 1e-16} {
		with, errWith := factor(nil, a, d, 1, lambda, "test", n, n)
		_, errWithout := factor(nil, a, d, 1, lambda, "test", n, 0)
		if (errWith == nil) != (errWithout == nil) {
			t.Fatalf("λ = %g: with the bound %v, without %v", lambda, errWith, errWithout)
		}
		if errWith != nil {
			if !errors.Is(errWith, ErrSingular) {
				t.Fatalf("λ = %g: %v, want ErrSingular", lambda, errWith)
			}
			refused++
			continue
		}
		if with.condKnown {
			computed++ // the bound was above maxCond: Dpocon decided, as without it
			continue
		}
		if with.condBound > maxCond {
			t.Fatalf("λ = %g: skipped with a bound %v above maxCond", lambda, with.condBound)
		}
		skipped++
	}
	if refused == 0 || skipped == 0 || computed == 0 {
		t.Fatalf("refused %d, skipped %d, computed and accepted %d of 10: the λ grid must reach all three", refused, skipped, computed)
	}
}

// TestGramFloorNeedsItsPremises: no bound without positive terms, scale
// and λ, or with a negative, NaN or infinite diagonal.
func TestGramFloorNeedsItsPremises(t *testing.T) {
	ok := []float64{2, 1, 0, 3}
	for _, c := range []struct {
		name          string
		a             []float64
		scale, lambda float64
		terms         int
	}{
		{"terms 0", ok, 1, 1, 0},
		{"scale 0", ok, 0, 1, 4},
		{"scale NaN", ok, math.NaN(), 1, 4},
		{"scale +Inf", ok, math.Inf(1), 1, 4},
		{"λ 0", ok, 1, 0, 4},
		{"λ +Inf", ok, 1, math.Inf(1), 4},
		{"negative diagonal", []float64{-1, 0, 0, 3}, 1, 1, 4},
		{"NaN diagonal", []float64{math.NaN(), 0, 0, 3}, 1, 1, 4},
		{"infinite diagonal", []float64{math.Inf(1), 0, 0, 3}, 1, 1, 4},
		{"rounding above λ", []float64{1e30, 0, 0, 1e30}, 1, 1, 1 << 20},
	} {
		if got := gramFloor(c.a, 2, c.scale, c.lambda, c.terms); got != 0 {
			t.Errorf("%s: gramFloor %v, want 0", c.name, got)
		}
	}
	if got := gramFloor(ok, 2, 1, 1, 4); !(got > 0.99 && got <= 1) {
		t.Errorf("premises met: gramFloor %v, want just below λ = 1", got)
	}
}

// TestCertifyCondNeedsRoom: no bound where a solution could approach the
// scaled path of Dlatrs (2⁹⁰⁰), however well conditioned the matrix: a
// matrix of order 100 whose entries are about 1e-280.
func TestCertifyCondNeedsRoom(t *testing.T) {
	if b := certifyCond(100, 1e-280, 1e-278, 1e-281); !math.IsInf(b, 1) {
		t.Fatalf("bound %v for a matrix of entries 1e-280, want none", b)
	}
	if b := certifyCond(100, 1, 100, 0.5); math.IsInf(b, 1) || !(b > 1) {
		t.Fatalf("bound %v for a well-scaled matrix, want a finite one", b)
	}
}

// bigGamma is γ_k = k·u/(1 − k·u) in 256-bit arithmetic.
func bigGamma(k int) *big.Float {
	ku := new(big.Float).SetPrec(256).Mul(big.NewFloat(float64(k)), big.NewFloat(unitRoundoff))
	one := new(big.Float).SetPrec(256).SetInt64(1)
	return new(big.Float).SetPrec(256).Quo(ku, new(big.Float).SetPrec(256).Sub(one, ku))
}

func bf(x float64) *big.Float { return new(big.Float).SetPrec(256).SetFloat64(x) }

// TestCertificateFormulas pins gramFloor and certifyCond to their
// formulas, evaluated again in 256-bit arithmetic: each term's constant
// (γ_{terms+8}, the forming term 3u, γ_{n+4}, the √n, the final
// 1 + γ_{n+10}) moves the result by more than the tolerance, which real
// rounding errors, far below the worst case, cannot show.
func TestCertificateFormulas(t *testing.T) {
	one := bf(1)
	for _, c := range []struct {
		a             []float64
		d             int
		scale, lambda float64
		terms         int
	}{
		{[]float64{3, 1, 0, 5}, 2, 1, 2e-14, 1},           // the forming term is a quarter of it
		{[]float64{2e3, 1, 0, 3e3}, 2, 1.6e5, 1e-3, 2000}, // the sums' term decides
		{[]float64{2e3, 1, 0, 3e3}, 2, 1.6e5, 1e-3, 4e6},  // too many products: no bound
	} {
		tr := bf(0)
		for i := range c.d {
			tr.Add(tr, bf(c.a[i*c.d+i]))
		}
		g := bigGamma(c.terms + 8)
		trV := new(big.Float).Quo(tr, new(big.Float).Mul(new(big.Float).Sub(one, bigGamma(c.d)), new(big.Float).Sub(one, g)))
		trV.Mul(trV, new(big.Float).Add(one, bigGamma(2)))
		sTrV := new(big.Float).Mul(bf(c.scale), trV)
		deficit := new(big.Float).Mul(sTrV, g)
		form := new(big.Float).Add(sTrV, new(big.Float).Mul(bf(float64(c.d)), bf(c.lambda)))
		deficit.Add(deficit, form.Mul(form, bf(3*unitRoundoff)))
		want, _ := new(big.Float).Sub(bf(c.lambda), deficit).Float64()
		got := gramFloor(c.a, c.d, c.scale, c.lambda, c.terms)
		if want <= 0 {
			if got != 0 {
				t.Errorf("%+v: gramFloor %v, want 0 (the deficit exceeds λ)", c, got)
			}
			continue
		}
		d, _ := deficit.Float64()
		if gotDef := c.lambda - got; math.Abs(gotDef-d) > 1e-9*d {
			t.Errorf("%+v: gramFloor's deficit %v, want %v", c, gotDef, d)
		}
	}
	for _, c := range []struct {
		n                int
		norm, tr, minEig float64
	}{
		{100, 3.5, 120, 0.2},
		{2000, 1.2e8, 3.2e8, 9.3e-4},
	} {
		g := bigGamma(c.n + 4)
		frob := new(big.Float).Quo(bf(c.tr), new(big.Float).Mul(new(big.Float).Sub(one, bigGamma(c.n)), new(big.Float).Sub(one, g)))
		p := new(big.Float).Mul(new(big.Float).Add(new(big.Float).Mul(bf(3), g), new(big.Float).Mul(g, g)), frob)
		lo := new(big.Float).Sub(bf(c.minEig), p)
		w := new(big.Float).Quo(bf(c.norm), new(big.Float).Sub(one, bigGamma(c.n)))
		w.Mul(w, new(big.Float).SetPrec(256).Sqrt(bf(float64(c.n))))
		w.Quo(w, lo)
		w.Mul(w, new(big.Float).Add(one, bigGamma(c.n+10)))
		want, _ := w.Float64()
		if got := certifyCond(c.n, c.norm, c.tr, c.minEig); math.Abs(got-want) > 1e-15*want {
			t.Errorf("%+v: certifyCond %v, want %v", c, got, want)
		}
	}
}

// TestCallSitesVouchForTheirGrams: every unweighted score-matching layout
// and least squares skip the estimate with the bound of their own count of
// products (n per entry, n·d_s for the general family's V), and a weighted
// fit, whose h(s') may be negative, computes it.
func TestCallSitesVouchForTheirGrams(t *testing.T) {
	const dphi, n, lambda = 5, 80, 0.1
	sin, _ := expfam.NewSin(3, 1.5)
	prod, _ := expfam.NewProduct(sin, 2)
	relu3, _ := expfam.NewReLU(0.7, 3)
	gc, _ := expfam.NewGaussCoord(0.4)
	coords, _ := expfam.NewCoords([]expfam.Coord{relu3, gc})
	joint, err := expfam.NewJointExpr(2, "-0.5*(x0^2+x1^2) - 0.3*x0*x1", []string{"x0", "x1", "x0*x1"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	data := func(add func(phi, next []float64), ds int) {
		phi, next := make([]float64, dphi), make([]float64, ds)
		for range n {
			for j := range phi {
				phi[j] = 2*rng.Float64() - 1
			}
			for k := range next {
				next[k] = rng.NormFloat64()
			}
			add(phi, next)
		}
	}
	// check: each block's bound is certifyCond(gramFloor(V_b, terms)).
	check := func(name string, f *Fit, blocks [][]float64, terms int) {
		t.Helper()
		if len(f.blocks) == 0 {
			t.Fatalf("%s: no blocks", name)
		}
		for i, b := range f.blocks {
			c := b.c
			if c.condKnown {
				t.Fatalf("%s block %d: the condition estimate was computed", name, i)
			}
			v := blocks[i%len(blocks)]
			var tr float64
			for j := range b.n {
				tr += v[j*b.n+j] + lambda
			}
			want := certifyCond(b.n, c.norm, tr, gramFloor(v, b.n, 1, lambda, terms))
			if math.Float64bits(c.condBound) != math.Float64bits(want) {
				t.Fatalf("%s block %d: bound %v, want %v (%d products an entry)", name, i, c.condBound, want, terms)
			}
		}
	}
	sep := NewSM(prod, dphi)
	data(sep.Add, 2)
	f, err := sep.Fit(lambda)
	if err != nil {
		t.Fatal(err)
	}
	if sep.sep == nil || sep.constant {
		t.Fatal("the product family is not on the separable, non-constant layout")
	}
	check("separable", f, sep.blocks, n)

	blk := NewSM(coords, dphi)
	data(blk.Add, 2)
	if f, err = blk.Fit(lambda); err != nil {
		t.Fatal(err)
	}
	if blk.blk == nil {
		t.Fatal("the coordinates' family is not on the blocked layout")
	}
	check("blocked", f, blk.blocks, n)

	gen := NewSM(joint, dphi)
	data(gen.Add, 2)
	if f, err = gen.Fit(lambda); err != nil {
		t.Fatal(err)
	}
	if gen.sep != nil || gen.blk != nil {
		t.Fatal("the joint family is not on the general layout")
	}
	check("general", f, gen.blocks, n*2)

	lds := NewLDS(2, dphi)
	data(lds.Add, 2)
	if f, err = lds.Fit(lambda); err != nil {
		t.Fatal(err)
	}
	check("least squares", f, [][]float64{lds.g}, n)

	wt := NewSM(coords, dphi)
	w, _ := expfam.NewDistWeight(nil, -1, 1, 0.5, 2)
	if err := wt.SetWeights([]expfam.Weight{w, nil}); err != nil {
		t.Fatal(err)
	}
	data(wt.Add, 2)
	if f, err = wt.Fit(lambda); err != nil {
		t.Fatal(err)
	}
	for i, b := range f.blocks {
		if !b.c.condKnown {
			t.Fatalf("weighted block %d: the estimate was skipped", i)
		}
	}
}

// TestSubnormalLambdaStillRefused: λ near underflow with nothing else on the
// diagonal is refused with the bound as without it (Dlatrs's scaled solve
// makes the estimate +Inf; before 0a1d469 the bound accepted it).
func TestSubnormalLambdaStillRefused(t *testing.T) {
	lds := NewLDS(1, 2)
	for range 3 {
		lds.Add([]float64{0, 0}, []float64{1})
	}
	for _, lambda := range []float64{1e-310, 5e-324, 3e-308} {
		if _, err := lds.Fit(lambda); !errors.Is(err, ErrSingular) {
			t.Errorf("λ = %g: %v, want ErrSingular", lambda, err)
		}
		a := make([]float64, 50*50)
		_, with := factor(nil, a, 50, 1, lambda, "test", 3, 3)
		_, without := factor(nil, a, 50, 1, lambda, "test", 3, 0)
		if (with == nil) != (without == nil) {
			t.Errorf("λ = %g, order 50: with the bound %v, without %v", lambda, with, without)
		}
	}
}

// TestCertificateReach (about 1 s): how many transitions of
// the scale config (d_s 17, d_a 6, D 2000 random Fourier features of
// length 2 and seed 5, σ 0.05 so C = 1.6·10⁵, λ = 10⁻³; uniform random
// states and actions) the bound on the condition estimate reaches: it
// logs the bound every 500 transitions up to 7000 and checks that it
// holds at 2000 and is gone by 6000 (docs/performance.md, 2026-11-29:
// 7.5·10¹² at 2000, 7.6·10¹³ at 4500, 6.4·10¹⁴ at 5000, none from 5500).
func TestCertificateReach(t *testing.T) {
	if !simd.AVX512 {
		t.Skip("7000 transitions at D = 2000 take several seconds without the AVX-512 kernels")
	}
	const ds, da, d, lambda = 17, 6, 2000, 1e-3
	g, _ := expfam.NewGaussian(ds, 0.05)
	f, err := expfam.NewRFF(ds, da, d, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	e := NewSM(g, d)
	rng := rand.New(rand.NewPCG(1, 2))
	s, a, phi, next := make([]float64, ds), make([]float64, da), make([]float64, d), make([]float64, ds)
	u, work := make([]float64, d*d), make([]float64, d)
	for n := 1; n <= 7000; n++ {
		for i := range s {
			s[i] = 2*rng.Float64() - 1
		}
		for i := range a {
			a[i] = 2*rng.Float64() - 1
		}
		f.Phi(s, a, phi)
		for i := range next {
			next[i] = 0.9*s[i] + 0.05*rng.NormFloat64()
		}
		e.Add(phi, next)
		if n%500 != 0 {
			continue
		}
		e.flush()
		v := e.blocks[0]
		var tr float64
		for i := range d {
			for j := i; j < d; j++ {
				u[i*d+j] = e.constC * v[i*d+j]
			}
			u[i*d+i] += lambda
			tr += u[i*d+i]
		}
		norm := lapack64.Lansy(mat.CondNorm, blas64.Symmetric{Uplo: blas.Upper, N: d, Stride: d, Data: u}, work)
		bound := certifyCond(d, norm, tr, gramFloor(v, d, e.constC, lambda, n))
		t.Logf("%d transitions: bound %.3g", n, bound)
		if (n == 2000 && !(bound <= maxCond)) || (n == 6000 && bound <= maxCond) {
			t.Errorf("%d transitions: bound %v", n, bound)
		}
	}
}
