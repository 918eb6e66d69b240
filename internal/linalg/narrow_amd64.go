//go:build !purego

package linalg

import "github.com/smrl-dev/smrl/internal/simd"

// useNarrow selects the AVX-512 kernels of the narrow solves (narrow.go)
// and of the condition estimate's transposed solve: the CPU has AVX-512F
// (simd.AVX512, off with SMRL_NOSIMD). The narrow*Go twins give the same
// bits.
var useNarrow = simd.AVX512

//go:noescape
func narrowAcc4AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64, mask uint64)

//go:noescape
func narrowAxpy4AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64, mask uint64)

//go:noescape
func narrowAxpy1AVX512(k int, coef *float64, ls int, x *float64, ldx int, c *float64, mask uint64)

//go:noescape
func subScaledAVX512(n int, x, a *float64, s float64)

//go:noescape
func dotSeqAVX(n int, x, a *float64) float64
