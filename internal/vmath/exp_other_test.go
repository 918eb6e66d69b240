//go:build !amd64 || purego

package vmath

// expAVX2 is never called where the kernel is not built (useExpAVX2 is
// false); the tests name it.
func expAVX2(c *expConsts, x, out *float64, n4 int) (done int) { panic("no AVX2 kernel in this build") }

type expConsts [16][4]uint64

var expC expConsts
