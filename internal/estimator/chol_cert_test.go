package estimator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
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
