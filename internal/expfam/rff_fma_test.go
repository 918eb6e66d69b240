package expfam

import (
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// gamma is Higham's γ_n = n·u/(1 − n·u), u = 2⁻⁵³: the relative bound of
// n rounded operations in a row.
func gamma(n int) float64 {
	nu := float64(n) * 0x1p-53
	return nu / (1 - nu)
}

// exactArg returns b_j + Σ_i ω_ji x_i summed exactly (big.Float; each
// product of two float64 is exact in 106 bits) and rounded once to float64,
// and S = |b_j| + Σ_i |ω_ji x_i|, the scale of the rounding errors.
func exactArg(f *RFF, j int, x []float64) (arg, s float64) {
	in := f.DS + f.DA
	sum := new(big.Float).SetPrec(2200).SetFloat64(f.Bias[j])
	s = math.Abs(f.Bias[j])
	for i, v := range x[:in] {
		p := new(big.Float).SetPrec(2200).SetFloat64(f.Omega[j*in+i])
		p.Mul(p, new(big.Float).SetFloat64(v))
		sum.Add(sum, p)
		s += math.Abs(f.Omega[j*in+i] * v)
	}
	arg, _ = sum.Float64()
	return arg, s
}

// cosFMA against math.Cos within Cos's bound 1e-15·(1 + |x|) on a grid of
// [−300, 300], at random points up to 1e6 and at the quadrant points; from
// the reduction range on it is math.Cos, and scaleCosFMA is scale·cosFMA.
func TestCosFMA(t *testing.T) {
	check := func(x float64) {
		if got, want := cosFMA(x), math.Cos(x); !numeric.AbsWithin(got, want, 1e-15*(1+math.Abs(x))) {
			t.Fatalf("cosFMA(%v) = %v, math.Cos = %v (error %.3g)", x, got, want, got-want)
		}
	}
	for i := 0; i <= 200_000; i++ {
		check(-300 + 600*float64(i)/200_000)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20_000 {
		check((2*rng.Float64() - 1) * 1e6)
	}
	for k := -20; k <= 20; k++ {
		check(float64(k) * math.Pi / 2)
	}
	for _, x := range []float64{1e9, 1e12, 1e15, math.Nextafter(cosMaxArg, 0)} {
		check(x)
		check(-x)
	}
	xs := []float64{0.3, -2.5, 1e6, math.Nextafter(cosMaxArg, 0), cosMaxArg, 1e17, 1e300, math.NaN(), math.Inf(-1)}
	got := append([]float64(nil), xs...)
	scaleCosFMA(got, 0.7)
	for j, x := range xs {
		if x >= cosMaxArg && math.Float64bits(got[j]) != math.Float64bits(0.7*math.Cos(x)) {
			t.Errorf("scaleCosFMA(%g) = %v, want 0.7·math.Cos = %v", x, got[j], 0.7*math.Cos(x))
		}
		if want := 0.7 * cosFMA(x); !numeric.SameBitsOrNaN(got[j], want) {
			t.Errorf("scaleCosFMA(%g) = %v, want 0.7·cosFMA = %v", x, got[j], want)
		}
	}
}

// phiFMA against the exact argument: |φ_j − scale·cos(z*_j)| ≤
// scale·(γ_n·S_j + 1e-15·(1 + |z*_j|)) for the n = d_s + d_a fused
// multiply-adds of the dot product (Higham: a chain of n FMAs is within
// γ_n·S_j of the exact sum, S_j = |b_j| + Σ_i |ω_ji x_i|) and cosFMA's bound,
// z*_j the exact b_j + Σ_i ω_ji x_i. And the two arithmetics: fma on and
// off differ by at most scale·(2γ_{n+1}·S_j + 2e-15·(1 + |z*_j|)) per
// feature (each dot within γ_{n+1}·S_j of z*_j, each cosine within its
// bound), and they do differ: the mode changes the arithmetic.
func TestPhiFMAAgainstExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 7))
	for _, tc := range []struct{ ds, da, d int }{{1, 1, 9}, {3, 1, 200}, {17, 6, 300}, {4, 0, 33}} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 0.8, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		n := tc.ds + tc.da
		on, off := make([]float64, tc.d), make([]float64, tc.d)
		differ, worst := 0, 0.0
		for _, scale := range []float64{1e-3, 1, 30, 1e4} {
			for range 20 {
				x := rffInputs(rng, n, scale)
				f.phiFMA(x[:tc.ds], x[tc.ds:], on)
				f.phiScalar(x[:tc.ds], x[tc.ds:], off)
				for j := range on {
					z, s := exactArg(f, j, x)
					want := f.Scale * math.Cos(z)
					if bound := f.Scale * (gamma(n)*s + 1e-15*(1+math.Abs(z))); !numeric.AbsWithin(on[j], want, bound) {
						t.Fatalf("%+v, x = %v: phiFMA_%d = %v, scale·cos(exact z) = %v, bound %.3g", tc, x, j, on[j], want, bound)
					}
					bound := f.Scale * (2*gamma(n+1)*s + 2e-15*(1+math.Abs(z)))
					if d := math.Abs(on[j] - off[j]); d > bound {
						t.Fatalf("%+v, x = %v: feature %d fma %v, without %v: |difference| %.3g > %.3g", tc, x, j, on[j], off[j], d, bound)
					} else {
						worst = max(worst, d/bound)
					}
					if on[j] != off[j] {
						differ++
					}
				}
			}
		}
		if differ == 0 {
			t.Errorf("%+v: fma on and off gave the same bits for every feature", tc)
		}
		t.Logf("%+v: %d of %d features differ, the largest difference %.2g of the bound", tc, differ, 80*tc.d, worst)
	}
}

