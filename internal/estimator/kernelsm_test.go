package estimator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"gonum.org/v1/gonum/mat"
)

// kernelData draws n transitions of a 1-D or d-D problem with a nonlinear,
// state-dependent next state: phi = [1, s, s², …] features of s ~ N(0, 1)
// and s' = sin(s) + noise, scored by a kernel family of m centres.
func kernelData(t testing.TB, d, m, dphi, n int, seed uint64) (*KernelSM, *SM) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	z := make([]float64, m*d)
	for i := range z {
		z[i] = 2 * (rng.Float64() - 0.5) * 2
	}
	f, err := expfam.NewKernel(d, z, 0.8, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	k := NewKernelSM(f, dphi)
	var dense *SM
	if m*dphi <= 400 {
		dense = NewSM(f, dphi)
	}
	phi := make([]float64, dphi)
	next := make([]float64, d)
	for range n {
		s := rng.NormFloat64()
		for j := range phi {
			phi[j] = math.Cos(float64(j)*s + float64(j))
		}
		for i := range next {
			next[i] = math.Sin(s+float64(i)) + 0.4*rng.NormFloat64()
			if rng.Float64() < 0.3 {
				next[i] += 1.5
			}
		}
		k.Add(phi, next)
		if dense != nil {
			dense.Add(phi, next)
		}
	}
	return k, dense
}

