//go:build !amd64 || purego || amd64.v3

package expfam

// useAVX2 is false off amd64, with the purego build tag, and with
// GOAMD64=v3 or later: Phi and Eta run their scalar loops. Under v3 the
// compiler may fuse the scalar loops' x·y + z into one FMA (the Go spec
// allows it), so they no longer round as the vector kernels (separate
// multiplies and adds) do, nor as a default (v1) build does.
const useAVX2 = false

func (f *RFF) phiVector(s, a, out []float64) bool { return false }

func (f *RFF) phiBulkVector(s, a, out []float64) bool { return false }

func (f *RFF) etaVector(s, a, w, phi, eta []float64) bool { return false }

func dot4Rows(w, y, eta []float64) bool { return false }

// PhiBatch8 is the AVX-512 kernel's batch of eight states: without it the
// caller computes Phi of each state.
func (f *RFF) PhiBatch8(xt, out []float64) bool { return false }

// PhiBatch16 is two groups of PhiBatch8: without it the caller computes
// Phi of each state.
func (f *RFF) PhiBatch16(xt0, xt1, out0, out1 []float64) bool { return false }

// HasPhiBatch8 is false: no batch kernel in this build.
func HasPhiBatch8() bool { return false }
