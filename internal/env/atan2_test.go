package env

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// atan2 gives math.Atan2's bits: on every pair of special values (±0,
// ±Inf, NaN, ±1, the smallest and largest numbers), on quotients that
// underflow or overflow, on each branch of the reduction (|y/x| around
// 0.66 and tan(3π/8)), in all four quadrants, and on a million random
// pairs spread over 600 binary orders of magnitude.
func TestAtan2IsMathAtan2(t *testing.T) {
	same := func(y, x float64) {
		t.Helper()
		got, want := atan2(y, x), math.Atan2(y, x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("atan2(%v, %v) = %v, math.Atan2 %v", y, x, got, want)
		}
	}
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
		0.66, math.Nextafter(0.66, 1), 2.41421356237309504880, math.Nextafter(2.41421356237309504880, 3)}
	for _, y := range special {
		for _, x := range special {
			same(y, x)
		}
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for range 200_000 { // near the branch points of |y/x|
		x := math.Ldexp(2*rng.Float64()-1, rng.IntN(20)-10)
		for _, c := range []float64{0.66, 2.41421356237309504880, 1} {
			same(x*c*(1+(2*rng.Float64()-1)*1e-6), x)
		}
	}
	for range 1_000_000 {
		y := math.Ldexp(2*rng.Float64()-1, rng.IntN(600)-300)
		x := math.Ldexp(2*rng.Float64()-1, rng.IntN(600)-300)
		same(y, x)
	}
	for range 200_000 { // the pendulum's states: the unit circle, θ̇ aside
		s, c := math.Sincos(2 * math.Pi * (2*rng.Float64() - 1))
		same(s, c)
	}
}

// atan2s gives math.Atan2's bits on the same inputs as
// TestAtan2IsMathAtan2, each of them in every lane of a vector (and in the
// scalar tail): special values mixed with ordinary ones in one group of
// four, both sides of each branch point in one group, random pairs.
func TestAtan2sIsMathAtan2(t *testing.T) {
	if useAVX2 {
		one := []float64{1, 1, 1, 1}
		if n, special := atan2Vector(one, one, make([]float64, 4)); n != 4 || special {
			t.Fatalf("the AVX2 kernel is selected: atan2Vector of four ordinary pairs returns %d, %v", n, special)
		}
	}
	rng := rand.New(rand.NewPCG(24, 6))
	var ys, xs []float64
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64,
		0.66, math.Nextafter(0.66, 1), 2.41421356237309504880, math.Nextafter(2.41421356237309504880, 3)}
	for _, y := range special {
		for _, x := range special {
			ys, xs = append(ys, y), append(xs, x)
		}
	}
	for range 100_000 {
		x := math.Ldexp(2*rng.Float64()-1, rng.IntN(20)-10)
		for _, c := range []float64{0.66, 2.41421356237309504880, 1} {
			ys, xs = append(ys, x*c*(1+(2*rng.Float64()-1)*1e-6)), append(xs, x)
		}
	}
	for range 500_000 {
		ys = append(ys, math.Ldexp(2*rng.Float64()-1, rng.IntN(600)-300))
		xs = append(xs, math.Ldexp(2*rng.Float64()-1, rng.IntN(600)-300))
	}
	for range 100_000 {
		s, c := math.Sincos(2 * math.Pi * (2*rng.Float64() - 1))
		ys, xs = append(ys, s), append(xs, c)
	}
	check := func(ys, xs []float64) {
		t.Helper()
		out := make([]float64, len(ys))
		atan2s(ys, xs, out)
		for i, got := range out {
			want := math.Atan2(ys[i], xs[i])
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("atan2s: element %d of %d: atan2(%v, %v) = %v, math.Atan2 %v", i, len(ys), ys[i], xs[i], got, want)
			}
		}
	}
	// Every input at each of the four lanes and in a tail of 1–3.
	for shift := range 4 {
		check(ys[shift:], xs[shift:])
	}
	// Random groups: special values beside ordinary ones.
	perm := rng.Perm(len(ys))
	py, px := make([]float64, len(ys)), make([]float64, len(xs))
	for i, j := range perm {
		py[i], px[i] = ys[j], xs[j]
	}
	check(py, px)
	for n := range 9 { // short batches
		check(py[:n], px[:n])
	}
}

// SMRL_NOSIMD=1 turns the vector kernel off (.ci/run runs the tests of
// atan2s so, to exercise the scalar loop on its own).
func TestNoSIMDSwitch(t *testing.T) {
	if os.Getenv("SMRL_NOSIMD") != "" && useAVX2 {
		t.Fatal("SMRL_NOSIMD is set but the vector kernel is on")
	}
}

// The kernel flags a group of four whenever one input is zero, infinite or
// NaN, whichever lane and side it is on and whatever the other lanes hold:
// each such value alone among ordinary pairs, in each lane, as y and as x,
// in a call of its own (the scalar fix-up runs only when flagged).
func TestAtan2sFlagsEachSpecialLane(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}
	ordinaryY := []float64{-1, 0.5, 3, -0.25}
	ordinaryX := []float64{-2, -0.75, 1, 4}
	for _, v := range special {
		for lane := range 4 {
			for _, side := range []string{"y", "x"} {
				ys, xs := append([]float64(nil), ordinaryY...), append([]float64(nil), ordinaryX...)
				if side == "y" {
					ys[lane] = v
				} else {
					xs[lane] = v
				}
				out := make([]float64, 4)
				atan2s(ys, xs, out)
				for i, got := range out {
					want := math.Atan2(ys[i], xs[i])
					if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
						t.Fatalf("%s = %v in lane %d: atan2(%v, %v) = %v, math.Atan2 %v", side, v, lane, ys[i], xs[i], got, want)
					}
				}
			}
		}
	}
}