func relErr(got, want []float64) float64 {
	var num, den float64
	for i := range got {
		num += (got[i] - want[i]) * (got[i] - want[i])
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

// TestKernelSMStructured: the matrix-free product equals the dense V (formed
// term by term) and the CG solve equals a dense Cholesky solve of the same
// V + λI, b to 1e-9; the SM fit equals the generic SM accumulator's dense
// fit (an independent accumulation of V and b through Family.ScoreTerms).
func TestKernelSMStructured(t *testing.T) {
	for _, c := range []struct{ d, m, dphi, n int }{{1, 6, 5, 300}, {2, 7, 4, 200}, {3, 5, 6, 150}} {
		k, dense := kernelData(t, c.d, c.m, c.dphi, c.n, uint64(c.m))
		dd := c.m * c.dphi
		v := k.DenseV()
		rng := rand.New(rand.NewPCG(1, 1))
		w := make([]float64, dd)
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		got := make([]float64, dd)
		k.MulV(w, got)
		want := make([]float64, dd)
		mat.NewVecDense(dd, want).MulVec(mat.NewDense(dd, dd, v), mat.NewVecDense(dd, w))
		if e := relErr(got, want); e > 1e-12 {
			t.Errorf("%+v: matrix-free V·w off the dense product by %.3g", c, e)
		}
		const lambda = 1e-3
		k.Tol = 1e-14
		ks, err := k.Fit(lambda, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := mat.NewSymDense(dd, nil)
		for i := range dd {
			for j := range dd {
				a.SetSym(i, j, v[i*dd+j])
			}
			a.SetSym(i, i, v[i*dd+i]+lambda)
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			t.Fatal("dense V + λI not positive definite")
		}
		b := k.B()
		rhs := mat.NewVecDense(dd, nil)
		for i, x := range b {
			rhs.SetVec(i, -x)
		}
		var ref mat.VecDense
		if err := ch.SolveVecTo(&ref, rhs); err != nil {
			t.Fatal(err)
		}
		if e := relErr(ks, ref.RawVector().Data); e > 1e-9 {
			t.Errorf("%+v: CG solve off the dense solve by %.3g", c, e)
		}
		fit, err := dense.Fit(lambda)
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(ks, fit.W); e > 1e-9 {
			t.Errorf("%+v: kernel SM off the generic dense SM by %.3g", c, e)
		}
		// The loss is ½wᵀVw + bᵀw: its value at Ŵ against the dense form.
		var quad float64
		for i := range dd {
			for j := range dd {
				quad += ks[i] * v[i*dd+j] * ks[j]
			}
		}
		lw := 0.5*quad + expfam.Dot(b, ks)
		if l := k.Loss(ks); math.Abs(l-lw) > 1e-9*math.Abs(lw) {
			t.Errorf("%+v: loss %.12g, dense %.12g", c, l, lw)
		}
		it, _ := k.Iterations()
		t.Logf("%+v: %d CG iterations", c, it)
	}
}

// BenchmarkKernelSMFit is the cost target: one fit with m = 100
// centres, d_phi = 100 features, n = 10⁴ transitions (d = 1), at
// λ = 1e-4·n, 1e-3·n and 1e-2·n, relative residual 1e-6, two workers.
func BenchmarkKernelSMFit(b *testing.B) {
	const d, m, dphi, n = 1, 100, 100, 10000
	k, _ := kernelData(b, d, m, dphi, n, 5)
	k.Tol, k.Workers = 1e-6, 2
	for _, rel := range []float64{1e-4, 1e-3, 1e-2} {
		b.Run(fmt.Sprintf("lambda=%g", rel*n), func(b *testing.B) {
			for range b.N {
				k.preReady = false
				if _, err := k.Fit(rel*n, nil); err != nil {
					b.Fatal(err)
				}
			}
			it, res := k.Iterations()
			b.ReportMetric(float64(k.blk.r), "rank")
			b.ReportMetric(float64(it), "iterations")
			b.ReportMetric(res, "relres")
		})
	}
}

// TestKernelSMWorkers: the product's chunks are fixed, so Ŵ has the same
// bits with one worker or two.
func TestKernelSMWorkers(t *testing.T) {
	k, _ := kernelData(t, 1, 20, 10, 500, 3)
	k.Tol = 1e-10
	w1, err := k.Fit(1e-2, nil)
	if err != nil {
		t.Fatal(err)
	}
	k.Workers = 2
	w2, err := k.Fit(1e-2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w1 {
		if math.Float64bits(w1[i]) != math.Float64bits(w2[i]) {
			t.Fatalf("W[%d]: %v with one worker, %v with two", i, w1[i], w2[i])
		}
	}
}

// TestFitKernelRefusals: every bad setting is refused naming its key;
// fewer distinct next states than centres are refused naming centres,
// and distinct ones closer than 1e-9 bandwidths as coinciding.
func TestFitKernelRefusals(t *testing.T) {
	phi := []float64{1, 1, 1, 1}
	next := []float64{0.1, 0.5, -0.3, 0.9}
	good := KernelOptions{Centres: 2, Lambdas: []float64{1}, Bandwidths: []float64{0.5}, Folds: 2}
	for _, c := range []struct {
		edit func(o *KernelOptions)
		key  string
	}{
		{func(o *KernelOptions) { o.Centres = 5 }, "centres"},
		{func(o *KernelOptions) { o.Centres = 0 }, "centres"},
		{func(o *KernelOptions) { o.Bandwidths = []float64{0} }, "bandwidth"},
		{func(o *KernelOptions) { o.Bandwidths = []float64{math.NaN()} }, "bandwidth"},
		{func(o *KernelOptions) { o.Bandwidths = []float64{-1} }, "bandwidth"},
		{func(o *KernelOptions) { o.BaseScale = math.NaN() }, "base_scale"},
		{func(o *KernelOptions) { o.Lambdas = []float64{0} }, "lambda"},
		{func(o *KernelOptions) { o.Lambdas = nil }, "lambda"},
	} {
		o := good
		c.edit(&o)
		_, err := FitKernel(phi, next, 1, 1, o)
		if !errors.Is(err, ErrKernelSettings) || !strings.HasPrefix(err.Error(), c.key+":") {
			t.Errorf("%+v: got %v, want ErrKernelSettings naming %s", o, err, c.key)
		}
	}
	if _, err := FitKernel(phi, []float64{0.2, 0.2, 0.2, 0.2}, 1, 1, good); !errors.Is(err, ErrKernelSettings) || !strings.HasPrefix(err.Error(), "base_scale:") {
		t.Errorf("constant next states: got %v, want base_scale refused", err)
	}
	all := good
	all.Centres = 4
	if _, err := FitKernel(phi, []float64{0.2, 0.2, 0.2, 0.5}, 1, 1, all); !errors.Is(err, ErrKernelSettings) || !strings.HasPrefix(err.Error(), "centres:") || !strings.Contains(err.Error(), "only 2 distinct values") {
		t.Errorf("fewer distinct next states than centres: got %v", err)
	}
	// Distinct but within 1e-9 bandwidths: the centres coincide numerically.
	if _, err := FitKernel(phi, []float64{0.2, 0.2 + 1e-12, 0.7, 0.5}, 1, 1, all); !errors.Is(err, expfam.ErrKernelCentres) || !errors.Is(err, ErrKernelSettings) {
		t.Errorf("coinciding centres: got %v", err)
	}
	if _, err := FitKernel(phi, next, 1, 1, good); err != nil {
		t.Errorf("good settings refused: %v", err)
	}
}
