package runner

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// BenchmarkTrialSM is one full trial of the paper's experiment: the sm
// agent, 50 episodes of 10 steps, 100 rollouts of τ = 5 per action.
func BenchmarkTrialSM(b *testing.B) {
	c, m := paper(b)
	// Build the sampling table rows the trial visits once, outside the timing.
	RunTrial(context.Background(), c, m, Trial{Agent: "sm", Seed: 0})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := RunTrial(context.Background(), c, m, Trial{Agent: "sm", Seed: 0}); err != nil {
			b.Fatal(err)
		}
	}
	// 500 steps × 2 actions × 100 rollouts × 4 simulated transitions.
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(500*2*100*4), "ns/transition")
}

// BenchmarkPlannerStep is one planning decision with the true model:
// 2 actions × 100 rollouts × 4 transitions.
func BenchmarkPlannerStep(b *testing.B) {
	c, m := paper(b)
	pl, err := agent.NewPlanner(c.Planner.Mode, c.Planner.NRollouts, c.Planner.Tau, c.Planner.NSequences,
		false, m.Actions, nil, m.Task, 1)
	if err != nil {
		b.Fatal(err)
	}
	sim := expfam.NewStepper(m.True)
	rng := rand.New(rand.NewPCG(1, 2))
	s := []float64{0.3}
	for i := 0; i < 100; i++ {
		pl.Act(sim, []float64{-3 + 6*float64(i)/100}, rng)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pl.Act(sim, s, rng)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/800, "ns/transition")
}
