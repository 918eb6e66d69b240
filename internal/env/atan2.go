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
	const (
		morebits = 6.123233995736765886130e-17 // π/2 = PIO2 + morebits
		tan3pio8 = 2.41421356237309504880      // tan(3π/8)
	)
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
	const (
		P0 = -8.750608600031904122785e-01
		P1 = -1.615753718733365076637e+01
		P2 = -7.500855792314704667340e+01
		P3 = -1.228866684490136173410e+02
		P4 = -6.485021904942025371773e+01
		Q0 = +2.485846490142306297962e+01
		Q1 = +1.650270098316988542046e+02
		Q2 = +4.328810604912902668951e+02
		Q3 = +4.853903996359136964868e+02
		Q4 = +1.945506571482613964425e+02
	)
	z := x * x
	z = z * ((((P0*z+P1)*z+P2)*z+P3)*z + P4) / (((((z+Q0)*z+Q1)*z+Q2)*z+Q3)*z + Q4)
	return x*z + x
}
