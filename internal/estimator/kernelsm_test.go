package estimator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
	"golang.org/x/sys/unix"
	"gonum.org/v1/gonum/mat"
)

// kernelData draws n transitions of a 1-D or d-D problem with a nonlinear,
// state-dependent next state: phi = [1, s, s², …] features of s ~ N(0, 1)
// and s' = sin(s) + noise, scored by a kernel family of m centres.
func kernelData(t testing.TB, d, m, dphi, n int, seed uint64) (*KernelSM, *SM) {
	t.Helper()
	return kernelDataWith(t, d, m, dphi, n, seed, m*dphi <= 400)
}

// kernelDataWith is kernelData, with the generic dense accumulator only
// when withDense.
func kernelDataWith(t testing.TB, d, m, dphi, n int, seed uint64, withDense bool) (*KernelSM, *SM) {
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
	if withDense {
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
		var tr float64
		for i := range dd {
			tr += v[i*dd+i]
		}
		if e := math.Abs(k.TraceV()-tr) / tr; e > 1e-12 {
			t.Errorf("%+v: TraceV %v, the dense V's trace %v", c, k.TraceV(), tr)
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
// centres, d_phi = 100 features, n = 10⁴ transitions, relative residual
// 1e-6, two workers, in d = 1 at λ = 1e-5·n … 1e-2·n and in d = 2, 3 at
// λ = 1e-4·n … 1e-2·n. Each fit starts afresh (no preconditioner kept
// from the last). Besides the wall time per fit it reports the process's
// CPU time per fit (cpu-s/op, both workers), the CG iterations and the
// rank of the block preconditioner (0: Jacobi alone). SMRL_KSM_NOBLOCK=1
// runs Jacobi alone throughout, for the comparison.
func BenchmarkKernelSMFit(b *testing.B) {
	const m, dphi, n = 100, 100, 10000
	for _, d := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) { benchKernelSMFit(b, d, m, dphi, n) })
	}
}

// benchKernelSMFit is BenchmarkKernelSMFit's fits in d (the data drawn only
// when a λ of it is selected).
func benchKernelSMFit(b *testing.B, d, m, dphi, n int) {
	rels := []float64{1e-5, 1e-4, 1e-3, 1e-2}
	if d > 1 {
		rels = rels[1:]
	}
	k, _ := kernelData(b, d, m, dphi, n, 5)
	k.Tol, k.Workers = 1e-6, 2
	k.noBlock = os.Getenv("SMRL_KSM_NOBLOCK") == "1"
	for _, rel := range rels {
		b.Run(fmt.Sprintf("lambda=%g", rel*float64(n)), func(b *testing.B) {
			c0 := processCPU(b)
			for range b.N {
				k.preReady = false
				if _, err := k.Fit(rel*float64(n), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU(b)-c0)/1e9/float64(b.N), "cpu-s/op")
			it, res := k.Iterations()
			b.ReportMetric(float64(it), "iterations")
			b.ReportMetric(float64(k.blk.fr), "rank")
			b.ReportMetric(res, "relres")
		})
	}
}

// processCPU is the user and system CPU time of the process so far, in
// nanoseconds.
func processCPU(b *testing.B) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestKernelSMWorkers: the product's chunks and the block's distinct sums
// are split in a fixed way, so V_11 and Ŵ have the same bits with one
// worker or two (two fresh accumulators: the block is formed by each); at
// d_phi = 100 one worker makes the 5050 sums (j, i) in two groups, two
// workers in one each.
func TestKernelSMWorkers(t *testing.T) {
	for _, c := range []struct {
		m, dphi, n int
		lambda     float64
	}{{20, 10, 500, 1e-2}, {20, 100, 300, 10}} {
		kernelSMWorkers(t, c.m, c.dphi, c.n, c.lambda)
	}
}

