package expfam

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/stats"
)

// quadMean is E[x | η] of the 1-D family f by its adaptive Gauss–Legendre
// quadrature: the mean of the quantiles at 20000 midpoints (the rule
// TestKernelGridAgainstQuadrature compares the grid with).
func quadMean(t *testing.T, f *Kernel, eta []float64) float64 {
	t.Helper()
	c, err := f.LineCDF(eta)
	if err != nil {
		t.Fatal(err)
	}
	const q = 20000
	var s float64
	for i := range q {
		s += f.Base * c.Quantile((float64(i)+0.5)/q)
	}
	return s / q
}

// boundChain is a chain of d = 2, m = 5: coordinate 0 bimodal, coordinate
// 1 tilted by s'_0 through A_1.
func boundChain(t *testing.T) (*KernelChain, []float64) {
	t.Helper()
	c, err := NewKernelChain(5, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	f0, err := NewKernel(1, []float64{-1, -0.5, 0, 0.5, 1}, 0.3, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	f1, err := NewKernel(1, []float64{-2, -1, 0, 1, 2}, 0.6, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(0, f0, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(1, f1, []float64{-2, -1, 0, 1, 2}); err != nil { // A_1: s'_0 > 0 pushes s'_1 up
		t.Fatal(err)
	}
	return c, []float64{2.5, 0, -1, 0, 2, 0.3, 0, 0.5, 0, 0.2}
}

// TestKernelChainMean: before a Bind the chain at η = 0 is its base
// measure (mean 0); bound, coordinate 0's mean is the quadrature mean of
// its family at η_0 and coordinate 1's the quadrature mean at η_1 + A_1
// s'_0 with s'_0 the chain's coordinate-0 mean, each within 1e-3·σ_i (the
// grid rule's tolerance, TestKernelGridAgainstQuadrature); A_1 moves
// coordinate 1; LogPartition of d > 1 refuses; ScoreTerms panics with
// ErrKernelChainScore.
func TestKernelChainMean(t *testing.T) {
	c0, err := NewKernelChain(4, []float64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 2)
	c0.Mean(make([]float64, 8), out)
	if math.Abs(out[0]) > 1e-12 || math.Abs(out[1]) > 1e-12 {
		t.Fatalf("unbound chain at η = 0: mean %v, want 0 (the base measure)", out)
	}
	c, eta := boundChain(t)
	c.Mean(eta, out)
	want0 := quadMean(t, c.Grid(0).Fam, eta[:5])
	e1 := make([]float64, 5)
	for k := range e1 {
		e1[k] = eta[5+k] + c.Prev(1)[k]*out[0]
	}
	want1 := quadMean(t, c.Grid(1).Fam, e1)
	if math.Abs(out[0]-want0) > 1e-3*0.3 || math.Abs(out[1]-want1) > 1e-3*0.6 {
		t.Errorf("chain mean %v, quadrature %v, %v", out, want0, want1)
	}
	if noA := quadMean(t, c.Grid(1).Fam, eta[5:]); math.Abs(noA-want1) < 0.05 {
		t.Errorf("A_1 s'_0 (s'_0 = %.3f) moved coordinate 1's mean by %.4f only", out[0], want1-noA)
	}
	if _, err := c.LogPartition(eta); !errors.Is(err, ErrKernelChainZ) {
		t.Errorf("LogPartition of d = 2: %v, want ErrKernelChainZ", err)
	}
	defer func() {
		if r := recover(); r != ErrKernelChainScore {
			t.Errorf("ScoreTerms: recovered %v, want ErrKernelChainScore", r)
		}
	}()
	c.ScoreTerms(out, make([]float64, 20), make([]float64, 10))
}

// TestKernelChainSample: draws of the chain pass Kolmogorov–Smirnov tests
// (n = 300, seeded; critical value 1.63/√n, 1%) against the
// quadrature CDFs: s'_0 against coordinate 0's CDF at η_0, and the
// probability integral transform F_1(s'_1 | η_1 + A_1 s'_0) of each
// pair against U(0, 1) (the conditional law given the drawn s'_0);
// LogDensity equals the sum of each conditional's log-density by
// quadrature.
func TestKernelChainSample(t *testing.T) {
	c, eta := boundChain(t)
	rng := rand.New(rand.NewPCG(36, 1))
	const n = 300
	x0, u1 := make([]float64, n), make([]float64, n)
	out, e1 := make([]float64, 2), make([]float64, 5)
	f0, f1 := c.Grid(0).Fam, c.Grid(1).Fam
	for i := range n {
		c.Sample(eta, rng, out)
		x0[i] = out[0]
		for k := range e1 {
			e1[k] = eta[5+k] + c.Prev(1)[k]*out[0]
		}
		cdf, err := f1.LineCDF(e1)
		if err != nil {
			t.Fatal(err)
		}
		u1[i] = cdf.At(out[1] / f1.Base)
	}
	cdf0, err := f0.LineCDF(eta[:5])
	if err != nil {
		t.Fatal(err)
	}
	crit := 1.63 / math.Sqrt(n)
	if d := stats.KS(x0, func(x float64) float64 { return cdf0.At(x / f0.Base) }); d > crit {
		t.Errorf("s'_0: KS distance %.4f > %.4f", d, crit)
	}
	if d := stats.KS(u1, func(u float64) float64 { return min(max(u, 0), 1) }); d > crit {
		t.Errorf("PIT of s'_1 given s'_0: KS distance %.4f > %.4f", d, crit)
	}
	x := []float64{0.4, -0.7}
	got, err := c.LogDensity(x, eta)
	if err != nil {
		t.Fatal(err)
	}
	for k := range e1 {
		e1[k] = eta[5+k] + c.Prev(1)[k]*x[0]
	}
	var want float64
	for i, e := range [][]float64{eta[:5], e1} {
		f := c.Grid(i).Fam
		lz, err := f.LogPartition(e)
		if err != nil {
			t.Fatal(err)
		}
		psi := make([]float64, 5)
		f.Psi(x[i:i+1], psi)
		want += f.LogBase(x[i:i+1]) + Dot(psi, e) - lz
	}
	if math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("LogDensity %v, sum of the conditionals %v", got, want)
	}
}
