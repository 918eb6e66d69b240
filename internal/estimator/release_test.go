package estimator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// TestReleasedFactorIsReused: a refit after Fit.Release writes its factors
// into the released ones' memory (no new d×d allocation) and every output
// has the bits of an estimator that never released: W, log det, the
// norm, InvSqrt, the smallest semi-axis (which reads the whole slice) and
// the conditioning; every factor it hands out is zero below the
// diagonal. For SM with one factorisation shared by every row (Gaussian),
// SM with one per row (a product of sin families: separable) and LDS,
// below and above linalg.MinPotrf, with a failing fit (λ = 0 on fewer
// transitions than features) between refits. A released Fit panics when
// used, and a second Release does nothing.
func TestReleasedFactorIsReused(t *testing.T) {
	const ds = 2
	gauss, err := expfam.NewGaussian(ds, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	sin, err := expfam.NewSin(2, 1.7)
	if err != nil {
		t.Fatal(err)
	}
	prod, err := expfam.NewProduct(sin, ds)
	if err != nil {
		t.Fatal(err)
	}
	type est struct {
		add func(phi, next []float64)
		fit func(lambda float64) (*Fit, error)
	}
	smEst := func(fam expfam.Family, dphi int) est {
		e := NewSM(fam, dphi)
		return est{e.Add, e.Fit}
	}
	ldsEst := func(_ expfam.Family, dphi int) est {
		e := NewLDS(ds, dphi)
		return est{e.Add, e.Fit}
	}
	for _, dphi := range []int{40, 300} {
		for _, c := range []struct {
			name string
			fam  expfam.Family
			make func(expfam.Family, int) est
		}{{"sm gaussian", gauss, smEst}, {"sm separable", prod, smEst}, {"lds", nil, ldsEst}} {
			name := fmt.Sprintf("%s d_phi %d", c.name, dphi)
			e, twin := c.make(c.fam, dphi), c.make(c.fam, dphi)
			rng := rand.New(rand.NewPCG(uint64(dphi), 5))
			phi, next := make([]float64, dphi), make([]float64, ds)
			var last *Fit
			var released []*float64
			for episode := range 5 {
				for range 60 {
					for j := range phi {
						phi[j] = rng.NormFloat64()
					}
					for k := range next {
						next[k] = rng.Float64()*6 - 3
					}
					e.add(phi, next)
					twin.add(phi, next)
				}
				if episode == 2 && 60*3 < dphi { // a failing fit between refits
					if _, err := e.fit(0); err == nil {
						t.Fatalf("%s: λ = 0 on %d transitions of %d features: no error", name, 60*3, dphi)
					}
				}
				f, err := e.fit(1e-3)
				if err != nil {
					t.Fatal(name, err)
				}
				want, err := twin.fit(1e-3)
				if err != nil {
					t.Fatal(name, err)
				}
				what := fmt.Sprintf("%s episode %d", name, episode)
				sameFit(t, what, f, want, rng)
				if released != nil {
					for _, b := range f.blocks {
						if !slices.Contains(released, &b.c.u[0]) {
							t.Fatalf("%s: the refit allocated a new factor; want the released ones'", what)
						}
					}
				}
				if last != nil {
					released = released[:0]
					for _, b := range last.blocks {
						released = append(released, &b.c.u[0])
					}
					last.Release()
					last.Release() // a second time: nothing more
				}
				last = f
			}
			if released == nil {
				t.Fatal(name, "nothing was released")
			}
		}
	}
	f, err := func() (*Fit, error) {
		e := NewLDS(1, 2)
		e.Add([]float64{1, 0}, []float64{1})
		e.Add([]float64{0, 1}, []float64{2})
		return e.Fit(1e-3)
	}()
	if err != nil {
		t.Fatal(err)
	}
	f.Release()
	defer func() {
		if recover() == nil {
			t.Fatal("a released Fit's LogDet did not panic")
		}
	}()
	f.LogDet()
}

// sameFit requires f and want to agree bit for bit in every output that
// reads the factors, and f's factors to be zero below the diagonal.
func sameFit(t *testing.T, what string, f, want *Fit, rng *rand.Rand) {
	t.Helper()
	numeric.RequireSameBits(t, what+": W", f.W, want.W)
	delta := make([]float64, len(f.W))
	for i := range delta {
		delta[i] = rng.NormFloat64()
	}
	got, wantOut := make([]float64, len(f.W)), make([]float64, len(f.W))
	if err := f.InvSqrt(delta, got); err != nil {
		t.Fatal(what, err)
	}
	if err := want.InvSqrt(delta, wantOut); err != nil {
		t.Fatal(what, err)
	}
	numeric.RequireSameBits(t, what+": InvSqrt", got, wantOut)
	gc, gok := f.Conditioning()
	wc, wok := want.Conditioning()
	scalars := [][2]float64{{f.LogDet(), want.LogDet()}, {f.Norm(delta), want.Norm(delta)},
		{f.MinSemiAxis(), want.MinSemiAxis()}, {gc.Cond, wc.Cond}, {gc.MinEig, wc.MinEig}}
	for i, s := range scalars {
		if math.Float64bits(s[0]) != math.Float64bits(s[1]) || gok != wok {
			t.Fatalf("%s: output %d (log det, norm, semi-axis, cond, min eig) %v, want %v", what, i, s[0], s[1])
		}
	}
	for _, b := range f.blocks {
		u, n := b.c.u, b.c.n
		for i := range n {
			for j := range i {
				if math.Float64bits(u[i*n+j]) != 0 {
					t.Fatalf("%s: factor entry (%d, %d) below the diagonal is %v, want +0", what, i, j, u[i*n+j])
				}
			}
		}
	}
}
