package estimator

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// kernelW0 is a kernel family of 6 centres on [−2, 2] (σ = 0.4, b = 1.5)
// with a known W0 (6×5) on bimodalFeatures: data inside the model class.
func kernelW0(t testing.TB) (*expfam.Kernel, []float64) {
	t.Helper()
	z := []float64{-2, -1.2, -0.4, 0.4, 1.2, 2}
	f, err := expfam.NewKernel(1, z, 0.4, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(36, 36))
	w0 := make([]float64, 6*5)
	for i := range w0 {
		w0[i] = 0.8 * rng.NormFloat64()
	}
	return f, w0
}

// kernelErr draws n transitions from (f, W0) by exact rejection sampling
// and returns |Ŵ − W0|_F of the SM fit (λ = 1e-6: no visible bias).
func kernelErr(t testing.TB, f *expfam.Kernel, w0 []float64, n int, seed uint64) float64 {
	t.Helper()
	const dphi = 5
	rng := rand.New(rand.NewPCG(seed, 3))
	e := NewKernelSM(f, dphi)
	phi, eta, psi, x := make([]float64, dphi), make([]float64, f.M), make([]float64, f.M), make([]float64, 1)
	for range n {
		bimodalFeatures(4*rng.Float64()-2, phi)
		for k := range eta {
			eta[k] = expfam.Dot(w0[k*dphi:(k+1)*dphi], phi)
		}
		if err := f.SampleReject(eta, rng, 1e6, psi, x); err != nil {
			t.Fatal(err)
		}
		e.Add(phi, x)
	}
	w, err := e.Fit(1e-6, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s float64
	for i := range w {
		s += (w[i] - w0[i]) * (w[i] - w0[i])
	}
	return math.Sqrt(s)
}

// meanErr averages kernelErr over reps seeds.
func meanErr(t testing.TB, f *expfam.Kernel, w0 []float64, n, reps int) float64 {
	var s float64
	for r := range reps {
		s += kernelErr(t, f, w0, n, uint64(1000*n+r))
	}
	return s / float64(reps)
}

// TestKernelSMConsistent: inside the model class the SM error falls like
// n^(−1/2): from n = 1000 to 4000 the mean error over 4 seeds halves (the
// ratio is checked within [1.5, 2.7]; the reps' spread is about ±20%).
func TestKernelSMConsistent(t *testing.T) {
	f, w0 := kernelW0(t)
	e1, e4 := meanErr(t, f, w0, 1000, 4), meanErr(t, f, w0, 4000, 4)
	t.Logf("|Ŵ − W0|: n=1000 %.4f, n=4000 %.4f, ratio %.3f (n^(−1/2): 2)", e1, e4, e1/e4)
	if r := e1 / e4; r < 1.5 || r > 2.7 {
		t.Errorf("error ratio %.3f from n = 1000 to 4000, want about 2", r)
	}
}

// TestKernelSMConsistentLong measures the slope of log |Ŵ − W0| against
// log n from 10³ to 10⁵ (docs/kernel-families.md). SMRL_LONG=1 runs it.
func TestKernelSMConsistentLong(t *testing.T) {
	if os.Getenv("SMRL_LONG") == "" {
		t.Skip("SMRL_LONG=1 runs the consistency measurement to n = 1e5")
	}
	f, w0 := kernelW0(t)
	ns := []float64{1e3, 3e3, 1e4, 3e4, 1e5}
	var sx, sy, sxx, sxy float64
	for _, n := range ns {
		e := meanErr(t, f, w0, int(n), 5)
		t.Logf("n = %6.0f: mean |Ŵ − W0|_F over 5 seeds %.5f, × √n = %.3f", n, e, e*math.Sqrt(n))
		x, y := math.Log(n), math.Log(e)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(len(ns))
	slope := (k*sxy - sx*sy) / (k*sxx - sx*sx)
	t.Logf("slope of log error against log n: %.3f (n^(−1/2): −0.5)", slope)
	if slope > -0.4 || slope < -0.6 {
		t.Errorf("slope %.3f, want −0.5 ± 0.1", slope)
	}
}
