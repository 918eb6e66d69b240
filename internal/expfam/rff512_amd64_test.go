//go:build !purego && !amd64.v3

package expfam

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/smrl-dev/smrl/internal/simd"
	"github.com/smrl-dev/smrl/internal/testutil"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// The AVX-512 features (rffPhiAVX512) and the AVX2 ones (with useAVX512
// off) give phiScalar's bits for every tail length (d mod 8, d mod 40, the
// cosine pass's blocks of 96), with and without actions, at input scales
// from small to beyond [−π, π]. Phi takes the AVX-512 kernel on a CPU that
// has it; this test checks both whatever Phi takes.
func TestRFFPhiAVX512IsScalar(t *testing.T) {
	requireVector(t)
	if !useAVX512 {
		t.Skip("no AVX-512F on this CPU (or SMRL_NOSIMD set): the AVX2 features are tested by TestRFFPhiVectorIsScalar")
	}
	defer func(v bool, m int) { useAVX512, phi512MinDim = v, m }(useAVX512, phi512MinDim)
	phi512MinDim = 0 // the AVX-512 kernel at every size
	rng := rand.New(rand.NewPCG(51, 2))
	for _, tc := range []struct{ ds, da, d int }{
		{1, 1, 8}, {2, 1, 9}, {3, 0, 15}, {17, 6, 2000}, {17, 6, 333}, {4, 2, 96}, {4, 2, 97 + 40}, {30, 10, 47}, {2, 1, 10}, {5, 3, 11}, {6, 2, 14}, {3, 2, 12},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1.5, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		want, got := make([]float64, tc.d), make([]float64, tc.d)
		for _, scale := range []float64{1e-3, 1, 30, 1e4} {
			for range 20 {
				z := rffInputs(rng, tc.ds+tc.da, scale)
				s, a := z[:tc.ds], z[tc.ds:]
				f.phiScalar(s, a, want)
				for _, wide := range []bool{true, false} {
					useAVX512 = wide
					clear(got)
					if !f.phiVector(s, a, got) {
						t.Fatalf("%+v: the vector kernel declined z = %v", tc, z)
					}
					for j := range want {
						if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
							t.Fatalf("%+v AVX-512 %v, z = %v: phi_%d vector %v, scalar %v", tc, wide, z, j, got[j], want[j])
						}
					}
				}
			}
		}
	}
}

// PhiBatch8 and both groups of PhiBatch16 give, in lane l, the bits of
// Phi of input l, for feature
// counts that are and are not multiples of 8, with and without actions,
// at input scales from small to beyond [−π, π] and with each lane at its
// own scale; an input outside the cosine's range makes it decline.
func TestPhiBatch8IsPhi(t *testing.T) {
	requireVector(t)
	if !useAVX512 {
		t.Skip("no AVX-512F on this CPU (or SMRL_NOSIMD set): PhiBatch8 declines and Phi runs")
	}
	rng := rand.New(rand.NewPCG(52, 3))
	for _, tc := range []struct{ ds, da, d int }{
		{1, 1, 8}, {2, 1, 9}, {3, 0, 15}, {17, 6, 2000}, {17, 6, 333}, {30, 10, 47}, {1, 0, 8}, {4, 1, 16}, {2, 2, 24},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1.5, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		in := tc.ds + tc.da
		xt, out := make([]float64, 8*in), make([]float64, f.Batch8Len())
		xt2, out2, out16 := make([]float64, 8*in), make([]float64, f.Batch8Len()), make([]float64, f.Batch8Len())
		want := make([]float64, tc.d)
		xs, xs2 := make([][]float64, 8), make([][]float64, 8)
		for range 10 {
			for l := range xs {
				xs[l] = rffInputs(rng, in, []float64{1e-3, 1, 30, 1e4}[rng.IntN(4)])
				for i, v := range xs[l] {
					xt[8*i+l] = v
				}
			}
			for l := range xs2 {
				xs2[l] = rffInputs(rng, in, []float64{1e-3, 1, 30, 1e4}[rng.IntN(4)])
				for i, v := range xs2[l] {
					xt2[8*i+l] = v
				}
			}
			if !f.PhiBatch8(xt, out) {
				t.Fatalf("%+v: PhiBatch8 declined", tc)
			}
			if !f.PhiBatch16(xt, xt2, out16, out2) {
				t.Fatalf("%+v: PhiBatch16 declined", tc)
			}
			numeric.RequireSameBits(t, "PhiBatch16's first group against PhiBatch8", out16, out)
			for g, group := range [][][]float64{xs, xs2} {
				o := [][]float64{out, out2}[g]
				for l, x := range group {
					f.phiScalar(x[:tc.ds], x[tc.ds:], want)
					for j, w := range want {
						if math.Float64bits(o[8*j+l]) != math.Float64bits(w) {
							t.Fatalf("%+v group %d lane %d: feature %d = %v, Phi %v", tc, g, l, j, o[8*j+l], w)
						}
					}
				}
			}
		}
		xt[8*in-1] = math.NaN()
		if f.PhiBatch8(xt, out) || f.PhiBatch16(xt2, xt, out2, out) {
			t.Fatalf("%+v: PhiBatch8 or PhiBatch16 took a NaN input", tc)
		}
		xt[8*in-1] = 1e300
		if f.PhiBatch8(xt, out) || f.PhiBatch16(xt, xt2, out, out2) {
			t.Fatalf("%+v: PhiBatch8 or PhiBatch16 took an input beyond the cosine's range", tc)
		}
	}
}

