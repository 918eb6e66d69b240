//go:build !purego

package linalg

import (
	"github.com/smrl-dev/smrl/internal/simd"
)

// useFMA selects the AVX2/FMA micro-kernel (kern6x8FMA), decided once:
// the CPU has AVX2 and FMA and SMRL_NOSIMD is unset. kern6x8Go gives the
// same bits (math.FMA in the same order).
var useFMA = simd.FMA

//go:noescape
func kern6x8FMA(k int, a, b, c *float64, ldc int, alpha float64)

// kern6x8 adds alpha·Σ_p a_p b_pᵀ to the 6×8 tile at c (row stride ldc),
// a and b packed panels of k steps (see pack).
func kern6x8(k int, a, b, c []float64, ldc int, alpha float64) {
	if useFMA && k > 0 {
		_ = a[mr*k-1] // the assembly reads what the slices hold
		_ = b[nr*k-1]
		_ = c[(mr-1)*ldc+nr-1]
		kern6x8FMA(k, &a[0], &b[0], &c[0], ldc, alpha)
		return
	}
	kern6x8Go(k, a, b, c, ldc, alpha)
}

// usePanel512 selects panel8AVX512 for MulABtPanel8: the CPU has AVX-512F
// (simd.AVX512, off with SMRL_NOSIMD). panel8Go gives the same bits.
var usePanel512 = simd.AVX512

// panel8AVX512 sets tile[8r+j] = Σ_p rows[r][p]·bp[8p+j] for r, j < 8 in
// panel8Go's order, the eight j in the lanes of one register.
//
//go:noescape
func panel8AVX512(rows *[8]*float64, k int, bp *float64, tile *[64]float64)

// panel8x2R1AVX512 … panel8x2R9AVX512 are panel8AVX512 for two panels of
// B that share the rows of A, on the first 1 … 9 rows of rows:
// tile[72q+8r+j] += Σ_p rows[r][p]·bpq[8p+j], tile zero on entry
// (panel_amd64.s).
//
//go:noescape
func panel8x2R1AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R2AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R3AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R4AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R5AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R6AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R7AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R8AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

//go:noescape
func panel8x2R9AVX512(rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64)

// panel8x2 runs the kernel of n rows (1–9). The calls are direct: through
// a table of functions the compiler cannot see that the kernels keep no
// pointer, and the caller's row pointers and tile move to the heap, six
// allocations a call.
func panel8x2(n int, rows *[9]*float64, k int, bp0, bp1 *float64, tile *[144]float64) {
	switch n {
	case 1:
		panel8x2R1AVX512(rows, k, bp0, bp1, tile)
	case 2:
		panel8x2R2AVX512(rows, k, bp0, bp1, tile)
	case 3:
		panel8x2R3AVX512(rows, k, bp0, bp1, tile)
	case 4:
		panel8x2R4AVX512(rows, k, bp0, bp1, tile)
	case 5:
		panel8x2R5AVX512(rows, k, bp0, bp1, tile)
	case 6:
		panel8x2R6AVX512(rows, k, bp0, bp1, tile)
	case 7:
		panel8x2R7AVX512(rows, k, bp0, bp1, tile)
	case 8:
		panel8x2R8AVX512(rows, k, bp0, bp1, tile)
	default:
		panel8x2R9AVX512(rows, k, bp0, bp1, tile)
	}
}

// useWide selects kern6x16AVX512 for pairs of full tiles (macro): the CPU
// has AVX-512F as well (simd.AVX512). Each lane does kern6x8FMA's
// operations, so the bits are those of two kern6x8 calls.
var useWide = useFMA && simd.AVX512

//go:noescape
func kern6x16AVX512(k int, a, b0, b1, c *float64, ldc int, alpha float64)

// kern6x16 is kern6x8 on the 6×16 tile at c: columns 0–7 from the packed
// panel b0, 8–15 from b1, with the same bits.
func kern6x16(k int, a, b0, b1, c []float64, ldc int, alpha float64) {
	if !useWide || k == 0 {
		kern6x8(k, a, b0, c, ldc, alpha)
		kern6x8(k, a, b1, c[nr:], ldc, alpha)
		return
	}
	_ = a[mr*k-1]
	_, _ = b0[nr*k-1], b1[nr*k-1]
	_ = c[(mr-1)*ldc+2*nr-1]
	kern6x16AVX512(k, &a[0], &b0[0], &b1[0], &c[0], ldc, alpha)
}

// useWide3 selects kern6x24AVX512 for triples of full tiles (macro). A
// 6×24 tile holds 18 accumulators against the 6×16's 12, three B loads
// and six broadcasts a step for 18 fused multiply-adds: 87 GFLOP/s on
// data in L1 against 58 (the machine's peak: 89–91). Each lane does
// kern6x8FMA's operations, so the bits are those of three kern6x8 calls.
var useWide3 = useWide

//go:noescape
func kern6x24AVX512(k int, a, b0, b1, b2, c *float64, ldc int, alpha float64)

// kern6x24 is kern6x8 on the 6×24 tile at c: columns 0–7 from the packed
// panel b0, 8–15 from b1, 16–23 from b2, with the same bits.
func kern6x24(k int, a, b0, b1, b2, c []float64, ldc int, alpha float64) {
	if !useWide || !useWide3 || k == 0 {
		kern6x16(k, a, b0, b1, c, ldc, alpha)
		kern6x8(k, a, b2, c[2*nr:], ldc, alpha)
		return
	}
	_ = a[mr*k-1]
	_, _, _ = b0[nr*k-1], b1[nr*k-1], b2[nr*k-1]
	_ = c[(mr-1)*ldc+3*nr-1]
	kern6x24AVX512(k, &a[0], &b0[0], &b1[0], &b2[0], &c[0], ldc, alpha)
}
