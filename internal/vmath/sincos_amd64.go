//go:build !purego && !amd64.v3

package vmath

import (
	"math"

	"github.com/smrl-dev/smrl/internal/simd"
)

// useSincosAVX2 selects sincosAVX2 (simd.AVX2). Not with GOAMD64=v3 or
// later, where the compiler may fuse math's z·zz·P + z into an FMA.
var useSincosAVX2 = simd.AVX2

// sincosConsts are the constants of sincosAVX2, each four times (one
// 256-bit load), in the order of the offsets in sincos_amd64.s.
type sincosConsts [25][4]uint64

var sincosC = func() (c sincosConsts) {
	bits := []uint64{1<<63 - 1, 1 << 63, // |·|, sign
		0x0000000100000001, 0xfffffffefffffffe, // the int32 lanes 1 and ^1
		2, 4} // the bits of the octant j that swap and negate
	bits = append(bits, simd.Float64s(1<<29, fourOverPi, pi4A, pi4B, pi4C, 0.5, 1)...)
	bits = append(bits, simd.Float64s(sinCoef[:]...)...)
	bits = append(bits, simd.Float64s(cosCoef[:]...)...)
	simd.Broadcast(c[:], bits...)
	return c
}()

// sincosAVX2 sets sin[i] = math.Sin(x[i]) and, unless cos is nil, cos[i]
// = math.Sincos(x[i])'s cosine, by math's arithmetic in each lane, four at
// a time, for i < done: done = n4 (a multiple of 4), or the index of the
// first group of four with an element that is zero, infinite, NaN or at
// least 2²⁹ in magnitude (that group is left unwritten).
//
//go:noescape
func sincosAVX2(c *sincosConsts, x, sin, cos *float64, n4 int) (done int)

// sincosVector is the vector part of Sins (cos nil) and Sincoss: it sets
// sin[i] (and cos[i]) for i < n = len(sin) rounded down to a multiple of
// 4, and returns n (0 when the kernel is off). A group of four the kernel
// stops at gets math's functions element by element.
func sincosVector(sin, cos, x []float64) (n int) {
	n = len(sin) &^ 3
	if !useSincosAVX2 || n == 0 {
		return 0
	}
	for i := 0; i < n; {
		var cp *float64
		if cos != nil {
			cp = &cos[i]
		}
		i += sincosAVX2(&sincosC, &x[i], &sin[i], cp, n-i)
		if i < n {
			for j := i; j < i+4; j++ {
				if cos != nil {
					sin[j], cos[j] = math.Sincos(x[j])
				} else {
					sin[j] = math.Sin(x[j])
				}
			}
			i += 4
		}
	}
	return n
}
