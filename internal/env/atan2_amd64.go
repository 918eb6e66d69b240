//go:build !purego && !amd64.v3

package env

import (
	"math"

	"github.com/smrl-dev/smrl/internal/simd"
)

// useAVX2 selects the AVX2 kernel of atan2s, decided once at start-up
// (simd.AVX2: the CPU supports AVX2 and SMRL_NOSIMD is unset); the scalar
// loop gives the same bits.
var useAVX2 = simd.AVX2

// atan2Consts are the constants of atan2AVX2, each four times (one 256-bit
// load), in the order of the offsets in atan2_amd64.s.
type atan2Consts [20][4]uint64

var atan2C = func() (c atan2Consts) {
	masks := []uint64{1<<63 - 1, 1 << 63} // |·|, sign
	simd.Broadcast(c[:], append(masks, simd.Float64s(
		1, 0.66, tan3pio8,
		xatanP0, xatanP1, xatanP2, xatanP3, xatanP4,
		xatanQ0, xatanQ1, xatanQ2, xatanQ3, xatanQ4,
		math.Pi/2, math.Pi/4, morebits, 0.5*morebits,
		math.Inf(1), // its bits bound those of finite magnitudes
	)...)...)
	return c
}()

// atan2AVX2 sets out[i] = atan2(y[i], x[i]) for i < n4 (a multiple of 4),
// by atan2's arithmetic in each lane, and reports whether some y[i] or
// x[i] is zero, infinite or NaN: such lanes get a meaningless value.
//
//go:noescape
func atan2AVX2(c *atan2Consts, y, x, out *float64, n4 int) (special bool)

// atan2Vector is atan2s's vector part: it sets out[i] for i < n4 = len(out)
// rounded down to a multiple of 4 and returns n4 (0 when the kernel is off),
// and whether an input among them is zero, infinite or NaN (atan2s then
// computes those elements again).
func atan2Vector(y, x, out []float64) (n4 int, special bool) {
	n4 = len(out) &^ 3
	if !useAVX2 || n4 == 0 {
		return 0, false
	}
	return n4, atan2AVX2(&atan2C, &y[:n4][0], &x[:n4][0], &out[0], n4)
}
