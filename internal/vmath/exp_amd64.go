//go:build !purego

package vmath

import (
	"math"

	"github.com/smrl-dev/smrl/internal/simd"
)

// useExpAVX2 selects expAVX2. math.Exp takes its fused multiply-add path
// exactly when the CPU has AVX and FMA (math's useFMA), and expAVX2 is that
// path, so the kernel runs only then (simd.FMA: AVX2, so AVX, and FMA).
var useExpAVX2 = simd.FMA

// expConsts are the constants of expAVX2, each four times (one 256-bit
// load), in the order of the offsets in exp_amd64.s.
type expConsts [16][4]uint64

var expC = func() (c expConsts) {
	simd.Broadcast(c[:], append(simd.Float64s(
		// math's exp_amd64.s: log₂e, ln 2 in two parts, the Taylor
		// coefficients 1/8! … 1/3!, 1/2, 1, 2 and the reduction 1/16.
		1.4426950408889634073599246810018920,
		0.69314718055966295651160180568695068359375,
		0.28235290563031577122588448175013436025525412068e-12,
		2.4801587301587301587e-5,
		1.9841269841269841270e-4,
		1.3888888888888888889e-3,
		8.3333333333333333333e-3,
		4.1666666666666666667e-2,
		1.6666666666666666667e-1,
		0.5, 1.0, 2.0, 0.0625,
		// The exponents of math's common path.
		-1022, 1023,
	), 0x3ff)...) // the exponent bias
	return c
}()

// expAVX2 sets out[i] = math.Exp(x[i]) by math's arithmetic in each lane,
// four at a time, for i < done: done = n4 (a multiple of 4), or the index
// of the first group of four with an element off math's common path (that
// group is left unwritten).
//
//go:noescape
func expAVX2(c *expConsts, x, out *float64, n4 int) (done int)

// expVector is Exps's vector part: it sets dst[i] for i < n = len(dst)
// rounded down to a multiple of 4, and returns n (0 when the kernel is
// off). A group of four the kernel stops at gets math.Exp element by
// element, and the kernel goes on after it.
func expVector(dst, x []float64) (n int) {
	n = len(dst) &^ 3
	if !useExpAVX2 || n == 0 {
		return 0
	}
	for i := 0; i < n; {
		i += expAVX2(&expC, &x[i], &dst[i], n-i)
		if i < n {
			for j := i; j < i+4; j++ {
				dst[j] = math.Exp(x[j])
			}
			i += 4
		}
	}
	return n
}
