package vmath

import "math"

// Exps sets dst[i] = math.Exp(x[i]) for i < len(dst), to the bit; x is at
// least as long as dst. dst may be x itself, but must not otherwise
// overlap it.
//
// On amd64, math.Exp is Go's assembly (exp_amd64.s: a reduction by ln 2
// and a Taylor polynomial, with fused multiply-adds on CPUs with AVX and
// FMA); on such CPUs with AVX2, expVector runs that sequence on four
// elements at a time.
func Exps(dst, x []float64) {
	x = x[:len(dst)]
	for i := expVector(dst, x); i < len(dst); i++ {
		dst[i] = math.Exp(x[i])
	}
}
