package env

import "math"

// atan2 is math.Atan2(y, x) to the bit, with the arithmetic of Go's math
// package (atan2.go and atan.go; Copyright 2009 The Go Authors,
// BSD-style licence) written out in one function. The pendulum's step and
// reward and the Acrobot's step take the angle of every simulated state,
// and math.Atan2 reaches its polynomial through three calls that the
// compiler does not inline. Zeros, infinities and NaN go to math.Atan2.
// TestAtan2IsMathAtan2 checks it against math.Atan2.
func atan2(y, x float64) float64 {
	if y == 0 || x == 0 || math.IsInf(y, 0) || math.IsInf(x, 0) || y != y || x != x {
		return math.Atan2(y, x)
	}
	// q = Atan(y/x) = ±satan(|y/x|), ±0 for a quotient that underflows.
	r := y / x
	q := r
	if r != 0 {
		a := math.Abs(r)
		switch {
		case a <= 0.66:
			q = xatan(a)
		case a > tan3pio8:
			q = math.Pi/2 - xatan(1/a) + morebits
		default:
			q = math.Pi/4 + xatan((a-1)/(a+1)) + 0.5*morebits
		}
		if r < 0 {
			q = -q
		}
	}
	if x < 0 {
		if q <= 0 {
			return q + math.Pi
		}
		return q - math.Pi
	}
	return q
}

// xatan is math's xatan: atan x for x in [0, 0.66], a rational function of
// x² (Cephes).
func xatan(x float64) float64 {
	z := x * x
	z = z * ((((xatanP0*z+xatanP1)*z+xatanP2)*z+xatanP3)*z + xatanP4) /
		(((((z+xatanQ0)*z+xatanQ1)*z+xatanQ2)*z+xatanQ3)*z + xatanQ4)
	return x*z + x
}

// The constants of atan2 and xatan (math's atan.go).
const (
	morebits = 6.123233995736765886130e-17 // π/2 = PIO2 + morebits
	tan3pio8 = 2.41421356237309504880      // tan(3π/8)

	xatanP0 = -8.750608600031904122785e-01
	xatanP1 = -1.615753718733365076637e+01
	xatanP2 = -7.500855792314704667340e+01
	xatanP3 = -1.228866684490136173410e+02
	xatanP4 = -6.485021904942025371773e+01
	xatanQ0 = +2.485846490142306297962e+01
	xatanQ1 = +1.650270098316988542046e+02
	xatanQ2 = +4.328810604912902668951e+02
	xatanQ3 = +4.853903996359136964868e+02
	xatanQ4 = +1.945506571482613964425e+02
)

// atan2s sets out[i] = atan2(y[i], x[i]) for i < len(out) (y and x at
// least as long), four at a time in vector registers where the CPU has
// AVX2 (atan2_amd64.s: the same operations in each lane, so the same
// bits, without atan2's branches, whose outcome follows the signs and
// ratios of the inputs and is mispredicted often). A rollout's rewards
// take one angle per state.
func atan2s(y, x, out []float64) {
	n4, special := atan2Vector(y, x, out)
	if special {
		for i := range n4 {
			// The kernel's lanes hold no meaning for these inputs.
			if !ordinary(y[i]) || !ordinary(x[i]) {
				out[i] = atan2(y[i], x[i])
			}
		}
	}
	for i := n4; i < len(out); i++ {
		out[i] = atan2(y[i], x[i])
	}
}

// ordinary reports whether v is finite and not zero: atan2 takes its
// general path when both inputs are.
func ordinary(v float64) bool {
	b := math.Float64bits(v) &^ (1 << 63)
	return b != 0 && b < 0x7ff0000000000000
}
