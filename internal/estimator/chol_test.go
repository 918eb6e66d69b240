package estimator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/simd"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// gonumRefit is the refit of a Gaussian SM as it was done through gonum's
// mat.Cholesky: scale·V_b + λI in a SymDense, Factorize, and all rows of W
// by one SolveTo with d_s right-hand sides. It returns Ŵ and the
// factorisation.
func gonumRefit(t *testing.T, e *SM, lambda float64) ([]float64, *mat.Cholesky) {
	t.Helper()
	d, a := e.dphi, e.blocks[0]
	s := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			v := a[i*d+j]
			if e.constC != 1 {
				v *= e.constC
			}
			if i == j {
				v += lambda
			}
			s.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		t.Fatal("gonum: not positive definite")
	}
	b := mat.NewDense(d, e.dpsi, nil)
	for r := range e.dpsi {
		for i := range d {
			b.Set(i, r, e.b[r*d+i])
		}
	}
	if err := ch.SolveTo(b, b); err != nil {
		t.Fatal(err)
	}
	w := make([]float64, e.dpsi*d)
	for r := range e.dpsi {
		for i := range d {
			w[r*d+i] = -b.At(i, r)
		}
	}
	return w, &ch
}

// TestFitIsGonumCholesky: the Gaussian SM's refit through factor and
// cholesky gives mat.Cholesky's bits: Ŵ, the factor U, log det, the
// condition estimate, and the single-vector solve and the inverse, below
// and above linalg.MinPotrf (300 and 2000 features, where the blocked
// Cholesky, the narrow solve and the condition estimate's kernels run),
// with the family's scale c = 1/σ⁴ ≠ 1 and = 1.
func TestFitIsGonumCholesky(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("gonum's Go loops may fuse multiply-adds in this build")
	}
	cases := []struct {
		dphi, n, ds   int
		sigma, lambda float64
	}{
		{40, 120, 3, 0.5, 0.1},
		{300, 400, 17, 1, 1e-3},
		{2000, 300, 17, 0.5, 1e-3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("D%d", c.dphi), func(t *testing.T) {
			if c.dphi > 1000 && !simd.AVX512 {
				// 4 s with the Go twins (SMRL_NOSIMD, purego): linalg's
				// tests hold each twin to its kernel's bits.
				t.Skip("D = 2000 without the AVX-512 kernels")
			}
			g, err := expfam.NewGaussian(c.ds, c.sigma)
			if err != nil {
				t.Fatal(err)
			}
			e := NewSM(g, c.dphi)
			rng := rand.New(rand.NewPCG(uint64(c.dphi), 5))
			phi, next := make([]float64, c.dphi), make([]float64, c.ds)
			for range c.n {
				for j := range phi {
					phi[j] = math.Cos(rng.NormFloat64() + float64(j))
				}
				for k := range next {
					next[k] = phi[k] + 0.3*rng.NormFloat64()
				}
				e.Add(phi, next)
			}
			f, err := e.Fit(c.lambda)
			if err != nil {
				t.Fatal(err)
			}
			want, ch := gonumRefit(t, e, c.lambda)
			testutil.RequireSameBits(t, "Ŵ", f.W, want)
			fz := f.blocks[0].c
			if fz.condKnown {
				t.Fatal("the condition estimate was computed: V is a Gram matrix, its bound should have let it wait")
			}
			var u mat.TriDense
			ch.UTo(&u)
			wantU := make([]float64, c.dphi*c.dphi)
			for i := range c.dphi {
				for j := i; j < c.dphi; j++ {
					wantU[i*c.dphi+j] = u.At(i, j)
				}
			}
			testutil.RequireSameBits(t, "U", fz.upper(), wantU)
			testutil.RequireSameBits(t, "log det, cond", []float64{fz.LogDet(), fz.Cond()}, []float64{ch.LogDet(), ch.Cond()})
			rhs := mat.NewVecDense(c.dphi, append([]float64(nil), e.b[:c.dphi]...))
			var got, ref mat.VecDense
			if err := fz.SolveVecTo(&got, rhs); err != nil {
				t.Fatal(err)
			}
			if err := ch.SolveVecTo(&ref, rhs); err != nil {
				t.Fatal(err)
			}
			testutil.RequireSameBits(t, "SolveVecTo", got.RawVector().Data, ref.RawVector().Data)
			if c.dphi <= 300 {
				var inv, invRef mat.SymDense
				if err := fz.InverseTo(&inv); err != nil {
					t.Fatal(err)
				}
				if err := ch.InverseTo(&invRef); err != nil {
					t.Fatal(err)
				}
				for i := range c.dphi {
					for j := range c.dphi {
						if math.Float64bits(inv.At(i, j)) != math.Float64bits(invRef.At(i, j)) {
							t.Fatalf("inverse (%d, %d) = %v, gonum's %v", i, j, inv.At(i, j), invRef.At(i, j))
						}
					}
				}
			}
		})
	}
}

// TestFactorRefusesAsGonum: a matrix that is not positive definite, and one
// whose condition estimate passes maxCond, are refused with ErrSingular.
func TestFactorRefusesAsGonum(t *testing.T) {
	a := []float64{1, 2, 0, 1} // [[1 2] [2 1]]: eigenvalues 3 and −1
	if _, err := factor(nil, a, 2, 1, 0, "test", 3, 0); err == nil {
		t.Fatal("an indefinite matrix was factorised")
	}
	b := []float64{1, 1, 0, 1 + 1e-15} // nearly singular: cond ≈ 4e15
	if _, err := factor(nil, b, 2, 1, 0, "test", 3, 0); err == nil {
		t.Fatal("a matrix of condition 4e15 was accepted")
	}
	if c, err := factor(nil, b, 2, 1, 1e-3, "test", 3, 0); err != nil || !(c.Cond() < maxCond) {
		t.Fatalf("with λ = 1e-3: %v, cond %v", err, c)
	}
}

// TestFactorAllocatesTheFactorOnly: a refit's factorisation allocates the
// d×d factor and O(d) scratch, nothing else of size d² (before, a scratch
// copy of V + λI and a second triangle); measured in bytes at d = 400.
func TestFactorAllocatesTheFactorOnly(t *testing.T) {
	const d = 400
	a := make([]float64, d*d)
	for i := range d {
		a[i*d+i] = 2
		for j := i + 1; j < d; j++ {
			a[i*d+j] = 1 / float64(1+j-i)
		}
	}
	if _, err := factor(nil, a, d, 1, 1e-3, "test", 1, 0); err != nil { // warm: gemm's buffers
		t.Fatal(err)
	}
	// The least of five calls: gemm's buffers come from a sync.Pool, whose
	// per-P slots miss when the goroutine changed P between two calls.
	got := uint64(math.MaxUint64)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := factor(nil, a, d, 1, 1e-3, "test", 1, 0); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		got = min(got, after.TotalAlloc-before.TotalAlloc)
	}
	if most := uint64(8*d*d + 64*d); got > most {
		t.Fatalf("factor at d = %d allocated %d bytes, want at most %d (the factor and O(d))", d, got, most)
	}
}
