//go:build !amd64 || purego

package expfam

// useAVX2 is false off amd64 (and with the purego build tag): Phi and Eta
// run their scalar loops.
const useAVX2 = false

func (f *RFF) phiVector(s, a, out []float64) bool { return false }

func dot4Rows(w, y, eta []float64) bool { return false }
