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

// cosMaxArg bounds the arguments Cos reduces itself: below it
// |y| < 2^49, well inside the 2^51 up to which roundMagic rounds exactly.
// cosMaxBits is its bit pattern: |x| < cosMaxArg exactly when the bits of
// |x| are below it (which also excludes NaN and ±Inf), an integer compare
// that is cheaper in the loop of scaleCos than a floating-point one.
const (
	cosMaxArg  = 1 << 50
	cosMaxBits = 0x4310000000000000
)

// cosInRange reports whether |x| < cosMaxArg.
func cosInRange(x float64) bool { return math.Float64bits(x)&^(1<<63) < cosMaxBits }

// Cos returns cos x: with y = x/π + 1/2 = n + f, n the nearest integer and
// |f| ≤ 1/2, cos x = sin(πy) = (−1)^n sin(πf), without branches for
// |x| < 2^50, and math.Cos(x) beyond (where the rounding trick fails:
// Cos(1e17) would be 8324.8) and for NaN and ±Inf. The error is at most about
// 5e-16·(1 + |x|) (the rounding of x/π grows with |x|). It is about three
// times as fast as math.Cos, which matters for random Fourier features,
// where it is most of the work (see scaleCos).
func Cos(x float64) float64 {
	if !cosInRange(x) {
		return math.Cos(x)
	}
	return cosHalfTurns(x*(1/math.Pi) + 0.5)
}

// scaleCos sets xs[j] = scale·Cos(xs[j]) for every j: the loop of RFF.Phi,
// with the range check and the reduction inlined (a call of Cos per element
// makes that loop about 10% slower, because the fallback gives Cos a stack
// frame).
func scaleCos(xs []float64, scale float64) {
	for j, x := range xs {
		if cosInRange(x) {
			xs[j] = scale * cosHalfTurns(x*(1/math.Pi)+0.5)
		} else {
			xs[j] = scale * math.Cos(x)
		}
	}
}

// cosHalfTurns returns cos x = sin(πy) from y = x/π + 1/2, |y| < 2^51. It
// takes y rather than x to stay within the compiler's inlining budget (its
// cost is 79 of 80).
func cosHalfTurns(y float64) float64 {
	t := y + roundMagic
	f := y - (t - roundMagic)
	u := f * f
	s := f * (((((((cosP7*u+cosP6)*u+cosP5)*u+cosP4)*u+cosP3)*u+cosP2)*u+cosP1)*u + cosP0)
	// Flip the sign bit when n is odd.
	return math.Float64frombits(math.Float64bits(s) ^ math.Float64bits(t)<<63)
}

// cosFMA is Cos in fused multiply-adds: y = fma(x, 1/π, 1/2) and P(u) by
// Horner steps p = fma(p, u, P_k), each rounded once (math.FMA, exact on
// every CPU), and math.Cos outside the reduction range, as Cos. The
// arithmetic of RFF.phiFMA and of the kernels of model.features.fma; its
// error is Cos's bound or below.
func cosFMA(x float64) float64 {
	if !cosInRange(x) {
		return math.Cos(x)
	}
	return cosHalfTurnsFMA(math.FMA(x, 1/math.Pi, 0.5))
}

// scaleCosFMA sets xs[j] = scale·cosFMA(xs[j]) for every j: scaleCos in
// fused multiply-adds.
func scaleCosFMA(xs []float64, scale float64) {
	for j, x := range xs {
		xs[j] = scale * cosFMA(x)
	}
}

// cosHalfTurnsFMA is cosHalfTurns with its Horner steps fused: from
// p = fma(P7, u, P6) to fma(p, u, P0). The reduction (t, f) has no
// product, and f·f, f·P(u) are not added to, so nothing else may fuse.
func cosHalfTurnsFMA(y float64) float64 {
	t := y + roundMagic
	f := y - (t - roundMagic)
	u := f * f
	p := math.FMA(cosP7, u, cosP6)
	p = math.FMA(p, u, cosP5)
	p = math.FMA(p, u, cosP4)
	p = math.FMA(p, u, cosP3)
	p = math.FMA(p, u, cosP2)
	p = math.FMA(p, u, cosP1)
	p = math.FMA(p, u, cosP0)
	s := f * p
	return math.Float64frombits(math.Float64bits(s) ^ math.Float64bits(t)<<63)
}
