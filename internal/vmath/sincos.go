package vmath

import "math"

// Sins sets dst[i] = math.Sin(x[i]) for i < len(dst), to the bit; x is at
// least as long as dst. dst may be x itself, but must not otherwise
// overlap it.
//
// math.Sin and math.Sincos are Go code (sin.go, sincos.go): a reduction by
// π/4 in three parts (Cody–Waite) and the Cephes polynomials of sin and
// cos. On amd64 with AVX2, sincosVector runs that arithmetic on four
// elements at a time; zeros, infinities, NaN and |x| ≥ 2²⁹ (math's
// Payne–Hanek reduction) go to math.
func Sins(dst, x []float64) {
	x = x[:len(dst)]
	for i := sincosVector(dst, nil, x); i < len(dst); i++ {
		dst[i] = math.Sin(x[i])
	}
}

// Sincoss sets sin[i], cos[i] = math.Sincos(x[i]) for i < len(sin), to
// the bit; cos and x are at least as long as sin. sin or cos may be x
// itself, but must not otherwise overlap x or each other.
func Sincoss(sin, cos, x []float64) {
	x, cos = x[:len(sin)], cos[:len(sin)]
	for i := sincosVector(sin, cos, x); i < len(sin); i++ {
		sin[i], cos[i] = math.Sincos(x[i])
	}
}

// The constants of math's sin and Sincos: π/4 in three parts, 4/π (the
// constant expression 4 / Pi rounded once, as math's), and the
// coefficients of the sin and cos polynomials (math's _sin and _cos).
const (
	pi4A       = 7.85398125648498535156e-1
	pi4B       = 3.77489470793079817668e-8
	pi4C       = 2.69515142907905952645e-15
	fourOverPi = 4 / math.Pi
)

var (
	sinCoef = [6]float64{
		1.58962301576546568060e-10,
		-2.50507477628578072866e-8,
		2.75573136213857245213e-6,
		-1.98412698295895385996e-4,
		8.33333333332211858878e-3,
		-1.66666666666666307295e-1,
	}
	cosCoef = [6]float64{
		-1.13585365213876817300e-11,
		2.08757008419747316778e-9,
		-2.75573141792967388112e-7,
		2.48015872888517045348e-5,
		-1.38888888888730564116e-3,
		4.16666666666665929218e-2,
	}
)
