package runner

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// BenchmarkExprFamilyDecision is one planning decision of the sm agent on
// the paper's MDP (configs/synthetic.yaml: rss, constant mode, 2 actions ×
// 100 rollouts × 4 transitions) with the built-in custom-sin family, the
// same family written as expressions, and that family with the reward
// written as an expression too (no specialised rollout loop), after 400
// transitions of random play. ns/transition is the decision's time over
// its 800 model transitions.
func BenchmarkExprFamilyDecision(b *testing.B) {
	const fam = "env:\n  family: {kind: expression, log_q: \"-abs(x)^1.7/1.7\", psi: [\"sin(4*x)\"]}\n"
	const reward = "  reward: {expression: \"exp(-10*(s0 - 0.39269908169872414)^2) + exp(-10*(s0 + 1.1780972450961724)^2)\"}\n"
	for _, c := range []struct{ name, yaml string }{
		{"custom-sin", "name: synthetic\n"},
		{"expression", fam},
		{"expression+reward", fam + reward},
	} {
		p := filepath.Join(b.TempDir(), "c.yaml")
		if err := os.WriteFile(p, []byte(c.yaml), 0o644); err != nil {
			b.Fatal(err)
		}
		cfg := testutil.LoadConfig(b, p)
		m, err := env.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ag, err := agent.New("sm", m.Model, m.Dynamics, agent.Config{Lambda: cfg.Lambda, Confidence: agent.ConfidenceOf(cfg), Rollout: cfg.Planner.Rollout})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		sim := m.Dynamics.NewSimulator()
		s, next, a := make([]float64, 1), make([]float64, 1), make([]float64, 1)
		for i := range 400 {
			if i%20 == 0 {
				m.Init(rng, s)
			}
			m.RandomAction(rng, a)
			sim.Step(s, a, rng, next)
			ag.Observe(s, a, next)
			s, next = next, s
		}
		if err := ag.EndEpisode(); err != nil {
			b.Fatal(err)
		}
		pl, err := agent.NewFromConfig(cfg.Planner, m.Actions, nil, m.Task, 1)
		if err != nil {
			b.Fatal(err)
		}
		transitions := len(m.Actions) * cfg.Planner.NRollouts * (cfg.Planner.Tau - 1)
		b.Run(c.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%50 == 0 {
					m.Init(rng, s)
				}
				pl.Act(ag.Sim, s, rng)
			}
			per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(per/float64(transitions), "ns/transition")
		})
	}
}