func kernelSMWorkers(t *testing.T, m, dphi, n int, lambda float64) {
	var w [2][]float64
	var v [2][]float64
	for i := range w {
		k, _ := kernelDataWith(t, 1, m, dphi, n, 3, false)
		k.Tol, k.Workers = 1e-10, i+1
		var err error
		if w[i], err = k.Fit(lambda, nil); err != nil {
			t.Fatal(err)
		}
		if k.blk.fr == 0 {
			t.Fatal("no block formed: the test does not reach its split")
		}
		v[i] = k.blk.v
	}
	for i := range v[0] {
		if math.Float64bits(v[0][i]) != math.Float64bits(v[1][i]) {
			t.Fatalf("V_11 entry %d: %v with one worker, %v with two", i, v[0][i], v[1][i])
		}
	}
	for i := range w[0] {
		if math.Float64bits(w[0][i]) != math.Float64bits(w[1][i]) {
			t.Fatalf("W[%d]: %v with one worker, %v with two", i, w[0][i], w[1][i])
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

// BenchmarkKernelSMMulV is one matrix-free product V·w of the fit's size
// (m = d_phi = 100, n = 10⁴, d = 1) on one worker: 4·n·m·d_phi = 4·10⁸
// flops. It reports the least thread CPU time of a product over groups of
// five (min-cpu-ns/op, the figure least disturbed on a shared machine)
// and the GFLOP/s of that time.
func BenchmarkKernelSMMulV(b *testing.B) {
	const d, m, dphi, n = 1, 100, 100, 10000
	k, _ := kernelData(b, d, m, dphi, n, 5)
	w, out := make([]float64, m*dphi), make([]float64, m*dphi)
	for i := range w {
		w[i] = float64(i%7) - 3
	}
	k.MulV(w, out)
	best := testutil.FastestCPU(b, 5, func() { k.MulV(w, out) })
	b.ReportMetric(4*n*m*dphi/best, "GFLOP/s")
}

// TestKernelSMBlock checks the block preconditioner where it leaves a tail
// (m = 30, d_phi = 8, n = 800, λ = 0.1: rank 10 of 30):
//   - its rank is the least r with φ² μ_{r+1} ≤ δ² λ;
//   - every eigenvalue of P^{-1/2} (V + λI) P^{-1/2}, from P⁻¹ applied to
//     the unit vectors and the dense V, lies in the stated interval
//     [1/(1+δ²) − δ, 1 + δ + δ²];
//   - CG through the switch from Jacobi to the block equals a dense
//     Cholesky solve (1e-9) and Jacobi alone (1e-9), in at most the
//     iterations the interval promises after the switch;
//   - a Solve after one that formed a larger block (a smaller λ) gives the
//     bits of a fresh accumulator's.
func TestKernelSMBlock(t *testing.T) {
	const m, dphi, n, lambda = 30, 8, 800, 0.1
	k, _ := kernelDataWith(t, 1, m, dphi, n, 7, false)
	if err := k.prepare(); err != nil {
		t.Fatal(err)
	}
	r, bounded := k.blockRank(lambda)
	bound := blockDelta * blockDelta * lambda
	if !(bounded && r > 0 && r < m && k.phiMax2*k.mu[r] <= bound && k.phiMax2*k.mu[r-1] > bound) {
		t.Fatalf("rank %d: φ²μ_r = %g, φ²μ_{r+1} = %g, δ²λ = %g", r, k.phiMax2*k.mu[max(r-1, 0)], k.phiMax2*k.mu[min(r, m-1)], bound)
	}
	dd := m * dphi
	v := k.DenseV()
	for i := range dd {
		v[i*dd+i] += lambda
	}
	k.formBlock(r)
	if !k.factorBlock(r, lambda) {
		t.Fatal("block not positive definite")
	}
	k.useBlock = true
	pinv := make([]float64, dd*dd)
	unit, col := make([]float64, dd), make([]float64, dd)
	for j := range dd {
		clear(unit)
		unit[j] = 1
		k.precondition(lambda, unit, col)
		for i, x := range col {
			pinv[i*dd+j] = x
		}
	}
	sym := mat.NewSymDense(dd, nil)
	for i := range dd {
		for j := i; j < dd; j++ {
			sym.SetSym(i, j, (pinv[i*dd+j]+pinv[j*dd+i])/2)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		t.Fatal("P⁻¹ not positive definite")
	}
	var l, lt, prod mat.Dense
	var ltri mat.TriDense
	ch.LTo(&ltri)
	l.CloneFrom(&ltri)
	lt.CloneFrom(l.T())
	prod.Mul(&lt, mat.NewDense(dd, dd, v))
	prod.Mul(&prod, &l)
	ps := mat.NewSymDense(dd, nil)
	for i := range dd {
		for j := i; j < dd; j++ {
			ps.SetSym(i, j, (prod.At(i, j)+prod.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(ps, false) {
		t.Fatal("eigenvalues failed")
	}
	vals := eig.Values(nil)
	const d2 = blockDelta * blockDelta
	lo, hi := 1/(1+d2)-blockDelta, 1+blockDelta+d2
	if vals[0] < lo-1e-9 || vals[dd-1] > hi+1e-9 {
		t.Errorf("preconditioned spectrum [%.6g, %.6g], bound [%.6g, %.6g]", vals[0], vals[dd-1], lo, hi)
	}
	t.Logf("rank %d of %d: preconditioned spectrum [%.6g, %.6g] within [%.6g, %.6g]", r, m, vals[0], vals[dd-1], lo, hi)

	fresh := func() *KernelSM {
		f, _ := kernelDataWith(t, 1, m, dphi, n, 7, false)
		f.Tol = 1e-12
		return f
	}
	a := fresh()
	wa, err := a.Fit(lambda, nil)
	if err != nil {
		t.Fatal(err)
	}
	it, _ := a.Iterations()
	switchAt := a.switchAt(r, true)
	// CG's A-norm error falls by ρ = (√κ−1)/(√κ+1) per iteration; the
	// residual's by ρ times √cond(V + λI) at most.
	kappa := hi / lo
	rho := (math.Sqrt(kappa) - 1) / (math.Sqrt(kappa) + 1)
	cond := mat.Cond(mat.NewDense(dd, dd, v), 2)
	promised := int(math.Ceil(math.Log(2*math.Sqrt(cond)/a.Tol) / math.Log(1/rho)))
	if a.blk.fr != r || it > switchAt+promised {
		t.Errorf("block rank %d (want %d), %d iterations, want at most %d + %d", a.blk.fr, r, it, switchAt, promised)
	}
	t.Logf("%d iterations: %d with Jacobi, then the block (promised at most %d more)", it, switchAt, promised)
	var dense mat.Cholesky
	vs := mat.NewSymDense(dd, v)
	if !dense.Factorize(vs) {
		t.Fatal("dense V + λI not positive definite")
	}
	rhs := mat.NewVecDense(dd, nil)
	for i, x := range a.B() {
		rhs.SetVec(i, -x)
	}
	var ref mat.VecDense
	if err := dense.SolveVecTo(&ref, rhs); err != nil {
		t.Fatal(err)
	}
	if e := relErr(wa, ref.RawVector().Data); e > 1e-9 {
		t.Errorf("CG with the block off the dense solve by %.3g", e)
	}
	j := fresh()
	j.noBlock = true
	wj, err := j.Fit(lambda, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(wa, wj); e > 1e-9 {
		t.Errorf("CG with the block off Jacobi alone by %.3g", e)
	}
	ij, _ := j.Iterations()
	t.Logf("Jacobi alone: %d iterations", ij)

	b := fresh()
	if _, err := b.Fit(1e-4, nil); err != nil {
		t.Fatal(err)
	}
	if b.blk.r <= r {
		t.Fatalf("λ = 1e-4 formed rank %d, want more than %d", b.blk.r, r)
	}
	wb, err := b.Fit(lambda, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range wa {
		if math.Float64bits(wa[i]) != math.Float64bits(wb[i]) {
			t.Fatalf("W[%d]: %v fresh, %v after a larger block", i, wa[i], wb[i])
		}
	}
}

// TestKernelSMIterationAllocates0: a CG iteration's product (one worker)
// and block preconditioner allocate nothing once the accumulator has run a
// fit (two workers cost the product the goroutine's two small objects).
func TestKernelSMIterationAllocates0(t *testing.T) {
	k, _ := kernelDataWith(t, 1, 20, 10, 500, 3, false)
	if _, err := k.Fit(1e-2, nil); err != nil {
		t.Fatal(err)
	}
	if !k.useBlock {
		t.Fatal("the fit ran without the block")
	}
	w, out := make([]float64, 200), make([]float64, 200)
	for i := range w {
		w[i] = float64(i % 3)
	}
	if a := testing.AllocsPerRun(10, func() { k.MulV(w, out) }); a != 0 {
		t.Errorf("MulV allocates %v times a call", a)
	}
	if a := testing.AllocsPerRun(10, func() { k.precondition(1e-2, w, out) }); a != 0 {
		t.Errorf("precondition allocates %v times a call", a)
	}
}