// Phi with FMA set gives phiFMA's bits on whatever path this build and CPU
// take (the AVX-512 kernel and its Go tail, or phiFMA itself under
// SMRL_NOSIMD=1, purego, GOAMD64=v3 or another architecture), for feature
// counts below, at and off multiples of 8 and 40, with and without
// actions and input scaling, and up to the reduction range's bound (beyond
// it, math.Cos); PhiBatch8, where it runs, gives them in each lane, and
// Model.Eta is phiFMA followed by Dot4 (the fused AVX2 η kernel declines).
func TestPhiIsPhiFMA(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 8))
	for _, tc := range []struct {
		ds, da, d int
		scaled    bool
	}{
		{1, 1, 1, false}, {1, 1, 7, true}, {2, 1, 8, false}, {2, 1, 9, true}, {3, 0, 15, false}, {3, 1, 40, true},
		{4, 2, 97, false}, {17, 6, 333, true}, {30, 10, 47, false}, {3, 1, 200, true},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1.5, uint64(tc.d)+100)
		if err != nil {
			t.Fatal(err)
		}
		n := tc.ds + tc.da
		if tc.scaled {
			c := rffInputs(rng, n, 1)
			for i := range c {
				c[i] = math.Abs(c[i]) + 0.1
			}
			if err := f.ScaleInputs(c); err != nil {
				t.Fatal(err)
			}
		}
		f.FMA = true
		got, want := make([]float64, tc.d), make([]float64, tc.d)
		xt, out := make([]float64, 8*n), make([]float64, f.Batch8Len())
		xs := make([][]float64, 8)
		for _, scale := range []float64{1e-3, 1, 30, 1e4, 0} {
			for l := range xs {
				if scale == 0 { // near the bound of the range the kernels take
					xs[l] = nearBound(f, rffInputs(rng, n, 1), 1-0.01*float64(l+1))
				} else {
					xs[l] = rffInputs(rng, n, scale)
				}
				for i, v := range xs[l] {
					xt[8*i+l] = v
				}
			}
			batch := f.PhiBatch8(xt, out)
			for l, x := range xs {
				f.phiFMA(x[:tc.ds], x[tc.ds:], want)
				f.Phi(x[:tc.ds], x[tc.ds:], got)
				numeric.RequireSameBits(t, "Phi with FMA against phiFMA", got, want)
				for j := range want {
					if batch && math.Float64bits(out[8*j+l]) != math.Float64bits(want[j]) {
						t.Fatalf("%+v lane %d: PhiBatch8 feature %d = %v, phiFMA %v", tc, l, j, out[8*j+l], want[j])
					}
				}
			}
		}
		// Beyond the range: Phi is still phiFMA (math.Cos where needed).
		for _, big := range []float64{1e17, math.Inf(1), math.NaN()} {
			x := rffInputs(rng, n, 1)
			x[0] = big
			f.phiFMA(x[:tc.ds], x[tc.ds:], want)
			f.Phi(x[:tc.ds], x[tc.ds:], got)
			for j := range want {
				if !numeric.SameBitsOrNaN(got[j], want[j]) {
					t.Fatalf("%+v, x_0 = %v: Phi_%d = %v, phiFMA %v", tc, big, j, got[j], want[j])
				}
			}
		}
		// Model.Eta: phiFMA, then Dot4 (Dot for short rows) of each row.
		rows := 3
		g, _ := NewGaussian(rows, 1)
		w := rffInputs(rng, rows*tc.d, 2)
		m := &Model{Dist: g, Feat: f, W: w}
		eta := make([]float64, rows)
		x := rffInputs(rng, n, 3)
		m.Eta(x[:tc.ds], x[tc.ds:], got, eta)
		f.phiFMA(x[:tc.ds], x[tc.ds:], want)
		numeric.RequireSameBits(t, "Eta's features with FMA", got, want)
		for k := range eta {
			dot := Dot(w[k*tc.d:(k+1)*tc.d], want)
			if tc.d >= LongRow {
				dot = Dot4(w[k*tc.d:(k+1)*tc.d], want)
			}
			if math.Float64bits(eta[k]) != math.Float64bits(dot) {
				t.Fatalf("%+v: eta_%d = %v, want %v", tc, k, eta[k], dot)
			}
		}
	}
}

