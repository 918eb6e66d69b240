package runner

import (
	"context"
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// actionLog keeps the actions of a trial.
type actionLog struct{ a [][]float64 }

func (l *actionLog) Transition(_, _ int, _, a, _ []float64, _ float64, _ bool) {
	l.a = append(l.a, append([]float64(nil), a...))
}

// The random agent plays each of the paper's two actions with probability
// ½ (its counts within 4σ of half the steps), reproducibly; on a box each
// action coordinate is uniform on [low, high] (Kolmogorov–Smirnov, 1%
// critical value 1.63/√n).
func TestRandomAgentIsUniform(t *testing.T) {
	c, m := paper(t)
	c.Episodes = 20
	eps, err := RunTrial(context.Background(), c, m, record.Trial{Agent: "random", Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := RunTrial(context.Background(), c, m, record.Trial{Agent: "random", Seed: 0})
	plus, steps := 0, 0
	for i, e := range eps {
		plus += e.PlusCount
		steps += e.Steps
		if e.Reward != again[i].Reward || e.PlusCount != again[i].PlusCount {
			t.Fatalf("episode %d differs between two runs of one trial", e.Episode)
		}
	}
	if sd := math.Sqrt(float64(steps) / 4); !testutil.AbsWithin(float64(plus), float64(steps)/2, 4*sd) {
		t.Errorf("a = +1 played %d of %d steps, want %d ± %.0f", plus, steps, steps/2, 4*sd)
	}

	bc := testutil.LoadConfig(t, "../../configs/nonlds-box.yaml")
	bc.Episodes = 5
	bm, err := env.New(bc)
	if err != nil {
		t.Fatal(err)
	}
	log := &actionLog{}
	if _, err := runTrial(context.Background(), Job{Config: bc, MDP: bm, Trial: record.Trial{Agent: "random"}, Record: log}); err != nil {
		t.Fatal(err)
	}
	for i := range bm.Box.Low {
		lo, hi := bm.Box.Low[i], bm.Box.High[i]
		x := make([]float64, len(log.a))
		for k, a := range log.a {
			x[k] = a[i]
		}
		if d := stats.KS(x, func(v float64) float64 { return math.Min(math.Max((v-lo)/(hi-lo), 0), 1) }); d > 1.63/math.Sqrt(float64(len(x))) {
			t.Errorf("action coordinate %d: KS D = %.4f against U[%v, %v] over %d steps", i, d, lo, hi, len(x))
		}
	}
}
