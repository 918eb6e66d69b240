package simd

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// Broadcast lays each constant into four lanes in order, and refuses a
// count that does not match the slots.
func TestBroadcast(t *testing.T) {
	var c [3][4]uint64
	Broadcast(c[:], Float64s(1, -0.5, math.Inf(1))...)
	for i, v := range []float64{1, -0.5, math.Inf(1)} {
		for lane, b := range c[i] {
			if b != math.Float64bits(v) {
				t.Fatalf("slot %d lane %d: %#x, want the bits of %v", i, lane, b, v)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Broadcast of two constants into three slots did not panic")
		}
	}()
	Broadcast(c[:], 1, 2)
}

// SMRL_NOSIMD=1 turns AVX2 off.
func TestNoSIMDSwitch(t *testing.T) {
	if os.Getenv("SMRL_NOSIMD") != "" && AVX2 {
		t.Fatal("SMRL_NOSIMD is set but AVX2 is on")
	}
}

// GODEBUG=cpu.avx512f=off (golang.org/x/sys/cpu's option) hides AVX-512F
// from the kernels, so that .ci/run tests the AVX2 paths of a CPU without
// it on a machine that has it.
func TestNoAVX512Switch(t *testing.T) {
	if !slices.Contains(strings.Split(os.Getenv("GODEBUG"), ","), "cpu.avx512f=off") {
		t.Skip("GODEBUG does not turn AVX-512F off (.ci/run runs this test with it)")
	}
	if AVX512 {
		t.Fatal("GODEBUG has cpu.avx512f=off but AVX512 is on")
	}
}
