//go:build !amd64 || purego

package vmath

// useExpAVX2 is false off amd64 and with the purego build tag: Exps calls
// math.Exp for each element.
const useExpAVX2 = false

func expVector(dst, x []float64) (n int) { return 0 }
