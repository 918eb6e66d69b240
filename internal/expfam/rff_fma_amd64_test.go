//go:build !purego && !amd64.v3

package expfam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// rffPhiAVX2FMA, the features of RFF.FMA without AVX-512 (useAVX512 off),
// gives phiFMA's bits through phiVector and Phi after 0 to 125 blocks of
// sixteen features, 0 to 3 blocks of four and a Go tail of 0 to 3, from
// one input to forty, with and without actions, at input scales from small to the
// bound of the range it takes; an argument that may leave the range makes
// it decline, and the fused η kernel declines with FMA set. A kernel that
// rounds a product of the dot before adding it, leaves y = fma(z, 1/π,
// 1/2) unfused or drops the sign flip fails here, and so does one that
// unfuses the Horner step of P0, P1 or P2 in any chain; unfusing a later
// step changed 13 of 2·10⁶ draws of the polynomial (P3) or none (P4–P6),
// below what this test draws.
func TestRFFAVX2FMAKernelIsReference(t *testing.T) {
	requireVector(t)
	if !useAVX2FMA {
		t.Skip("no FMA3 on this CPU: Phi runs phiFMA, tested by TestPhiIsPhiFMA")
	}
	defer func(v bool) { useAVX512 = v }(useAVX512)
	useAVX512 = false
	rng := rand.New(rand.NewPCG(71, 3))
	for _, tc := range []struct{ ds, da, d int }{
		{1, 0, 4}, {1, 1, 5}, {2, 2, 10}, {2, 1, 7}, {1, 1, 16}, {3, 2, 17}, {2, 0, 20}, {3, 1, 27},
		{4, 2, 31}, {17, 6, 2000}, {17, 6, 333}, {30, 10, 47}, {5, 3, 44}, {6, 2, 60},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1.5, uint64(tc.d)+7)
		if err != nil {
			t.Fatal(err)
		}
		f.FMA = true
		in := tc.ds + tc.da
		// got has four guard entries after D: the kernel must not write
		// past phi[D−1] (a block too many would land there).
		gotPad := make([]float64, tc.d+4)
		got, want, phiOut := gotPad[:tc.d], make([]float64, tc.d), make([]float64, tc.d)
		differ := 0 // features in which the unfused arithmetic rounds otherwise
		plain := *f
		plain.FMA = false
		for _, scale := range []float64{1e-3, 1, 30, 1e4, 0} {
			for range 40 {
				var x []float64
				if scale == 0 {
					x = nearBound(f, rffInputs(rng, in, 1), 1-1e-3*rng.Float64())
				} else {
					x = rffInputs(rng, in, scale)
				}
				s, a := x[:tc.ds], x[tc.ds:]
				f.phiFMA(s, a, want)
				clear(got)
				if !f.phiVector(s, a, got) {
					t.Fatalf("%+v: rffPhiAVX2FMA declined x = %v", tc, x)
				}
				for j, w := range want {
					if math.Float64bits(got[j]) != math.Float64bits(w) {
						t.Fatalf("%+v, x = %v: feature %d = %v, phiFMA %v", tc, x, j, got[j], w)
					}
				}
				for _, v := range gotPad[tc.d:] {
					if v != 0 {
						t.Fatalf("%+v: rffPhiAVX2FMA wrote past phi[D−1]: %v", tc, gotPad[tc.d:])
					}
				}
				f.Phi(s, a, phiOut)
				for j, w := range want {
					if math.Float64bits(phiOut[j]) != math.Float64bits(w) {
						t.Fatalf("%+v, x = %v: Phi feature %d = %v, phiFMA %v", tc, x, j, phiOut[j], w)
					}
				}
				plain.phiScalar(s, a, got)
				for j, w := range want {
					if math.Float64bits(got[j]) != math.Float64bits(w) {
						differ++
					}
				}
				if f.etaVector(s, a, make([]float64, tc.d), got, make([]float64, 1)) {
					t.Fatalf("%+v: the fused η kernel took FMA features", tc)
				}
			}
		}
		if tc.d >= 16 && differ == 0 {
			t.Errorf("%+v: no feature of phiFMA differs from the unfused phiScalar: the test cannot tell the two", tc)
		}
		for _, big := range []float64{1 << 47, 1e17, math.Inf(1), math.NaN()} {
			x := rffInputs(rng, in, 1)
			x[0] = big
			s, a := x[:tc.ds], x[tc.ds:]
			ok := f.phiVector(s, a, got)
			if wantOK := f.argBound(s, a) < cosMaxArg/2; ok != wantOK {
				t.Errorf("%+v, x_0 = %v: rffPhiAVX2FMA accepted %v, want %v", tc, big, ok, wantOK)
			}
			f.phiFMA(s, a, want)
			f.Phi(s, a, phiOut)
			numeric.RequireSameBits(t, "Phi against phiFMA beyond the kernel's range", phiOut, want)
		}
	}
}

// Without FMA3 (useAVX2FMA off) and without AVX-512 the features of
// RFF.FMA have no kernel: phiVector declines and Phi runs phiFMA, while
// the default arithmetic keeps its AVX2 kernel.
func TestRFFFMAWithoutFMA3IsGoLoop(t *testing.T) {
	requireVector(t)
	defer func(v, w bool) { useAVX512, useAVX2FMA = v, w }(useAVX512, useAVX2FMA)
	useAVX512, useAVX2FMA = false, false
	f, err := NewRFF(17, 6, 333, 1.5, 9)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	got, want := make([]float64, 333), make([]float64, 333)
	for range 20 {
		x := rffInputs(rng, 23, 1)
		s, a := x[:17], x[17:]
		f.FMA = true
		if f.phiVector(s, a, got) {
			t.Fatal("phiVector took FMA features without FMA3 or AVX-512")
		}
		f.phiFMA(s, a, want)
		f.Phi(s, a, got)
		numeric.RequireSameBits(t, "Phi without FMA3 against phiFMA", got, want)
		f.FMA = false
		if !f.phiVector(s, a, got) {
			t.Fatal("the default's AVX2 kernel declined without FMA3")
		}
	}
}
