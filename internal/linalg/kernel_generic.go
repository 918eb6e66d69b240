//go:build !amd64 || purego

package linalg

// useFMA is false without the amd64 assembly: kern6x8Go runs.
const useFMA = false

func kern6x8(k int, a, b, c []float64, ldc int, alpha float64) {
	kern6x8Go(k, a, b, c, ldc, alpha)
}

// usePanel512 is false without the amd64 assembly: panel8Go runs.
var usePanel512 = false

func panel8AVX512(rows *[8]*float64, k int, bp *float64, tile *[64]float64) {
	panic("linalg: panel8AVX512 without its assembly")
}

// useWide is false without the amd64 assembly: macro runs kern6x8 alone.
var useWide = false

func kern6x16(k int, a, b0, b1, c []float64, ldc int, alpha float64) {
	kern6x8(k, a, b0, c, ldc, alpha)
	kern6x8(k, a, b1, c[nr:], ldc, alpha)
}

// useWide3 is false without the amd64 assembly: macro runs kern6x8 alone.
var useWide3 = false

func kern6x24(k int, a, b0, b1, b2, c []float64, ldc int, alpha float64) {
	kern6x8(k, a, b0, c, ldc, alpha)
	kern6x8(k, a, b1, c[nr:], ldc, alpha)
	kern6x8(k, a, b2, c[2*nr:], ldc, alpha)
}

func panel8x2(_ int, _ *[9]*float64, _ int, _, _ *float64, _ *[144]float64) {
	panic("linalg: panel8x2 without its assembly")
}
