// Package simd decides, once at start-up, whether smrl's vector kernels
// run: the AVX2 assembly of random Fourier features and η = Wφ
// (internal/expfam), of the pendulum's angles (internal/env) and of exp
// (internal/vmath). Each kernel gives the bits of its package's scalar
// loop, so the decision changes speed, never results.
package simd

import (
	"fmt"
	"math"
	"os"

	"golang.org/x/sys/cpu"
)

// AVX2 reports that the CPU and the OS support AVX2 and that the
// environment variable SMRL_NOSIMD is unset or empty (SMRL_NOSIMD=1 forces
// the scalar loops, as CI does to test them on their own). A package's
// kernels also need its build to have them: amd64, without the purego tag,
// below GOAMD64=v3.
var AVX2 = cpu.X86.HasAVX2 && os.Getenv("SMRL_NOSIMD") == ""

// AVX512 reports that AVX2 holds and that the CPU and the OS support
// AVX-512F (the 512-bit registers): the kernels that have an AVX-512 form
// (random Fourier features, the matrix product's micro-kernel) use it.
// Their lanes do the AVX2 kernels' operations, so it changes speed, never
// results; SMRL_NOSIMD turns it off with AVX2, and GODEBUG=cpu.avx512f=off
// alone (golang.org/x/sys/cpu's option), as on a CPU without it.
var AVX512 = AVX2 && cpu.X86.HasAVX512F

// FMA reports that AVX2 holds and that the CPU has FMA3 (fused
// multiply-add on the 256-bit registers; AVX2 implies AVX): the kernels
// written in fused multiply-adds (the matrix product's tiles, exp, the
// features of model.features.fma without AVX-512) need both.
var FMA = AVX2 && cpu.X86.HasFMA

// Broadcast sets dst[i] to four copies of bits[i], the layout in which the
// kernels load a constant into all four lanes with one 256-bit load. It
// panics unless len(dst) == len(bits): the constants' offsets in the
// assembly follow their order.
func Broadcast(dst [][4]uint64, bits ...uint64) {
	if len(dst) != len(bits) {
		panic(fmt.Sprintf("simd.Broadcast: %d constants for %d slots", len(bits), len(dst)))
	}
	for i, b := range bits {
		dst[i] = [4]uint64{b, b, b, b}
	}
}

// Float64s returns the bit patterns of vals (math.Float64bits), for
// Broadcast.
func Float64s(vals ...float64) []uint64 {
	bits := make([]uint64, len(vals))
	for i, v := range vals {
		bits[i] = math.Float64bits(v)
	}
	return bits
}
