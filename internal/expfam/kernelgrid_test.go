package expfam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/stats"
)

// TestKernelGridAgainstQuadrature: the grid rule's mean of a bimodal tilt
// equals the mean by Kernel's adaptive Gauss–Legendre quadrature (the
// mean of its quantiles at 20000 midpoints, an independent rule) within
// 1e-3·σ, and the grid's draws pass a Kolmogorov–Smirnov test (0.1%,
// n = 4000, seeded) against the quadrature's CDF; Psi, Score and LogQ are
// the Kernel's; a rebind to other centres moves the mean.
func TestKernelGridAgainstQuadrature(t *testing.T) {
	z := []float64{-1.2, -0.7, -0.2, 0.3, 0.8, 1.3}
	g, err := NewKernelGrid(len(z), 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if m := g.Mean(make([]float64, len(z))); math.Abs(m) > 1e-12 {
		t.Fatalf("unbound family at η = 0: mean %v, want 0 (the base N(0, b²))", m)
	}
	if err := g.Bind(z, 0.25, 0.8); err != nil {
		t.Fatal(err)
	}
	eta := []float64{3, 0.5, -1, -1.5, 0.2, 2.5} // two bumps, at −1.2 and 1.3
	c, err := g.Fam.LineCDF(eta)
	if err != nil {
		t.Fatal(err)
	}
	const q = 20000
	var want float64
	for i := range q {
		want += g.Fam.Base * c.Quantile((float64(i)+0.5)/q)
	}
	want /= q
	if got := g.Mean(eta); math.Abs(got-want) > 1e-3*g.Fam.Sigma {
		t.Errorf("grid mean %.6f, quadrature mean %.6f", got, want)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 4000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = g.Sample(eta, rng)
	}
	if d := stats.KS(xs, func(x float64) float64 { return c.At(x / g.Fam.Base) }); d > 1.95/math.Sqrt(n) {
		t.Errorf("KS distance %.4f of grid draws from the quadrature CDF exceeds %.4f", d, 1.95/math.Sqrt(n))
	}
	psi, want2 := make([]float64, len(z)), make([]float64, len(z))
	g.Psi(0.4, psi)
	g.Fam.Psi([]float64{0.4}, want2)
	for k := range psi {
		if psi[k] != want2[k] {
			t.Fatalf("Psi %v, Kernel's %v", psi, want2)
		}
	}
	lz, err := g.LogPartition(eta)
	if err != nil {
		t.Fatal(err)
	}
	if want := c.LogZ + math.Log(g.Fam.Base); lz != want {
		t.Errorf("LogPartition %v, quadrature %v", lz, want)
	}
	moved := append([]float64(nil), z...)
	for k := range moved {
		moved[k] += 1
	}
	before := g.Mean(eta)
	if err := g.Bind(moved, 0.25, 0.8); err != nil {
		t.Fatal(err)
	}
	if after := g.Mean(eta); !(after > before+0.1) {
		t.Errorf("centres moved by +1: mean %v → %v", before, after)
	}
	if err := g.Bind(z[:3], 0.25, 0.8); err == nil {
		t.Error("3 centres bound to a family of 6: no error")
	}
}
