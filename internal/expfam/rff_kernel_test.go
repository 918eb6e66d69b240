package expfam

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// requireVector skips a test of the vector kernels on a machine (or a run,
// SMRL_NOSIMD=1) without them; the scalar loops are tested on their own.
func requireVector(t *testing.T) {
	t.Helper()
	if !useAVX2 {
		t.Skip("vector kernels off (no AVX2, not amd64, purego, or SMRL_NOSIMD set)")
	}
}

// SMRL_NOSIMD turns the vector kernels off, so that CI runs the scalar
// loops through Phi and Eta (.ci/run runs this package with it set).
func TestNoSIMDSwitch(t *testing.T) {
	if os.Getenv("SMRL_NOSIMD") != "" && useAVX2 {
		t.Fatal("SMRL_NOSIMD is set but the vector kernels are on")
	}
}

// rffInputs draws an input z of n coordinates at a scale: the arguments of
// the cosine then range from small to large (far beyond [−π, π], where
// the reduction's rounding matters), so that any difference in rounding
// between the two paths shows.
func rffInputs(rng *rand.Rand, n int, scale float64) []float64 {
	z := make([]float64, n)
	for i := range z {
		z[i] = scale * (2*rng.Float64() - 1)
	}
	return z
}

// The vector Phi gives the scalar loop's bits, for every tail length
// (d mod 4), input dimension and input scale, with and without input
// scaling; arguments outside the cosine's reduction range (|z| ≥ 2^50, NaN,
// ±Inf) send the whole vector to the scalar loop.
func TestRFFPhiVectorIsScalar(t *testing.T) {
	requireVector(t)
	rng := rand.New(rand.NewPCG(24, 1))
	for _, tc := range []struct {
		ds, da, d int
		ell       float64
		scaled    bool
	}{
		{1, 1, 4, 1, false}, {1, 1, 5, 0.3, false}, {2, 1, 6, 2, true}, {3, 1, 7, 1, true},
		{3, 1, 200, 1, true}, {4, 1, 201, 0.5, false}, {8, 2, 63, 0.7, true}, {20, 12, 130, 3, false},
		{2, 0, 12, 1, true}, {3, 0, 9, 0.8, false}, {30, 10, 44, 4, true}, // no action; 40 inputs
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, tc.ell, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		if tc.scaled {
			if err := f.ScaleInputs(rffInputs(rng, tc.ds+tc.da, 1)); err != nil {
				// a scale ≤ 0: use |c| + 0.1
				c := rffInputs(rng, tc.ds+tc.da, 1)
				for i := range c {
					c[i] = math.Abs(c[i]) + 0.1
				}
				if err := f.ScaleInputs(c); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, want := make([]float64, tc.d), make([]float64, tc.d)
		differ := 0 // the vector path against math.Cos: not a copy of a constant
		for _, scale := range []float64{1e-3, 1, 30, 1e4, 1e9} {
			for range 200 {
				z := rffInputs(rng, tc.ds+tc.da, scale)
				s, a := z[:tc.ds], z[tc.ds:]
				f.phiScalar(s, a, want)
				if !f.phiVector(s, a, got) {
					t.Fatalf("%+v: the vector kernel declined z = %v", tc, z)
				}
				for j := range want {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%+v, z = %v: phi_%d vector %v, scalar %v", tc, z, j, got[j], want[j])
					}
				}
				f.Phi(s, a, got)
				for j := range want {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("%+v: Phi_%d = %v, phiScalar %v", tc, j, got[j], want[j])
					}
				}
				if scale == 1 {
					// an independent check of the kernel: φ_j = √(2/D) cos(ω_jᵀz + b_j)
					in := tc.ds + tc.da
					for j := range want {
						arg := f.Bias[j]
						for i := range in {
							arg += f.Omega[j*in+i] * z[i]
						}
						if e := math.Abs(got[j] - f.Scale*math.Cos(arg)); e > 1e-14*(1+math.Abs(arg)) {
							t.Fatalf("%+v: phi_%d = %v, √(2/D)·math.Cos = %v", tc, j, got[j], f.Scale*math.Cos(arg))
						} else if e != 0 {
							differ++
						}
					}
				}
			}
		}
		if differ == 0 {
			t.Errorf("%+v: every feature equals √(2/D)·math.Cos to the bit: the test cannot tell Cos from math.Cos", tc)
		}
		// Arguments that may leave the reduction range (by the bound on
		// them, or in fact): the vector kernel declines, and Phi gives the
		// scalar loop's bits (math.Cos there). It accepts exactly when the
		// bound is below half the range, and then every argument is inside.
		for _, big := range []float64{1 << 44, 1 << 47, 1 << 50, 1e17, math.Inf(1), math.NaN()} {
			z := rffInputs(rng, tc.ds+tc.da, 1)
			z[0] = big
			s, a := z[:tc.ds], z[tc.ds:]
			ok := f.phiVector(s, a, got)
			if want := f.argBound(s, a) < cosMaxArg/2; ok != want {
				t.Errorf("%+v, z_0 = %v: the vector kernel accepted %v, want %v (bound %v)", tc, big, ok, want, f.argBound(s, a))
			}
			if ok && !vectorPartInRange(f, z) {
				t.Errorf("%+v, z_0 = %v: the vector kernel accepted arguments outside the range", tc, big)
			}
			f.phiScalar(s, a, want)
			f.Phi(s, a, got)
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("%+v, z_0 = %v: Phi_%d = %v, phiScalar %v", tc, big, j, got[j], want[j])
				}
			}
		}
	}
}

