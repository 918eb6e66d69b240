package env

import (
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

func TestPaperMDP(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if m.StateDim() != 1 || m.ActionDim() != 1 || len(m.Actions) != 2 || m.Horizon != 10 {
		t.Fatalf("unexpected MDP %+v", m)
	}
	// r(s) = exp(−10(s − π/8)²) + exp(−10(s + 3π/8)²)
	for _, s := range []float64{-2, -1.1780972450961724, 0, math.Pi / 8, 1.3} {
		want := math.Exp(-10*(s-math.Pi/8)*(s-math.Pi/8)) + math.Exp(-10*(s+3*math.Pi/8)*(s+3*math.Pi/8))
		if got := m.Task.Reward([]float64{s}, nil); !testutil.AbsWithin(got, want, 1e-15) {
			t.Errorf("r(%g) = %g, want %g", s, got, want)
		}
	}
	// The paper: a = +1 moves mass onto the rewarding modes at s = 0.5.
	var mean [2]float64
	for i, a := range m.Actions {
		d, err := m.True.Density([]float64{0.5}, a)
		if err != nil {
			t.Fatal(err)
		}
		const h = 0.001
		for x := -6.0; x < 6; x += h {
			mean[i] += h * d([]float64{x}) * m.Task.Reward([]float64{x}, nil)
		}
	}
	if mean[0] <= mean[1] {
		t.Errorf("E[r(s')|s=0.5]: a=+1 %g, a=−1 %g; want +1 better", mean[0], mean[1])
	}
}
