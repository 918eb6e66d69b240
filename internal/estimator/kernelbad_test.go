package estimator

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// TestKernelSolveZeroResidual: warm-started at an exact solution (x0 in
// the span of a feature that is 0 at the only transition, so V·x0 = 0
// exactly and rhs = λ·x0), Solve returns x0 after 0 iterations instead
// of α = 0/0 = NaN.
func TestKernelSolveZeroResidual(t *testing.T) {
	f, err := expfam.NewKernel(1, []float64{-1, 0, 1}, 0.7, 1)
	if err != nil {
		t.Fatal(err)
	}
	e := NewKernelSM(f, 2)
	e.Add([]float64{1, 0}, []float64{0.3})
	const lambda = 0.5
	x0 := []float64{0, 1, 0, -2, 0, 0.25} // W[k][1]: the column of the zero feature
	rhs := make([]float64, len(x0))
	for i, v := range x0 {
		rhs[i] = lambda * v
	}
	x, err := e.Solve(lambda, rhs, x0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, x0) {
		t.Errorf("x = %v, want x0 = %v", x, x0)
	}
	if it, res := e.Iterations(); it != 0 || res != 0 {
		t.Errorf("%d iterations, residual %v; want 0, 0", it, res)
	}
}

// TestSubsampleCentresDistinct: on next states of 3 distinct values each
// repeated, 3 centres are the 3 values for every seed, and 4 are refused
// naming centres and the count.
func TestSubsampleCentresDistinct(t *testing.T) {
	next := []float64{0.5, 0.5, -1, 0.5, 2, -1, 2, 0.5, -1, 2}
	for seed := range uint64(20) {
		z, err := SubsampleCentres(next, 1, 3, seed)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(z)
		if !slices.Equal(z, []float64{-1, 0.5, 2}) {
			t.Errorf("seed %d: centres %v", seed, z)
		}
	}
	_, err := SubsampleCentres(next, 1, 4, 1)
	if !errors.Is(err, ErrKernelSettings) || !strings.HasPrefix(err.Error(), "centres:") || !strings.Contains(err.Error(), "only 3 distinct values") {
		t.Errorf("got %v, want centres refused naming 3 distinct values", err)
	}
}

// TestKernelDegenerateWarning: on 400 bimodal transitions (|s'| ≲ 2.5,
// spacing ~1e-2) a bandwidth of 200 makes every statistic vary by ~1e-5
// (numerically constant), one of 3e-4 makes each ≈ 0 off its own
// centre, and 0.5 gives no warning.
func TestKernelDegenerateWarning(t *testing.T) {
	const dphi, n = 3, 400
	rng := rand.New(rand.NewPCG(7, 7))
	phi, next := make([]float64, n*dphi), make([]float64, n)
	for i := range n {
		s, x := bimodal{}.draw(rng)
		bimodalFeatures(s, phi[i*dphi:(i+1)*dphi])
		next[i] = x
	}
	for _, tc := range []struct {
		sigma float64
		want  string
	}{{200, "numerically constant"}, {3e-4, "≈ 0 at every next state"}, {0.5, ""}} {
		f, err := FitKernel(phi, next, dphi, 1, KernelOptions{Centres: 10, Bandwidths: []float64{tc.sigma}, Lambdas: []float64{10}})
		if err != nil {
			t.Fatalf("σ %g: %v", tc.sigma, err)
		}
		if (tc.want == "") != (f.Warning == "") || !strings.Contains(f.Warning, tc.want) {
			t.Errorf("σ %g: warning %q, want one containing %q", tc.sigma, f.Warning, tc.want)
		}
	}
}

// TestKernelModelScalesRefused: a saved model whose base scale lies below
// its largest centre / 100, whose centre lies outside [−1024, 1024], or
// whose bandwidth is outside [1e-6, 1e6], whose λ is not > 0 or whose W
// rows are empty is refused naming the field.
func TestKernelModelScalesRefused(t *testing.T) {
	ok := KernelModel{Dim: 1, Centres: [][]float64{{-2}, {2}}, Bandwidth: 0.5, BaseScale: 1, Lambda: 1, W: [][]float64{{1}, {1}}}
	if _, err := ok.Fit(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		edit  func(m *KernelModel)
	}{
		{"base_scale", func(m *KernelModel) { m.BaseScale = 1e-2 }},
		{"base_scale", func(m *KernelModel) { m.BaseScale = 1e308 }},
		{"centres", func(m *KernelModel) { m.Centres[0][0] = -2000 }},
		{"bandwidth", func(m *KernelModel) { m.Bandwidth = 1e-300 }},
		{"bandwidth", func(m *KernelModel) { m.Bandwidth = 1e7 }},
		{"lambda", func(m *KernelModel) { m.Lambda = -5 }},
		{"lambda", func(m *KernelModel) { m.Lambda = math.NaN() }},
		{"model W", func(m *KernelModel) { m.W = [][]float64{{}, {}} }},
	} {
		m := ok
		m.Centres = [][]float64{{-2}, {2}}
		tc.edit(&m)
		if _, err := m.Fit(); !errors.Is(err, ErrKernelSettings) || !strings.HasPrefix(err.Error(), tc.field+":") {
			t.Errorf("%+v: got %v, want %s refused", m, err, tc.field)
		}
	}
}

// The distinct sums' buffer, (P + cols)·chunk floats, stays below
// blockBufFloats whenever 8 transitions fit (a rank-1024 block on 2
// features made it 2 GB, review of 2026-11-28), and small blocks keep
// blockChunk transitions (their sums' order, hence Ŵ's bits, unchanged).
func TestSumChunkBoundsBuffer(t *testing.T) {
	for _, c := range []struct{ P, cols, want int }{
		{55, 4096, blockChunk},               // r = 10, d_phi ≥ 90
		{210, 5050, 512},                     // r = 20, d_phi = 100: (210 + 4096 of one group)·512 < 4M
		{1024 * 1025 / 2, 3, 8},              // r = 1024 on 2 features: at least 8
		{8000, 4096, blockBufFloats / 12096}, // between: 346
	} {
		got := sumChunk(c.P, min(c.cols, blockCols))
		if got != c.want {
			t.Errorf("P = %d, cols = %d: chunk %d, want %d", c.P, c.cols, got, c.want)
		}
		if buf := (c.P + min(c.cols, blockCols)) * got; buf > blockBufFloats && got > 8 {
			t.Errorf("P = %d: buffer %d floats above %d", c.P, buf, blockBufFloats)
		}
	}
}

// The bounds of a kernel family's scales that the fit checks are the ones
// a config is validated against (config.KernelScaleMin, KernelScaleMax;
// the base scale's upper bound config.MaxAbsState): one set of numbers.
func TestKernelScaleBoundsAgree(t *testing.T) {
	if KernelMinScale != config.KernelScaleMin || KernelMaxScale != config.KernelScaleMax || kernelMaxBase != config.MaxAbsState {
		t.Errorf("estimator [%g, %g], base ≤ %g; config [%g, %g], base ≤ %g", KernelMinScale, KernelMaxScale, float64(kernelMaxBase),
			config.KernelScaleMin, config.KernelScaleMax, float64(config.MaxAbsState))
	}
}
