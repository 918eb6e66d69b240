package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// sincosInputs are the inputs on which Sins and Sincoss must give math's
// bits: the special values, both sides of 2²⁹ (math's Payne–Hanek
// reduction), points beside every octant boundary kπ/4 up to 10⁴, random
// numbers over the pendulum's angles and over many binary orders of
// magnitude.
func sincosInputs(rng *rand.Rand) []float64 {
	xs := append(specials(),
		1<<29, -(1 << 29), math.Nextafter(1<<29, 0), -math.Nextafter(1<<29, 0), 1e-300, 2.2e-308)
	for k := range 12_733 { // kπ/4 below 10⁴, and its neighbours
		b := float64(k) * math.Pi / 4
		for d := -3; d <= 3; d++ {
			xs = append(xs, b+float64(d)*math.Max(b, 1)*0x1p-52, -(b + float64(d)*math.Max(b, 1)*0x1p-52))
		}
	}
	for range 400_000 {
		xs = append(xs, 4*math.Pi*(2*rng.Float64()-1))
	}
	for range 200_000 {
		xs = append(xs, math.Ldexp(2*rng.Float64()-1, rng.IntN(100)-70))
	}
	return xs
}

// Sins and Sincoss give math.Sin's and math.Sincos's bits on every input
// of sincosInputs, each in every lane of a vector and in the scalar tail,
// shuffled so that special values share groups of four with ordinary
// ones, in place, and in short batches.
func TestSincossIsMathSincos(t *testing.T) {
	if useSincosAVX2 {
		ones, s := []float64{1, 1, 1, 1}, make([]float64, 4)
		if done := sincosAVX2(&sincosC, &ones[0], &s[0], nil, 4); done != 4 {
			t.Fatalf("the AVX2 kernel is selected, but it stops at %d of four ordinary numbers", done)
		}
	}
	rng := rand.New(rand.NewPCG(24, 9))
	xs := sincosInputs(rng)
	check := func(xs []float64, what string) {
		t.Helper()
		sin, sin2, cos := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
		Sins(sin, xs)
		Sincoss(sin2, cos, xs)
		for i, x := range xs {
			ws, wc := math.Sincos(x)
			if w := math.Sin(x); !numeric.SameBitsOrNaN(sin[i], w) {
				t.Fatalf("%s: element %d of %d: Sins gives sin(%v) = %v (%#x), math.Sin %v (%#x)",
					what, i, len(xs), x, sin[i], math.Float64bits(sin[i]), w, math.Float64bits(w))
			}
			if !numeric.SameBitsOrNaN(sin2[i], ws) || !numeric.SameBitsOrNaN(cos[i], wc) {
				t.Fatalf("%s: element %d of %d: Sincoss gives sincos(%v) = %v, %v; math.Sincos %v, %v",
					what, i, len(xs), x, sin2[i], cos[i], ws, wc)
			}
		}
	}
	for shift := range 4 {
		check(xs[shift:], fmt.Sprintf("shifted by %d", shift))
	}
	perm := make([]float64, len(xs))
	for i, j := range rng.Perm(len(xs)) {
		perm[i] = xs[j]
	}
	check(perm, "shuffled")
	for n := range 9 {
		check(perm[:n], fmt.Sprintf("%d elements", n))
	}
	in, cos := append([]float64(nil), perm...), make([]float64, len(perm))
	Sincoss(in, cos, in)
	in2 := append([]float64(nil), perm...)
	Sins(in2, in2)
	for i, x := range perm {
		ws, wc := math.Sincos(x)
		if !numeric.SameBitsOrNaN(in[i], ws) || !numeric.SameBitsOrNaN(cos[i], wc) || !numeric.SameBitsOrNaN(in2[i], math.Sin(x)) {
			t.Fatalf("in place: sincos(%v) = %v, %v and sin %v; math %v, %v and %v", x, in[i], cos[i], in2[i], ws, wc, math.Sin(x))
		}
	}
}

// The kernel stops at every group of four with an element outside
// 0 < |x| < 2²⁹, whichever lane it is in (each such value alone among
// ordinary numbers), and the functions then give math's values to all four.
func TestSincossStopsAtEachSpecialLane(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1 << 29, -(1 << 30), 1e300}
	for _, v := range special {
		for lane := range 4 {
			xs := []float64{-1, 0.5, 3, -0.25, 1, 2, 3, 4}
			xs[lane+4] = v
			sin, cos := make([]float64, 8), make([]float64, 8)
			Sincoss(sin, cos, xs)
			for i, x := range xs {
				if ws, wc := math.Sincos(x); !numeric.SameBitsOrNaN(sin[i], ws) || !numeric.SameBitsOrNaN(cos[i], wc) {
					t.Fatalf("%v in lane %d: sincos(%v) = %v, %v; math.Sincos %v, %v", v, lane, x, sin[i], cos[i], ws, wc)
				}
			}
			if useSincosAVX2 {
				if done := sincosAVX2(&sincosC, &xs[0], &sin[0], &cos[0], 8); done != 4 {
					t.Fatalf("%v in lane %d of the second group: the kernel stops at %d, want 4", v, lane, done)
				}
			}
		}
	}
}

// BenchmarkSincos takes 64 sines and 64 sines with cosines of the
// pendulum's angles, one math call each and with Sins and Sincoss;
// reported per element.
func BenchmarkSincos(b *testing.B) {
	const n = 64
	rng := rand.New(rand.NewPCG(1, 2))
	xs, sin, cos := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = 4 * math.Pi * (2*rng.Float64() - 1)
	}
	per := func(b *testing.B) { perElement(b, n, "ns/elem") }
	b.Run("sin/scalar", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				sin[i] = math.Sin(x)
			}
		}
		per(b)
	})
	b.Run("sin/batch", func(b *testing.B) {
		for b.Loop() {
			Sins(sin, xs)
		}
		per(b)
	})
	b.Run("sincos/scalar", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				sin[i], cos[i] = math.Sincos(x)
			}
		}
		per(b)
	})
	b.Run("sincos/batch", func(b *testing.B) {
		for b.Loop() {
			Sincoss(sin, cos, xs)
		}
		per(b)
	})
}