// BenchmarkRFFPhi2000 is one feature vector at the size of a MuJoCo task
// (d_s 17, d_a 6, D 2000), by the AVX-512 and the AVX2 kernel, with fused
// multiply-adds (RFF.FMA) by each of them, and by phiFMA's Go loop (what
// RFF.FMA ran without AVX-512 before rffPhiAVX2FMA). min-cpu-ns/op is
// the fastest group's thread CPU time a call.
func BenchmarkRFFPhi2000(b *testing.B) {
	f, _ := NewRFF(17, 6, 2000, 2, 5)
	rng := rand.New(rand.NewPCG(1, 1))
	z := rffInputs(rng, 23, 1)
	out := make([]float64, 2000)
	defer func(v bool) { useAVX512 = v }(useAVX512)
	for _, c := range []struct {
		name           string
		wide, fma, ref bool
	}{
		{"avx2", false, false, false}, {"avx512", true, false, false},
		{"avx2-fma", false, true, false}, {"avx512-fma", true, true, false}, {"go-fma", false, true, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.wide && !simdAVX512() {
				b.Skip("no AVX-512F")
			}
			if c.fma && !c.wide && !c.ref && !useAVX2FMA {
				b.Skip("no FMA3: Phi would run the Go loop")
			}
			useAVX512, f.FMA = c.wide, c.fma
			phi := f.Phi
			if c.ref {
				phi = f.phiFMA
			}
			testutil.FastestCPU(b, 10, func() { phi(z[:17], z[17:], out) })
		})
	}
}

func simdAVX512() bool { return simd.AVX512 }

// BenchmarkPhiBatch8 is the features of eight states at the scale
// benchmark's size (d_s 17, d_a 6, D 2000) by the AVX-512 lanes' kernel:
// 2000·(23 multiplies + 23 adds + 25 operations of the reduction and the
// cosine) = 142 000 512-bit operations per call (ops/ns reports their
// rate; two per cycle is the machine's peak).
func BenchmarkPhiBatch8(b *testing.B) {
	if !useAVX512 {
		b.Skip("no AVX-512F")
	}
	f, _ := NewRFF(17, 6, 2000, 2, 5)
	xt := rffInputs(rand.New(rand.NewPCG(1, 1)), 8*23, 1)
	out := make([]float64, f.Batch8Len())
	best := testutil.FastestCPU(b, 10, func() { f.PhiBatch8(xt, out) })
	b.ReportMetric(2000*71/best, "zmm-ops/ns")
}