// vectorPartInRange reports whether the cosine's argument is in its
// reduction range for every feature the vector kernel computes (those
// below d − d mod 4; it hands the rest to scaleCos), and within the bound
// argBound.
func vectorPartInRange(f *RFF, z []float64) bool {
	d, in := len(f.Bias), f.DS+f.DA
	for j := range d &^ 3 {
		arg := f.Bias[j]
		for i := range in {
			arg += f.omegaT[i*d+j] * z[i]
		}
		if !cosInRange(arg) || !(math.Abs(arg) <= f.argBound(z[:f.DS], z[f.DS:])) {
			return false
		}
	}
	return true
}

// The vector rows of η = W φ give Dot4's bits for every row count (the
// last group of four rows short or full) and every tail length, with terms
// of mixed sign and magnitude (so that another order of additions would
// round differently), and agree with an exact-enough sum.
func TestDot4RowsIsDot4(t *testing.T) {
	requireVector(t)
	rng := rand.New(rand.NewPCG(24, 2))
	for _, rows := range []int{1, 2, 3, 4, 5, 8, 9} {
		for _, n := range []int{4, 5, 6, 7, 16, 17, 203} {
			w, y := make([]float64, rows*n), make([]float64, n)
			for i := range w {
				w[i] = math.Ldexp(2*rng.Float64()-1, rng.IntN(40)-20)
			}
			for i := range y {
				y[i] = math.Ldexp(2*rng.Float64()-1, rng.IntN(40)-20)
			}
			eta := make([]float64, rows)
			if !dot4Rows(w, y, eta) {
				t.Fatalf("rows %d, n %d: the vector kernel declined", rows, n)
			}
			for k := range eta {
				row := w[k*n : (k+1)*n]
				if want := Dot4(row, y); math.Float64bits(eta[k]) != math.Float64bits(want) {
					t.Fatalf("rows %d, n %d: eta_%d = %v, Dot4 %v", rows, n, k, eta[k], want)
				}
				var exact, mag float64 // compensated (Neumaier) sum as the reference
				var c float64
				for j := range row {
					p := row[j] * y[j]
					t2 := exact + p
					if math.Abs(exact) >= math.Abs(p) {
						c += (exact - t2) + p
					} else {
						c += (p - t2) + exact
					}
					exact = t2
					mag += math.Abs(p)
				}
				if math.Abs(eta[k]-(exact+c)) > 1e-15*float64(n)*mag {
					t.Fatalf("rows %d, n %d: eta_%d = %v, sum %v", rows, n, k, eta[k], exact+c)
				}
			}
		}
	}
}

