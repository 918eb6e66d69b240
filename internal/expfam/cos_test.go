package expfam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// Cos against math.Cos: within 1e-15·(1 + |x|) on a fine grid of [−300, 300],
// at random points up to |x| = 1e6, and at the quadrant points.
func TestCos(t *testing.T) {
	check := func(x float64) {
		if got, want := Cos(x), math.Cos(x); !numeric.AbsWithin(got, want, 1e-15*(1+math.Abs(x))) {
			t.Fatalf("Cos(%v) = %v, math.Cos = %v (error %.3g)", x, got, want, got-want)
		}
	}
	for i := 0; i <= 2_000_000; i++ {
		check(-300 + 600*float64(i)/2_000_000)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		check((2*rng.Float64() - 1) * 1e6)
	}
	for k := -20; k <= 20; k++ {
		check(float64(k) * math.Pi / 2)
	}
	if !math.IsNaN(Cos(math.NaN())) || !math.IsNaN(Cos(math.Inf(1))) || !math.IsNaN(Cos(math.Inf(-1))) {
		t.Error("Cos of NaN or Inf is not NaN")
	}
	// Up to the bound the reduction holds (within the error bound); from it
	// on, Cos is math.Cos.
	for _, x := range []float64{1e9, 1e12, 1e15, math.Nextafter(cosMaxArg, 0)} {
		check(x)
		check(-x)
	}
	if math.Float64bits(cosMaxArg) != cosMaxBits || !cosInRange(math.Nextafter(cosMaxArg, 0)) || !cosInRange(-math.Nextafter(cosMaxArg, 0)) || cosInRange(-cosMaxArg) {
		t.Fatalf("cosMaxBits %#x, the bits of 2^50 are %#x", uint64(cosMaxBits), math.Float64bits(cosMaxArg))
	}
	big := []float64{cosMaxArg, 1 << 51, 1e16, 1e17, 1e20, 1e300, math.MaxFloat64}
	for _, x := range big {
		for _, x := range []float64{x, -x} {
			if got, want := Cos(x), math.Cos(x); got != want {
				t.Errorf("Cos(%g) = %v, math.Cos = %v", x, got, want)
			}
		}
	}
	// scaleCos is scale·Cos, element by element.
	xs := append([]float64{0.3, -2.5, 1e6, math.Nextafter(cosMaxArg, 0), math.NaN(), math.Inf(-1)}, big...)
	got := append([]float64(nil), xs...)
	scaleCos(got, 0.7)
	for j, x := range xs {
		if want := 0.7 * Cos(x); math.Float64bits(got[j]) != math.Float64bits(want) && !(math.IsNaN(got[j]) && math.IsNaN(want)) {
			t.Errorf("scaleCos(%g) = %v, want 0.7·Cos = %v", x, got[j], want)
		}
	}
}

// The scaled features are the features of the scaled inputs.
func TestRFFScaleInputs(t *testing.T) {
	f, _ := NewRFF(2, 1, 50, 0.7, 3)
	g, _ := NewRFF(2, 1, 50, 0.7, 3)
	c := []float64{2, 0.5, 4}
	if err := g.ScaleInputs(c); err != nil {
		t.Fatal(err)
	}
	s, a := []float64{0.3, -1.2}, []float64{3}
	want, got := make([]float64, 50), make([]float64, 50)
	f.Phi([]float64{s[0] / c[0], s[1] / c[1]}, []float64{a[0] / c[2]}, want)
	g.Phi(s, a, got)
	for j := range want {
		if !numeric.AbsWithin(got[j], want[j], 1e-14) {
			t.Fatalf("phi_%d = %v, want %v", j, got[j], want[j])
		}
	}
	if err := g.ScaleInputs([]float64{1, 2}); err == nil {
		t.Error("accepted 2 scales for 3 inputs")
	}
	if err := g.ScaleInputs([]float64{1, 0, 1}); err == nil {
		t.Error("accepted a zero scale")
	}
}

// The features approximate the Gaussian kernel: phi(z)·phi(z') →
// exp(−|z − z'|²/(2ℓ²)) with error O(1/√D) (here D = 20000, 5 standard
// errors ≈ 0.05).
func TestRFFKernel(t *testing.T) {
	const d = 20000
	ell := 0.8
	f, _ := NewRFF(2, 1, d, ell, 9)
	p, q := make([]float64, d), make([]float64, d)
	for _, z := range [][2][3]float64{
		{{0, 0, 0}, {0, 0, 0}}, {{0.1, 0.2, 0.3}, {0.5, -0.2, 0.1}}, {{1, 1, 1}, {0, 0, 0}}, {{-1, 0.5, 2}, {-1.2, 0.1, 1.5}},
	} {
		f.Phi(z[0][:2], z[0][2:], p)
		f.Phi(z[1][:2], z[1][2:], q)
		var k, d2 float64
		for j := range p {
			k += p[j] * q[j]
		}
		for i := range 3 {
			d2 += (z[0][i] - z[1][i]) * (z[0][i] - z[1][i])
		}
		if want := math.Exp(-d2 / (2 * ell * ell)); !numeric.AbsWithin(k, want, 0.05) {
			t.Errorf("kernel at %v: %v, want %v", z, k, want)
		}
	}
}

func BenchmarkCos(b *testing.B) {
	x, s := 0.1, 0.0
	for i := 0; i < b.N; i++ {
		s += Cos(x)
		x += 0.37
		if x > 20 {
			x -= 40
		}
	}
	sinkF = s
}

func BenchmarkMathCos(b *testing.B) {
	x, s := 0.1, 0.0
	for i := 0; i < b.N; i++ {
		s += math.Cos(x)
		x += 0.37
		if x > 20 {
			x -= 40
		}
	}
	sinkF = s
}

var sinkF float64

// BenchmarkRFFPhi is one feature vector of the pendulum's learned model:
// D = 200 features of (s, a) ∈ R^3 × R.
func BenchmarkRFFPhi(b *testing.B) {
	f, _ := NewRFF(3, 1, 200, 1, 7)
	_ = f.ScaleInputs([]float64{1, 1, 8, 2})
	s, a, out := []float64{0.3, 0.9, -2}, []float64{1}, make([]float64, 200)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f.Phi(s, a, out)
		s[2] += out[0] * 1e-6
	}
}
