//go:build !purego

package linalg

import "github.com/smrl-dev/smrl/internal/simd"

// useNarrow selects the AVX-512 kernels of the narrow solves (narrow.go)
// and of the condition estimate's transposed solve: the CPU has AVX-512F
// (simd.AVX512, off with SMRL_NOSIMD). The narrow*Go twins give the same
// bits.
var useNarrow = simd.AVX512

//go:noescape
func narrowAcc4C1AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64, mask uint64)

//go:noescape
func narrowAxpy4C1AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64, mask uint64)

//go:noescape
func narrowAxpy1C1AVX512(k int, coef *float64, ls int, x *float64, ldx int, c *float64, mask uint64)

//go:noescape
func narrowAcc4C2AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64, mask uint64)

//go:noescape
func narrowAxpy4C2AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64, mask uint64)

//go:noescape
func narrowAxpy1C2AVX512(k int, coef *float64, ls int, x *float64, ldx int, c *float64, mask uint64)

//go:noescape
func narrowAcc4C3AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64, mask uint64)

//go:noescape
func narrowAxpy4C3AVX512(k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64, mask uint64)

//go:noescape
func narrowAxpy1C3AVX512(k int, coef *float64, ls int, x *float64, ldx int, c *float64, mask uint64)

// The narrow kernels for n ≤ 8, 16 or 24 columns: one, two or three
// registers of lanes (scripts/gen-narrow-kernel.py). The calls are direct,
// as panel8x2's.

func narrowAcc4AVX512(n, k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64) {
	switch m := narrowMask(n); {
	case n <= 8:
		narrowAcc4C1AVX512(k, coef, ls, x, ldx, out, m)
	case n <= 16:
		narrowAcc4C2AVX512(k, coef, ls, x, ldx, out, m)
	default:
		narrowAcc4C3AVX512(k, coef, ls, x, ldx, out, m)
	}
}

func narrowAxpy4AVX512(n, k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64) {
	switch m := narrowMask(n); {
	case n <= 8:
		narrowAxpy4C1AVX512(k, coef, ls, x, ldx, c, m)
	case n <= 16:
		narrowAxpy4C2AVX512(k, coef, ls, x, ldx, c, m)
	default:
		narrowAxpy4C3AVX512(k, coef, ls, x, ldx, c, m)
	}
}

func narrowAxpy1AVX512(n, k int, coef *float64, ls int, x *float64, ldx int, c *float64) {
	switch m := narrowMask(n); {
	case n <= 8:
		narrowAxpy1C1AVX512(k, coef, ls, x, ldx, c, m)
	case n <= 16:
		narrowAxpy1C2AVX512(k, coef, ls, x, ldx, c, m)
	default:
		narrowAxpy1C3AVX512(k, coef, ls, x, ldx, c, m)
	}
}

//go:noescape
func subScaledAVX512(n int, x, a *float64, s float64)

// narrowMask has bit j set for the columns j < n.
func narrowMask(n int) uint64 { return 1<<uint(n) - 1 }
