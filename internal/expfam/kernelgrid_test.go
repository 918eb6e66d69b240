package expfam

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
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

// weightsPlain is KernelGrid.weights one node at a time with math.Exp,
// the rule as first written.
func weightsPlain(g *KernelGrid, eta, p []float64) float64 {
	top := math.Inf(-1)
	n := len(g.nodes)
	for i := range g.nodes {
		l := g.logq[i]
		for k := range g.m {
			l += g.cols[k*n+i] * eta[k]
		}
		p[i] = l
		top = max(top, l)
	}
	var s float64
	for i, l := range p[:len(g.nodes)] {
		p[i] = math.Exp(l - top)
		s += p[i]
	}
	return s
}

// TestKernelGridWeightsBand: the banded weights (terms T_gk below
// KernelGridCut left out, the exps by vmath) agree with the plain loop
// over every term within 1e-12 relative (every p_g and the sum: a left-out
// term moves l_g by < KernelGridCut·|η|₁, then a few roundings of l_g),
// for grids whose node count is and is not a multiple of four, random η of
// either sign, and bandwidths at which the bands do and do not cut.
func TestKernelGridWeightsBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 4))
	cut := false
	for _, m := range []int{1, 7, 30} {
		g, err := NewKernelGrid(m, 1.3)
		if err != nil {
			t.Fatal(err)
		}
		z := make([]float64, m)
		for k := range z {
			z[k] = 2*rng.NormFloat64() + 0.01*float64(k)
		}
		for _, sigma := range []float64{0.1, 0.3, 0.37, 1.1} {
			if err := g.Bind(z, sigma, 1.3); err != nil {
				t.Fatal(err)
			}
			for k := range m {
				cut = cut || g.band[2*k+1]-g.band[2*k] < len(g.nodes)
			}
			eta := make([]float64, m)
			var got, want [KernelGridNodes]float64
			for range 20 {
				for k := range eta {
					eta[k] = 3 * rng.NormFloat64()
				}
				sg, sw := g.weights(eta, got[:]), weightsPlain(g, eta, want[:])
				if !numeric.Within(sg, sw, 1e-12) {
					t.Fatalf("m %d σ %v (%d nodes): sum %v, plain %v", m, sigma, len(g.nodes), sg, sw)
				}
				for i := range g.nodes {
					if math.Abs(got[i]-want[i]) > 1e-12*want[i] {
						t.Fatalf("m %d σ %v (%d nodes): p_%d = %v, plain %v", m, sigma, len(g.nodes), i, got[i], want[i])
					}
				}
				if gm, wm := g.Mean(eta), meanPlain(g, eta); !numeric.Within(gm, wm, 1e-12) {
					t.Fatalf("m %d σ %v: mean %v, plain %v", m, sigma, gm, wm)
				}
			}
		}
	}
	if !cut {
		t.Error("no band left out a node: the test does not reach the cut")
	}
}

// meanPlain is KernelGrid.Mean by weightsPlain.
func meanPlain(g *KernelGrid, eta []float64) float64 {
	var p [KernelGridNodes]float64
	s := weightsPlain(g, eta, p[:])
	var sx float64
	for i, x := range g.nodes {
		sx += p[i] * x
	}
	return sx / s
}

// BenchmarkKernelGridMean: one E[x | η] of the grid rule at the ksm
// agent's sizes (m = 30 centres, the full KernelGridNodes = 160 nodes),
// the cost of one coordinate of one simulated step of its rollouts.
func BenchmarkKernelGridMean(b *testing.B) {
	const m = 30
	g, err := NewKernelGrid(m, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(36, 5))
	z := make([]float64, m)
	for k := range z {
		z[k] = 3 * (2*rng.Float64() - 1)
	}
	if err := g.Bind(z, 0.1, 1); err != nil {
		b.Fatal(err)
	}
	if len(g.nodes) != KernelGridNodes {
		b.Fatalf("%d nodes, want %d", len(g.nodes), KernelGridNodes)
	}
	eta := make([]float64, m)
	for k := range eta {
		eta[k] = rng.NormFloat64()
	}
	var sink float64
	for b.Loop() {
		sink += g.Mean(eta)
	}
	_ = sink
}

// Bind refuses a family its KernelGridNodes nodes cannot resolve (a step
// above σ: here [−7.8, 7.8] from b = 1.3, 0.098 apart, against σ = 0.05),
// as invalid settings naming base_scale, and binds the same centres at
// σ = 0.1.
func TestKernelGridRefusesUnresolvedBandwidth(t *testing.T) {
	g, err := NewKernelGrid(3, 1.3)
	if err != nil {
		t.Fatal(err)
	}
	z := []float64{-1, 0, 1}
	if err := g.Bind(z, 0.05, 1.3); !errors.Is(err, ErrKernelFamily) || !strings.HasPrefix(err.Error(), "base_scale:") {
		t.Errorf("σ = 0.05, b = 1.3: %v, want ErrKernelFamily naming base_scale", err)
	}
	if err := g.Bind(z, 0.1, 1.3); err != nil {
		t.Errorf("σ = 0.1, b = 1.3: %v", err)
	}
}
