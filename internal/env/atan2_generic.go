//go:build !amd64 || purego || amd64.v3

package env

// useAVX2 is false off amd64, with the purego build tag, and with
// GOAMD64=v3 or later (where the compiler may fuse atan2's x·z + x into an
// FMA): atan2s runs its scalar loop.
const useAVX2 = false

func atan2Vector(y, x, out []float64) (n4 int, special bool) { return 0, false }
