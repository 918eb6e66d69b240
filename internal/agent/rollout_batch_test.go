package agent

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// TestGaussBatchValuesIsValue: a Gaussian model of s' − s on random
// Fourier features (the pendulum's task, σ 0.1 per coordinate), stepped by
// gaussBatch: Rollouts.Values of K sequences together equals K Value calls
// bit for bit (a row of W Φᵀ has the same bits in any batch), and Step
// equals the per-state MeanStepper of the same model to 1e-12 (another
// order of the same sums). 48 features keep the test quick; newGaussBatch
// asks for batchMinFeatures, the type itself for none.
func TestGaussBatchValuesIsValue(t *testing.T) {
	_, m := load(t, "../../configs/pendulum.yaml")
	const dphi = 48
	feat, err := expfam.NewRFF(3, 1, dphi, 1, 9)
	if err != nil {
		t.Fatal(err)
	}
	var cs []expfam.Coord
	for range 3 {
		c, _ := expfam.NewGaussCoord(0.1)
		cs = append(cs, c)
	}
	fam, _ := expfam.NewCoords(cs)
	rng := rand.New(rand.NewPCG(31, 32))
	w := make([]float64, 3*dphi)
	for i := range w {
		w[i] = 0.3 * rng.NormFloat64()
	}
	model, err := expfam.NewModel(fam, feat, w)
	if err != nil {
		t.Fatal(err)
	}
	sim := &gaussBatch{m: model, ds: 3, delta: true}
	mean := deltaSim{Simulator: expfam.NewMeanStepper(model)}
	const tau = 6
	batch := newRollouts(m.Task, tau, 1, false, 3)
	one := newRollouts(m.Task, tau, 1, false, 3)
	if !batch.Batched(sim) {
		t.Fatal("Rollouts do not batch gaussBatch under the pendulum's task")
	}
	steps := batch.Steps()
	for trial := range 20 {
		k := 1 + rng.IntN(40)
		s := []float64{rng.Float64(), rng.Float64(), rng.NormFloat64()}
		seqs := make([]float64, k*steps)
		for i := range seqs {
			seqs[i] = 2 * (2*rng.Float64() - 1)
		}
		got := make([]float64, k)
		batch.Values(sim, s, seqs, 1, got)
		for j := range k {
			act := make([][]float64, steps)
			for t := range act {
				act[t] = seqs[j*steps+t : j*steps+t+1]
			}
			want := one.Value(sim, s, act, rng)
			if math.Float64bits(got[j]) != math.Float64bits(want) {
				t.Fatalf("trial %d, %d sequences, sequence %d: Values %v, Value %v", trial, k, j, got[j], want)
			}
		}
		a := seqs[:1]
		o1, o2 := make([]float64, 3), make([]float64, 3)
		sim.Step(s, a, nil, o1)
		mean.Step(s, a, nil, o2)
		for i := range o1 {
			if d := math.Abs(o1[i] - o2[i]); d > 1e-12*(1+math.Abs(o2[i])) {
				t.Fatalf("Step coordinate %d: batched %v, per state %v", i, o1[i], o2[i])
			}
		}
	}
}

// On random Fourier features the lanes' path of gaussBatch (eight states
// per AVX-512 register: RFF.PhiBatch8, linalg.MulABtPanel8) gives the bits
// of the general path (Phi of each state, W Φᵀ by MulABt), at the scale
// benchmark's size (d_s 17, d_a 6, D 2000), for batch sizes that are and
// are not multiples of eight, of s' and of s' − s, with and without the
// features' fused multiply-adds (RFF.FMA), and with a state outside the
// cosine's range (that group by Phi per state).
func TestGaussBatchLanesIsRows(t *testing.T) {
	if !expfam.HasPhiBatch8() {
		t.Skip("no AVX-512F (or SMRL_NOSIMD, purego): the general path runs")
	}
	const ds, da, dphi = 17, 6, 2000
	feat, err := expfam.NewRFF(ds, da, dphi, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	fam, _ := expfam.NewGaussian(ds, 0.05)
	rng := rand.New(rand.NewPCG(33, 34))
	w := make([]float64, ds*dphi)
	for i := range w {
		w[i] = 0.1 * rng.NormFloat64()
	}
	model, err := expfam.NewModel(fam, feat, w)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ delta, fma bool }{{false, false}, {true, false}, {true, true}} {
		delta := c.delta
		feat.FMA = c.fma // the fused features: PhiBatch8's FMA kernel against Phi's
		g := &gaussBatch{m: model, ds: ds, delta: delta}
		for _, k := range []int{1, 8, 13, 16, 27, 32} {
			xs := make([]float64, k*ds)
			for i := range xs {
				xs[i] = 2*rng.Float64() - 1
			}
			if k == 13 || k == 27 {
				xs[12*ds+3] = 1e300 // the second group of eight declines
			}
			acts := make([][]float64, k)
			for j := range acts {
				acts[j] = make([]float64, da)
				for i := range acts[j] {
					acts[j][i] = 2*rng.Float64() - 1
				}
			}
			got, want := make([]float64, k*ds), make([]float64, k*ds)
			if !g.stepLanes(feat, xs, acts, got) {
				t.Fatal("stepLanes declined")
			}
			g.stepRows(xs, acts, want)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("delta %v, fma %v, %d states: entry %d lanes %v, rows %v", delta, c.fma, k, i, got[i], want[i])
				}
			}
		}
	}
}
