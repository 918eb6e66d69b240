package env

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSparseQuadIsQuad: the reward's sparse quadratic form gives Quad's
// bits on matrices with zero and negative-zero entries, empty rows, inputs
// whose products cancel exactly or underflow, and inputs with ±Inf or NaN
// (which take the dense sum).
func TestSparseQuadIsQuad(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	pick := func(vals []float64) float64 { return vals[rng.IntN(len(vals))] }
	entries := []float64{0, 0, 0, math.Copysign(0, -1), 1, -1, 0.5, 3, 1e-300, -2.25}
	inputs := []float64{0, math.Copysign(0, -1), 1, -1, 2, 1e-200, -1e-200, 0.1, 7.5}
	odd := []float64{math.Inf(1), math.Inf(-1), math.NaN()}
	for trial := range 4000 {
		n := 1 + rng.IntN(7)
		m := make([]float64, n*n)
		for i := range m {
			m[i] = pick(entries)
		}
		if trial%5 == 0 { // a diagonal matrix, as the LQ configs have
			for i := range n {
				for j := range n {
					if i != j {
						m[i*n+j] = 0
					}
				}
			}
		}
		q := newSparseQuad(m, n)
		x := make([]float64, n)
		for i := range x {
			x[i] = pick(inputs)
			if trial%50 == 0 && rng.IntN(n) == 0 {
				x[i] = pick(odd)
			}
		}
		want, got := Quad(m, x), q.at(x)
		if math.Float64bits(want) != math.Float64bits(got) && !(math.IsNaN(want) && math.IsNaN(got)) {
			t.Fatalf("m = %v, x = %v: sparse %v (%#x), Quad %v (%#x)", m, x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

// TestLQRewardIsQuad: on a dense Q and R the reward is −(sᵀQs +
// aᵀRa) computed by Quad.
func TestLQRewardIsQuad(t *testing.T) {
	l := &LQ{DS: 3, DA: 2, Q: []float64{2, 0.5, 0, 0.5, 1, -0.25, 0, -0.25, 3}, R: []float64{1, 0, 0, 0.5}}
	task := newLQTask(l)
	s, a := []float64{0.3, -1.2, 2.5}, []float64{-0.7, 0.9}
	want := -(Quad(l.Q, s) + Quad(l.R, a))
	if got := task.Reward(s, a); got != want {
		t.Fatalf("reward %v, want %v", got, want)
	}
	// sᵀQs by hand: 2·0.09 + 2·0.5·0.3·(−1.2) + 1.44 + 2·(−0.25)·(−1.2)·2.5 + 3·6.25.
	byHand := 2*0.09 + 2*0.5*0.3*(-1.2) + 1.44 + 2*(-0.25)*(-1.2)*2.5 + 3*6.25 + (0.49 + 0.5*0.81)
	if math.Abs(-want-byHand) > 1e-12 {
		t.Fatalf("reward %v, by hand %v", -want, byHand)
	}
}

// TestLQRewardsIsReward: env.kind lq's task scores a batch, and the batch
// reward (four states at a time, their sums interleaved) gives Reward's
// bits for every state, on batches of 0 to
// 11 states, diagonal and dense Q and R with zero and negative-zero
// entries, inputs whose products cancel or underflow, and states with
// ±Inf or NaN entries among finite ones.
func TestLQRewardsIsReward(t *testing.T) {
	mdp, err := New(physicsConfig(t, "lq"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mdp.Task.(BatchRewarder); !ok {
		t.Fatal("env.kind lq's task scores no batch")
	}
	rng := rand.New(rand.NewPCG(8, 35))
	pick := func(vals []float64) float64 { return vals[rng.IntN(len(vals))] }
	entries := []float64{0, 0, math.Copysign(0, -1), 1, -1, 0.5, 3, 1e-300, -2.25}
	inputs := []float64{0, math.Copysign(0, -1), 1, -1, 2, 1e-200, -1e-200, 0.1, 7.5}
	odd := []float64{math.Inf(1), math.Inf(-1), math.NaN()}
	for trial := range 600 {
		ds, da := 1+rng.IntN(6), 1+rng.IntN(4)
		l := &LQ{DS: ds, DA: da, Q: make([]float64, ds*ds), R: make([]float64, da*da)}
		for _, m := range [][]float64{l.Q, l.R} {
			n := int(math.Sqrt(float64(len(m))))
			for i := range m {
				if trial%3 != 0 || i/n == i%n { // every third trial diagonal only
					m[i] = pick(entries)
				}
			}
		}
		task := newLQTask(l)
		k := rng.IntN(12)
		xs, acts := make([]float64, k*ds), make([][]float64, k)
		for i := range xs {
			xs[i] = pick(inputs)
			if trial%10 == 0 && rng.IntN(3*ds) == 0 {
				xs[i] = pick(odd)
			}
		}
		for j := range acts {
			acts[j] = make([]float64, da)
			for i := range acts[j] {
				acts[j][i] = pick(inputs)
				if trial%10 == 5 && rng.IntN(3*da) == 0 {
					acts[j][i] = pick(odd)
				}
			}
		}
		got := make([]float64, k)
		task.Rewards(xs, acts, got)
		for j := range k {
			want := task.Reward(xs[j*ds:(j+1)*ds], acts[j])
			if math.Float64bits(want) != math.Float64bits(got[j]) && !(math.IsNaN(want) && math.IsNaN(got[j])) {
				t.Fatalf("trial %d, state %d of %d: Rewards %v (%#x), Reward %v (%#x)", trial, j, k, got[j], math.Float64bits(got[j]), want, math.Float64bits(want))
			}
		}
	}
}

// BenchmarkLQRewards is the rewards of one decision of the scale benchmark
// (testdata/scale-lq17.yaml's diagonal Q and R, d_s 17, d_a 6, 480 states)
// by Reward state by state and by the batch Rewards.
func BenchmarkLQRewards(b *testing.B) {
	const ds, da, n = 17, 6, 480
	l := &LQ{DS: ds, DA: da, Q: make([]float64, ds*ds), R: make([]float64, da*da)}
	for i := range ds {
		l.Q[i*ds+i] = 1
	}
	for i := range da {
		l.R[i*da+i] = 0.5
	}
	task := newLQTask(l)
	rng := rand.New(rand.NewPCG(1, 2))
	xs, acts, out := make([]float64, n*ds), make([][]float64, n), make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	for j := range acts {
		acts[j] = make([]float64, da)
		for i := range acts[j] {
			acts[j][i] = 2*rng.Float64() - 1
		}
	}
	b.Run("reward", func(b *testing.B) {
		for range b.N {
			for j := range n {
				out[j] = task.Reward(xs[j*ds:(j+1)*ds], acts[j])
			}
		}
	})
	b.Run("rewards", func(b *testing.B) {
		for range b.N {
			task.Rewards(xs, acts, out)
		}
	})
}