// nearBound scales x so that the bound on the cosine's arguments is frac
// of the largest the kernels take (half the reduction range).
func nearBound(f *RFF, x []float64, frac float64) []float64 {
	b := f.argBound(x[:f.DS], x[f.DS:])
	c := frac * (cosMaxArg/2 - f.maxBias) / (b - f.maxBias)
	for i := range x {
		x[i] *= c
	}
	return x
}

// phiFMA's bits are the same on every machine and in every build (math.FMA
// rounds exactly; nothing else can fuse): a hash of the bits of 64 inputs'
// features, pinned here, holds under GOAMD64=v1 and v3, purego and
// SMRL_NOSIMD (the golden value was computed on amd64 with AVX-512, and
// checked under GOAMD64=v3 and -tags purego). The same inputs without FMA
// hash differently.
func TestPhiFMAGolden(t *testing.T) {
	f, err := NewRFF(5, 2, 37, 0.9, 11)
	if err != nil {
		t.Fatal(err)
	}
	f.FMA = true
	hash := func(phi func(s, a, out []float64)) uint64 {
		h := fnv.New64a()
		rng := rand.New(rand.NewPCG(63, 9))
		out := make([]float64, 37)
		var b [8]byte
		for k := range 64 {
			x := rffInputs(rng, 7, []float64{0.1, 1, 10, 1e3}[k%4])
			phi(x[:5], x[5:], out)
			for _, v := range out {
				u := math.Float64bits(v)
				for i := range b {
					b[i] = byte(u >> (8 * i))
				}
				h.Write(b[:])
			}
		}
		return h.Sum64()
	}
	const golden = 0x1f9d471e20dccbb2
	if got := hash(f.Phi); got != golden {
		t.Errorf("hash of Phi's bits with FMA %#x, want %#x", got, uint64(golden))
	}
	if got := hash(f.phiScalar); got == golden {
		t.Errorf("hash without FMA %#x is the golden one", got)
	}
}
