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
