package expfam

import "math"

// Coefficients of sin(πf) ≈ f·P(f²) on |f| ≤ 1/2, P of degree 7: a
// Chebyshev fit (mpmath.chebyfit, 40 digits) of sin(π√u)/√u on u ∈ [0, 1/4]
// with relative error 3.6e-16.
const (
	cosP0 = 3.1415926535897928787
	cosP1 = -5.1677127800497858227
	cosP2 = 2.5501640398618676297
	cosP3 = -0.59926452882522400508
	cosP4 = 0.082145878816310426917
	cosP5 = -0.0073703643265304156755
	cosP6 = 0.00046598701580433779334
	cosP7 = -0.000021133627352052970404
)

// roundMagic is 1.5·2^52: for |y| < 2^51, (y + roundMagic) − roundMagic is
// y rounded to the nearest integer, whose parity is the last bit of the sum.
const roundMagic = 6755399441055744.0

// Cos returns cos x, without branches: with y = x/π + 1/2 = n + f, n the
// nearest integer and |f| ≤ 1/2, cos x = sin(πy) = (−1)^n sin(πf). The
// error is at most about 5e-16·(1 + |x|) (the rounding of x/π grows with
// |x|); it needs |x| < 2^50. It is about three times as fast as math.Cos,
// which matters for random Fourier features, where it is most of the work.
func Cos(x float64) float64 {
	y := x*(1/math.Pi) + 0.5
	t := y + roundMagic
	f := y - (t - roundMagic)
	u := f * f
	s := f * (((((((cosP7*u+cosP6)*u+cosP5)*u+cosP4)*u+cosP3)*u+cosP2)*u+cosP1)*u + cosP0)
	// Flip the sign bit when n is odd.
	return math.Float64frombits(math.Float64bits(s) ^ math.Float64bits(t)<<63)
}