// The fused-multiply-add kernels (rffPhiAVX512FMA through phiVector with
// its Go tail, rffBatch8AVX512FMA through PhiBatch8, rffBatch16AVX512FMA
// through PhiBatch16, whose second group holds other states) give phiFMA's bits for
// every tail length, with and without actions, at input scales from small
// to the bound of the range they take; without AVX-512 (useAVX512 off) or
// below eight features phiVector runs rffPhiAVX2FMA (the same bits,
// TestRFFAVX2FMAKernelIsReference), and the fused η kernel declines with
// FMA set: Eta then runs Phi and dot4Rows. An input past the range's bound
// makes them decline.
func TestRFFFMAKernelsAreReference(t *testing.T) {
	requireVector(t)
	if !useAVX512 {
		t.Skip("no AVX-512F on this CPU (or SMRL_NOSIMD set): Phi runs phiFMA, tested by TestPhiIsPhiFMA")
	}
	defer func(v bool, m int) { useAVX512, phi512MinDim = v, m }(useAVX512, phi512MinDim)
	phi512MinDim = 0 // the AVX-512 kernel at every size
	rng := rand.New(rand.NewPCG(53, 4))
	for _, tc := range []struct{ ds, da, d int }{
		{1, 1, 4}, {1, 0, 8}, {1, 1, 8}, {2, 1, 9}, {3, 0, 15}, {17, 6, 2000}, {17, 6, 333}, {4, 2, 96}, {4, 2, 137}, {30, 10, 47}, {2, 1, 10}, {5, 3, 11}, {6, 2, 14}, {3, 2, 12},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1.5, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		f.FMA = true
		in := tc.ds + tc.da
		want, got := make([]float64, tc.d), make([]float64, tc.d)
		xt, out := make([]float64, 8*in), make([]float64, f.Batch8Len())
		xt2, out2, out16 := make([]float64, 8*in), make([]float64, f.Batch8Len()), make([]float64, f.Batch8Len())
		xs, xs2 := make([][]float64, 8), make([][]float64, 8)
		for _, scale := range []float64{1e-3, 1, 30, 1e4, 0} {
			for range 4 {
				for l := range xs {
					if scale == 0 {
						xs[l] = nearBound(f, rffInputs(rng, in, 1), 1-1e-3*float64(l+1))
					} else {
						xs[l] = rffInputs(rng, in, scale)
					}
					xs2[l] = rffInputs(rng, in, []float64{1e-3, 1, 30, 1e4}[rng.IntN(4)])
					for i, v := range xs[l] {
						xt[8*i+l] = v
					}
					for i, v := range xs2[l] {
						xt2[8*i+l] = v
					}
				}
				if !f.PhiBatch8(xt, out) {
					t.Fatalf("%+v: PhiBatch8 declined", tc)
				}
				if !f.PhiBatch16(xt, xt2, out16, out2) {
					t.Fatalf("%+v: PhiBatch16 declined", tc)
				}
				numeric.RequireSameBits(t, "PhiBatch16's first group against PhiBatch8", out16, out)
				for l, x := range xs2 {
					f.phiFMA(x[:tc.ds], x[tc.ds:], want)
					for j, w := range want {
						if math.Float64bits(out2[8*j+l]) != math.Float64bits(w) {
							t.Fatalf("%+v lane %d of group 1, x = %v: PhiBatch16 feature %d = %v, phiFMA %v", tc, l, x, j, out2[8*j+l], w)
						}
					}
				}
				for l, x := range xs {
					s, a := x[:tc.ds], x[tc.ds:]
					f.phiFMA(s, a, want)
					for j, w := range want {
						if math.Float64bits(out[8*j+l]) != math.Float64bits(w) {
							t.Fatalf("%+v lane %d, x = %v: PhiBatch8 feature %d = %v, phiFMA %v", tc, l, x, j, out[8*j+l], w)
						}
					}
					for _, wide := range []bool{true, false} {
						useAVX512 = wide
						clear(got)
						ok := f.phiVector(s, a, got)
						if ok != (wide && tc.d >= 8 || useAVX2FMA) {
							t.Fatalf("%+v AVX-512 %v: phiVector took FMA features: %v", tc, wide, ok)
						}
						if ok {
							numeric.RequireSameBits(t, "rffPhiAVX512FMA or rffPhiAVX2FMA against phiFMA", got, want)
						}
						if f.etaVector(s, a, make([]float64, tc.d), got, make([]float64, 1)) {
							t.Fatalf("%+v: the fused η kernel took FMA features", tc)
						}
					}
					useAVX512 = true
				}
			}
		}
		x := rffInputs(rng, in, 1)
		x[0] = 1e17
		if f.phiVector(x[:tc.ds], x[tc.ds:], got) {
			t.Fatalf("%+v: phiVector took an input beyond the cosine's range", tc)
		}
		for i, v := range x {
			xt[8*i+3] = v
		}
		if f.PhiBatch8(xt, out) {
			t.Fatalf("%+v: PhiBatch8 took an input beyond the cosine's range", tc)
		}
		if f.PhiBatch16(xt2, xt, out2, out) || f.PhiBatch16(xt, xt2, out, out2) {
			t.Fatalf("%+v: PhiBatch16 took an input beyond the cosine's range", tc)
		}
	}
}

