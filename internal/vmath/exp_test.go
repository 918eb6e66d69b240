package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// specials are the values every function's tests include: ±0, ±1, ±Inf,
// NaN, the smallest and the largest magnitudes.
func specials() []float64 {
	return []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
}

// expInputs are the inputs on which Exps must give math.Exp's bits: the
// special values, both sides of every edge of math's common path (the
// overflow threshold, the exponents −1022 and 1023, subnormal and zero
// results), the points where the rounding of x·log₂e changes the exponent,
// and random numbers over the whole range of exp and around zero.
func expInputs(rng *rand.Rand) []float64 {
	xs := append(specials(),
		7.09782712893384e+02, math.Nextafter(7.09782712893384e+02, 800), 709, 708, -708, -709,
		-745.1332191019412, -745.1332191019411, -746, -1e10, 1e10, 1e-300, -1e-300)
	for _, edge := range []float64{1022.5, 1023.5, -1021.5, -1022.5, -1074.5, 0.5, -0.5} {
		x := edge * math.Ln2
		for k := -8; k <= 8; k++ {
			xs = append(xs, x+float64(k)*x*0x1p-52)
		}
	}
	for range 400_000 {
		xs = append(xs, (2*rng.Float64()-1)*750)
	}
	for range 200_000 {
		xs = append(xs, math.Ldexp(2*rng.Float64()-1, rng.IntN(80)-70))
	}
	for range 200_000 { // the paper's bumps: −width·|s − c|² for width 10
		d := 3 * (2*rng.Float64() - 1)
		xs = append(xs, -10*d*d)
	}
	return xs
}

// Exps gives math.Exp's bits on every input of expInputs, each of them in
// every lane of a vector and in the scalar tail, shuffled so that special
// values share groups of four with ordinary ones, in place, and in short
// batches.
func TestExpsIsMathExp(t *testing.T) {
	if useExpAVX2 {
		ones := []float64{1, 1, 1, 1}
		if done := expAVX2(&expC, &ones[0], &make([]float64, 4)[0], 4); done != 4 {
			t.Fatalf("the AVX2 kernel is selected, but it stops at %d of four ordinary numbers", done)
		}
	}
	rng := rand.New(rand.NewPCG(24, 7))
	xs := expInputs(rng)
	check := func(xs []float64, what string) {
		t.Helper()
		out := make([]float64, len(xs))
		Exps(out, xs)
		for i, got := range out {
			if want := math.Exp(xs[i]); !numeric.SameBitsOrNaN(got, want) {
				t.Fatalf("%s: element %d of %d: Exps gives exp(%v) = %v (%#x), math.Exp %v (%#x)",
					what, i, len(xs), xs[i], got, math.Float64bits(got), want, math.Float64bits(want))
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
	in := append([]float64(nil), perm...)
	Exps(in, in)
	for i, got := range in {
		if want := math.Exp(perm[i]); !numeric.SameBitsOrNaN(got, want) {
			t.Fatalf("in place: exp(%v) = %v, math.Exp %v", perm[i], got, want)
		}
	}
}

// The kernel stops at every group of four with an element off math's
// common path, whichever lane it is in and whatever the others hold (each
// such value alone among ordinary numbers), and Exps then gives math.Exp's
// value to all four.
func TestExpsStopsAtEachSpecialLane(t *testing.T) {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 709.7, 710, -709.5, -720, -746, -1e10, 1e10}
	for _, v := range special {
		for lane := range 4 {
			xs := []float64{-1, 0.5, 3, -0.25, 1, 2, 3, 4}
			xs[lane+4] = v
			out := make([]float64, 8)
			Exps(out, xs)
			for i, got := range out {
				if want := math.Exp(xs[i]); !numeric.SameBitsOrNaN(got, want) {
					t.Fatalf("%v in lane %d: exp(%v) = %v, math.Exp %v", v, lane, xs[i], got, want)
				}
			}
			if useExpAVX2 {
				if done := expAVX2(&expC, &xs[0], &out[0], 8); done != 4 {
					t.Fatalf("%v in lane %d of the second group: the kernel stops at %d, want 4", v, lane, done)
				}
			}
		}
	}
}

// SMRL_NOSIMD=1 turns the vector kernels off (.ci/run runs the tests of
// Exps and Sincoss so, to exercise the scalar loops on their own).
func TestNoSIMDSwitch(t *testing.T) {
	if os.Getenv("SMRL_NOSIMD") != "" && (useExpAVX2 || useSincosAVX2) {
		t.Fatalf("SMRL_NOSIMD is set but a vector kernel is on (exp %v, sincos %v)", useExpAVX2, useSincosAVX2)
	}
}

// BenchmarkExp takes 64 exponentials of the paper's bump arguments, one
// math.Exp call each, and with Exps; reported per exponential.
func BenchmarkExp(b *testing.B) {
	const n = 64
	rng := rand.New(rand.NewPCG(1, 2))
	xs, out := make([]float64, n), make([]float64, n)
	for i := range xs {
		d := 2*rng.Float64() - 1
		xs[i] = -10 * d * d
	}
	perExp := func(b *testing.B) { perElement(b, n, "ns/exp") }
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				out[i] = math.Exp(x)
			}
		}
		perExp(b)
	})
	b.Run("batch", func(b *testing.B) {
		for b.Loop() {
			Exps(out, xs)
		}
		perExp(b)
	})
}

// perElement reports a benchmark's time per element of its n-element
// calls, in place of the time per call.
func perElement(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), unit)
	b.ReportMetric(0, "ns/op")
}
