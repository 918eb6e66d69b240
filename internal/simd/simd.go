// Package simd decides, once at start-up, whether smrl's vector kernels
// run: the AVX2 assembly of random Fourier features and η = Wφ
// (internal/expfam) and of the pendulum's angles (internal/env). Each
// kernel gives the bits of its package's scalar loop, so the decision
// changes speed, never results.
package simd

import (
	"os"

	"golang.org/x/sys/cpu"
)

// AVX2 reports that the CPU and the OS support AVX2 and that the
// environment variable SMRL_NOSIMD is unset or empty (SMRL_NOSIMD=1 forces
// the scalar loops, as CI does to test them on their own). A package's
// kernels also need its build to have them: amd64, without the purego tag,
// below GOAMD64=v3.
var AVX2 = cpu.X86.HasAVX2 && os.Getenv("SMRL_NOSIMD") == ""
