//go:build !amd64 || purego

package linalg

// useNarrow is false without the amd64 assembly: the narrow*Go twins run.
var useNarrow = false

func narrowAcc4AVX512(n, k int, coef *[4]*float64, ls int, x *float64, ldx int, out *[96]float64) {
	panic("linalg: narrowAcc4AVX512 without its assembly")
}

func narrowAxpy4AVX512(n, k int, coef *[4]*float64, ls int, x *float64, ldx int, c *[4]*float64) {
	panic("linalg: narrowAxpy4AVX512 without its assembly")
}

func narrowAxpy1AVX512(n, k int, coef *float64, ls int, x *float64, ldx int, c *float64) {
	panic("linalg: narrowAxpy1AVX512 without its assembly")
}

func subScaledAVX512(n int, x, a *float64, s float64) {
	panic("linalg: subScaledAVX512 without its assembly")
}