// BenchmarkPhiBatch16FMA is BenchmarkPhiBatch8FMA of sixteen states in one
// pass over the frequencies (PhiBatch16), per eight states.
func BenchmarkPhiBatch16FMA(b *testing.B) {
	if !useAVX512 {
		b.Skip("no AVX-512F")
	}
	f, _ := NewRFF(17, 6, 2000, 2, 5)
	f.FMA = true
	rng := rand.New(rand.NewPCG(1, 1))
	xt0, xt1 := rffInputs(rng, 8*23, 1), rffInputs(rng, 8*23, 1)
	out0, out1 := make([]float64, f.Batch8Len()), make([]float64, f.Batch8Len())
	best := testutil.FastestCPU(b, 10, func() { f.PhiBatch16(xt0, xt1, out0, out1) }) / 2
	b.ReportMetric(best, "cpu-ns/8-states")
	b.ReportMetric(2000*39/best, "zmm-ops/ns")
}

// BenchmarkPhiBatch8FMA is BenchmarkPhiBatch8 with fused multiply-adds:
// 2000·(23 fused multiply-adds + 16 operations of the reduction and the
// cosine) = 78 000 512-bit operations per call.
func BenchmarkPhiBatch8FMA(b *testing.B) {
	if !useAVX512 {
		b.Skip("no AVX-512F")
	}
	f, _ := NewRFF(17, 6, 2000, 2, 5)
	f.FMA = true
	xt := rffInputs(rand.New(rand.NewPCG(1, 1)), 8*23, 1)
	out := make([]float64, f.Batch8Len())
	best := testutil.FastestCPU(b, 10, func() { f.PhiBatch8(xt, out) })
	b.ReportMetric(2000*39/best, "zmm-ops/ns")
}

// BenchmarkPhiBatch16 is BenchmarkPhiBatch8 of sixteen states in one pass
// over the frequencies (PhiBatch16), per eight states.
func BenchmarkPhiBatch16(b *testing.B) {
	if !useAVX512 {
		b.Skip("no AVX-512F")
	}
	f, _ := NewRFF(17, 6, 2000, 2, 5)
	rng := rand.New(rand.NewPCG(1, 1))
	xt0, xt1 := rffInputs(rng, 8*23, 1), rffInputs(rng, 8*23, 1)
	out0, out1 := make([]float64, f.Batch8Len()), make([]float64, f.Batch8Len())
	best := testutil.FastestCPU(b, 10, func() { f.PhiBatch16(xt0, xt1, out0, out1) }) / 2
	b.ReportMetric(best, "cpu-ns/8-states")
	b.ReportMetric(2000*(2*23+25)/best, "zmm-ops/ns")
}

