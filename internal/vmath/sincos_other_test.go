//go:build !amd64 || purego || amd64.v3

package vmath

// sincosAVX2 is never called where the kernel is not built
// (useSincosAVX2 is false); the tests name it.
func sincosAVX2(c *sincosConsts, x, sin, cos *float64, n4 int) (done int) {
	panic("no AVX2 kernel in this build")
}

type sincosConsts [25][4]uint64

var sincosC sincosConsts
