//go:build !amd64 || purego || amd64.v3

package vmath

// useSincosAVX2 is false off amd64, with the purego build tag, and with
// GOAMD64=v3 or later (where the compiler may fuse math's arithmetic into
// FMAs): Sins and Sincoss call math for each element.
const useSincosAVX2 = false

func sincosVector(sin, cos, x []float64) (n int) { return 0 }