// Model.Eta with random Fourier features gives the same bits on both paths:
// the fused kernel (φ and the rows' partial sums in one pass) against
// phiScalar and Dot4, for every row count it takes (1 to maxFusedRows; more
// fall back to Phi and dot4Rows), feature counts that leave whole groups of
// the cosine pass (28),
// groups of four and a scalar tail in every combination, and W of mixed
// sign and magnitude (so that another order of additions would round
// differently).
func TestEtaVectorIsScalar(t *testing.T) {
	requireVector(t)
	rng := rand.New(rand.NewPCG(24, 3))
	for _, tc := range []struct{ ds, da, d, rows int }{
		{3, 1, 200, 3}, {3, 1, 200, 1}, {1, 1, 4, 1}, {2, 1, 7, 2}, {2, 2, 16, 4}, {3, 1, 17, 5},
		{4, 1, 31, 16}, {4, 1, 33, 8}, {6, 2, 63, 6}, {2, 1, 63, 3}, {5, 2, 31, 3}, {1, 1, 9, 3}, {3, 1, 130, 17}, {8, 1, 201, 8}, {20, 12, 52, 9},
		{2, 0, 200, 3}, {3, 0, 9, 2}, {30, 10, 44, 5},
	} {
		f, err := NewRFF(tc.ds, tc.da, tc.d, 1, uint64(tc.d))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := NewGaussian(tc.rows, 1)
		w := make([]float64, tc.rows*tc.d)
		for i := range w {
			w[i] = math.Ldexp(2*rng.Float64()-1, rng.IntN(30)-15)
		}
		m := &Model{Dist: g, Feat: f, W: w}
		in := tc.ds + tc.da
		phi, eta := make([]float64, tc.d), make([]float64, tc.rows)
		wantPhi, want := make([]float64, tc.d), make([]float64, tc.rows)
		for range 300 {
			z := rffInputs(rng, in, 3)
			s, a := z[:tc.ds], z[tc.ds:]
			f.phiScalar(s, a, wantPhi)
			check := func(path string, dot func(x, y []float64) float64) {
				for j := range wantPhi {
					if math.Float64bits(phi[j]) != math.Float64bits(wantPhi[j]) {
						t.Fatalf("%+v, %s: phi_%d = %v, scalar %v", tc, path, j, phi[j], wantPhi[j])
					}
				}
				for k := range want {
					want[k] = dot(w[k*tc.d:(k+1)*tc.d], wantPhi)
					if math.Float64bits(eta[k]) != math.Float64bits(want[k]) {
						t.Fatalf("%+v, %s: eta_%d = %v, scalar %v", tc, path, k, eta[k], want[k])
					}
				}
			}
			fused := f.etaVector(s, a, w, phi, eta)
			if fused != (tc.rows <= maxFusedRows) {
				t.Fatalf("%+v: etaVector took the fused path: %v", tc, fused)
			}
			if fused {
				check("etaVector", Dot4)
			}
			clear(phi)
			clear(eta)
			m.Eta(s, a, phi, eta)
			if tc.d >= LongRow {
				check("Eta", Dot4)
			} else {
				check("Eta", Dot)
			}
		}
	}
}

// BenchmarkRFFPhiScalar is BenchmarkRFFPhi on the scalar loop.
func BenchmarkRFFPhiScalar(b *testing.B) {
	f, _ := NewRFF(3, 1, 200, 1, 7)
	_ = f.ScaleInputs([]float64{1, 1, 8, 2})
	s, a, out := []float64{0.3, 0.9, -2}, []float64{1}, make([]float64, 200)
	for i := 0; i < b.N; i++ {
		f.phiScalar(s, a, out)
		s[2] += out[0] * 1e-6
	}
}

// BenchmarkRFFEta is η = W φ(s, a) of the pendulum's learned model (d_s =
// 3, D = 200): one mean transition.
func BenchmarkRFFEta(b *testing.B) {
	f, _ := NewRFF(3, 1, 200, 1, 7)
	_ = f.ScaleInputs([]float64{1, 1, 8, 2})
	g, _ := NewGaussian(3, 1)
	w := rffInputs(rand.New(rand.NewPCG(1, 1)), 600, 1)
	m, _ := NewModel(g, f, w)
	s, a, phi, eta := []float64{0.3, 0.9, -2}, []float64{1}, make([]float64, 200), make([]float64, 3)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m.Eta(s, a, phi, eta)
		s[2] += eta[0] * 1e-6
	}
}
