package runner

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// BenchmarkTrialSM is one full trial of the paper's experiment: the sm
// agent, 50 episodes of 10 steps, 100 rollouts of τ = 5 per action.
func BenchmarkTrialSM(b *testing.B) {
	c, m := paper(b)
	// Build the sampling table rows the trial visits once, outside the timing.
	RunTrial(context.Background(), c, m, record.Trial{Agent: "sm", Seed: 0})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := RunTrial(context.Background(), c, m, record.Trial{Agent: "sm", Seed: 0}); err != nil {
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

// BenchmarkModelTransition is one sampled model transition, s' ~ P_W(·|s, a)
// through expfam.Stepper: the paper's 1-D custom-sin model (tabulated
// inverse CDF), and CartPole's 4-D learned models with phi = [s, a]: the
// Gaussian (LDS), the relu-mog family on x with Gaussians on the rest (the
// cartpole-mog config), and relu on every coordinate.
func BenchmarkModelTransition(b *testing.B) {
	_, paperMDP := paper(b)
	cp := testutil.LoadConfig(b, "")
	cp.Env.Kind = "cartpole"
	for _, bc := range []struct {
		name     string
		m        *expfam.Model
		families []string
	}{
		{name: "paper-1d", m: paperMDP.True},
		{name: "cartpole-gaussian", families: []string{"gaussian"}},
		{name: "cartpole-relu-mog-x", families: []string{"relu-mog", "gaussian", "gaussian", "gaussian"}},
		{name: "cartpole-relu-all", families: []string{"relu"}},
	} {
		m := bc.m
		if m == nil {
			cp.Model.Family = bc.families
			mdp, err := env.New(cp)
			if err != nil {
				b.Fatal(err)
			}
			// A learned-looking W: the physics' linearisation, roughly s' ≈ s.
			fam, feat := mdp.Model.Family, mdp.Model.Features
			w := make([]float64, fam.StatDim()*feat.Dim())
			row := 0
			for i, mi := range fam.(expfam.Blocked).Blocks() {
				w[row*feat.Dim()+i] = 1 / (mdp.Model.LDSSigma[i] * mdp.Model.LDSSigma[i])
				row += mi
			}
			if m, err = expfam.NewModel(fam, feat, w); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(bc.name, func(b *testing.B) {
			st := expfam.NewStepper(m)
			ds := m.Dist.StateDim()
			s, next := make([]float64, ds), make([]float64, ds)
			for i := range s {
				s[i] = 0.01 * float64(i+1)
			}
			a := []float64{1}
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < 300000; i++ { // build the sampling table rows the walk visits
				st.Step(s, a, rng, next)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				st.Step(s, a, rng, next)
				s, next = next, s
				if i%16 == 15 { // stay near the start
					for k := range s {
						s[k] = 0.01 * float64(k+1)
					}
				}
			}
		})
	}
}

// BenchmarkCartPoleTrial is one full CartPole trial of the sm agent in the
// relu-mog family on a reduced scale: 10 episodes of up to 200 steps, 100
// random sequences of τ = 11 per decision.
func BenchmarkCartPoleTrial(b *testing.B) {
	c, m := shippedTrial(b, "cartpole-mog.yaml", 10)
	b.ResetTimer()
	var transitions float64
	for i := 0; i < b.N; i++ {
		eps, err := RunTrial(context.Background(), c, m, record.Trial{Agent: "sm", Seed: 0})
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range eps {
			transitions += float64(e.Steps * c.Planner.NSequences * c.Planner.NRollouts * (c.Planner.Tau - 1))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/transitions, "ns/transition(max)")
}

// BenchmarkCartPoleComparison is one trial of each agent of the noise-free
// CartPole comparison (configs/cartpole.yaml: 100 random ±1 sequences of
// τ = 11 per decision, sampled Gaussian rollouts for sm and lds, the true
// physics for the oracle) on a reduced scale: 20 episodes of up to 200
// steps, seed 0. It reports the time per decision (one real step).
func BenchmarkCartPoleComparison(b *testing.B) {
	c, m := shippedTrial(b, "cartpole.yaml", 20)
	for _, name := range []string{"sm", "lds", "oracle"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var steps int
			for i := 0; i < b.N; i++ {
				eps, err := RunTrial(context.Background(), c, m, record.Trial{Agent: name, Seed: 0})
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range eps {
					steps += e.Steps
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps)/1e3, "µs/decision")
		})
	}
}

// shippedTrial returns a shipped config (configs/file) cut to episodes
// episodes, and its MDP.
func shippedTrial(b *testing.B, file string, episodes int) (*config.Config, *env.MDP) {
	b.Helper()
	c := testutil.LoadConfig(b, "../../configs/"+file)
	c.Episodes = episodes
	m, err := env.New(c)
	if err != nil {
		b.Fatal(err)
	}
	return c, m
}
