package estimator

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// TestReleasedFactorIsReused: a refit after Fit.Release writes its factor
// into the released one's memory (no new d×d allocation) and gives the
// bits of an estimator that never released, for SM (one factorisation
// shared by every row) and LDS, below and above linalg.MinPotrf; a
// released Fit panics when used.
func TestReleasedFactorIsReused(t *testing.T) {
	const ds = 3
	for _, dphi := range []int{40, 300} {
		g, err := expfam.NewGaussian(ds, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		type est struct {
			add func(phi, next []float64)
			fit func() (*Fit, error)
		}
		sm, smTwin := NewSM(g, dphi), NewSM(g, dphi)
		lds, ldsTwin := NewLDS(ds, dphi), NewLDS(ds, dphi)
		for _, c := range []struct {
			name    string
			e, twin est
		}{
			{"sm", est{sm.Add, func() (*Fit, error) { return sm.Fit(1e-3) }}, est{smTwin.Add, func() (*Fit, error) { return smTwin.Fit(1e-3) }}},
			{"lds", est{lds.Add, func() (*Fit, error) { return lds.Fit(1e-3) }}, est{ldsTwin.Add, func() (*Fit, error) { return ldsTwin.Fit(1e-3) }}},
		} {
			name := fmt.Sprintf("%s d_phi %d", c.name, dphi)
			rng := rand.New(rand.NewPCG(uint64(dphi), 5))
			phi, next := make([]float64, dphi), make([]float64, ds)
			var last *Fit
			var released *float64
			for episode := range 4 {
				for range 60 {
					for j := range phi {
						phi[j] = rng.NormFloat64()
					}
					for k := range next {
						next[k] = rng.NormFloat64()
					}
					c.e.add(phi, next)
					c.twin.add(phi, next)
				}
				f, err := c.e.fit()
				if err != nil {
					t.Fatal(name, err)
				}
				want, err := c.twin.fit()
				if err != nil {
					t.Fatal(name, err)
				}
				numeric.RequireSameBits(t, fmt.Sprintf("%s episode %d: W", name, episode), f.W, want.W)
				if got, w := f.LogDet(), want.LogDet(); got != w {
					t.Fatalf("%s episode %d: log det %v, want %v", name, episode, got, w)
				}
				if at := &f.blocks[0].c.u[0]; released != nil && at != released {
					t.Fatalf("%s episode %d: the refit allocated a new factor; want the released one's", name, episode)
				}
				if last != nil {
					released = &last.blocks[0].c.u[0]
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