// Phi of one state runs the AVX-512 kernel only from phi512MinDim
// features (the planner's batch size, where its features run AVX-512
// too), the AVX2 kernel below it: the pendulum's 200 and the Acrobot's
// 1200 features in AVX2, the scale config's 2000 in AVX-512, in both
// arithmetics; FMA features below it take AVX-512 only without FMA3.
// PhiBulk (smrl estimate's passes) runs it from bulk512MinDim (256). Both
// give their reference's bits.
func TestPhiOfOneStateRunsAVX512FromTheBatchSize(t *testing.T) {
	requireVector(t)
	if !useAVX512 || !useAVX2FMA {
		t.Skip("no AVX-512F or FMA3 on this CPU (or SMRL_NOSIMD set): Phi never runs the AVX-512 kernel")
	}
	defer func(p func(*RFF, []float64, []float64, *float64, []float64) bool, fma bool) {
		phi512, useAVX2FMA = p, fma
	}(phi512, useAVX2FMA)
	wide := 0
	phi512 = func(f *RFF, s, a []float64, ap *float64, out []float64) bool {
		wide++
		return f.phiAVX512(s, a, ap, out)
	}
	rng := rand.New(rand.NewPCG(54, 5))
	for _, tc := range []struct {
		ds, da, d       int
		fma, fma3, bulk bool
		want            int
	}{
		{3, 1, 200, false, true, false, 0}, {6, 1, 1200, false, true, false, 0}, {6, 1, 1499, true, true, false, 0},
		{17, 6, 1500, false, true, false, 1}, {17, 6, 2000, false, true, false, 1}, {17, 6, 2000, true, true, false, 1},
		{3, 1, 200, true, false, false, 1}, {3, 1, 200, false, false, false, 0},
		{4, 1, 255, false, true, true, 0}, {4, 1, 256, false, true, true, 1}, {4, 1, 1024, false, true, true, 1},
		{4, 1, 1024, true, true, true, 1}, {4, 1, 200, true, false, true, 1}, {17, 6, 2000, false, true, true, 1},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1.5, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		f.FMA, useAVX2FMA = tc.fma, tc.fma3
		z := rffInputs(rng, tc.ds+tc.da, 1)
		want, got := make([]float64, tc.d), make([]float64, tc.d)
		if tc.fma {
			f.phiFMA(z[:tc.ds], z[tc.ds:], want)
		} else {
			f.phiScalar(z[:tc.ds], z[tc.ds:], want)
		}
		wide = 0
		if tc.bulk {
			PhiBulk(f, z[:tc.ds], z[tc.ds:], got)
		} else {
			f.Phi(z[:tc.ds], z[tc.ds:], got)
		}
		if wide != tc.want {
			t.Errorf("%+v: ran the AVX-512 kernel %d times, want %d", tc, wide, tc.want)
		}
		numeric.RequireSameBits(t, "Phi against its reference", got, want)
	}
}

// BenchmarkPhiAmongEta measures what one AVX-512 Phi costs the code
// around it, the reason for phi512MinDim, at the pendulum's sizes (d_s 3,
// d_a 1, D 200): a round is 400 calls of the fused AVX2 η kernel
// (etaVector, the planner's kernel at this size) and then one Phi of one
// state, by the AVX2 kernel ("avx2") or the AVX-512 one ("avx512"). eta-ns
// is the thread's CPU time of an η call, the Phi calls not counted (two
// reads of the clock, system calls, a round); phi-ns that of the Phi call
// with one read of the clock.
func BenchmarkPhiAmongEta(b *testing.B) {
	if !useAVX512 {
		b.Skip("no AVX-512F")
	}
	defer func(m int) { phi512MinDim = m }(phi512MinDim)
	f, _ := NewRFF(3, 1, 200, 1, 5)
	rng := rand.New(rand.NewPCG(1, 1))
	w := rffInputs(rng, 3*200, 0.1)
	z := rffInputs(rng, 4, 1)
	phi, eta, out := make([]float64, 200), make([]float64, 3), make([]float64, 200)
	for _, c := range []struct {
		name string
		min  int
	}{{"avx2", math.MaxInt}, {"avx512", 0}} {
		b.Run(c.name, func(b *testing.B) {
			phi512MinDim = c.min
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var etaNs, phiNs int64
			for b.Loop() {
				t0 := testutil.ThreadCPU(b)
				for range 400 {
					f.etaVector(z[:3], z[3:], w, phi, eta)
				}
				t1 := testutil.ThreadCPU(b)
				f.Phi(z[:3], z[3:], out)
				etaNs += t1 - t0
				phiNs += testutil.ThreadCPU(b) - t1
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(etaNs)/float64(b.N)/400, "eta-ns")
			b.ReportMetric(float64(phiNs)/float64(b.N), "phi-ns")
		})
	}
}
