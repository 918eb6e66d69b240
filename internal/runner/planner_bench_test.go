package runner

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

// fittedAgent returns the MDP of a shipped config and the named agent with
// its model fitted to 400 transitions of random play (so that W is a
// realistic, dense estimate).
func fittedAgent(b *testing.B, file, name string) (*config.Config, *env.MDP, *agent.Agent) {
	b.Helper()
	return fittedAgentEnv(b, file, name, nil)
}

// fittedAgentEnv is fittedAgent with the SMRL_* variables environ.
func fittedAgentEnv(b *testing.B, file, name string, environ []string) (*config.Config, *env.MDP, *agent.Agent) {
	b.Helper()
	c, err := config.Load(config.Options{Path: "../../configs/" + file, Environ: environ})
	if err != nil {
		b.Fatal(err)
	}
	m, err := env.New(c)
	if err != nil {
		b.Fatal(err)
	}
	ag, err := agent.New(name, m.Model, m.Dynamics, agent.Config{Lambda: c.Lambda, Confidence: c.Confidence, Rollout: c.Planner.Rollout})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sim := m.Dynamics.NewSimulator()
	ds := m.StateDim()
	s, next, a := make([]float64, ds), make([]float64, ds), make([]float64, m.ActionDim())
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
	return c, m, ag
}

// BenchmarkPendulumTransition is one model transition of the pendulum
// (3-D state, one action): the true physics, the lds agent's linear model
// on [s, a], and the sm agent's Gaussian model on D = 200 random Fourier
// features of (s, a), of the state difference (configs/pendulum.yaml), all
// mean rollouts.
func BenchmarkPendulumTransition(b *testing.B) {
	for _, name := range []string{"oracle", "lds", "sm"} {
		_, m, ag := fittedAgent(b, "pendulum.yaml", name)
		b.Run(name, func(b *testing.B) {
			s, next, a := []float64{math.Cos(2), math.Sin(2), 0.5}, make([]float64, 3), []float64{0.7}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ag.Sim.Step(s, a, rng, next)
				if i%16 == 15 {
					m.Init(rng, next)
				}
				s, next = next, s
			}
		})
	}
}

// BenchmarkDecision is one planning decision of each planner kind, with the
// settings of the config of each continuous-control experiment
// (pendulum.yaml, mountain-car.yaml, cartpole-mppi.yaml: the same horizon
// τ and sequence budget for every kind), under the oracle's model (the true
// transition), the lds agent's and the sm agent's. Decisions follow the
// warm start from a random start, restarted every 50 decisions.
func BenchmarkDecision(b *testing.B) {
	for _, file := range []string{"pendulum.yaml", "mountain-car.yaml", "cartpole-mppi.yaml"} {
		for _, kind := range []string{"rss", "cem", "mppi"} {
			for _, name := range []string{"oracle", "lds", "sm"} {
				c, m, ag := fittedAgent(b, file, name)
				c.Planner.Kind = kind
				pl, err := agent.NewFromConfig(c.Planner, m.Actions, &agent.Box{Low: m.Box.Low, High: m.Box.High}, m.Task, m.StateDim())
				if err != nil {
					b.Fatal(err)
				}
				seqs := map[string]int{"rss": c.Planner.NSequences, "cem": (*config.Section[agent.CEMConfig](c, "planner.cem")).Population * (*config.Section[agent.CEMConfig](c, "planner.cem")).Iterations,
					"mppi": (*config.Section[agent.MPPIConfig](c, "planner.mppi")).Samples}[kind]
				b.Run(c.Name+"/"+kind+"/"+name, func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 2))
					s := make([]float64, m.StateDim())
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						if i%50 == 0 {
							m.Init(rng, s)
							pl.Reset()
						}
						pl.Act(ag.Sim, s, rng)
					}
					per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					b.ReportMetric(per/1e3, "µs/decision")
					b.ReportMetric(per/float64(seqs*c.Planner.NRollouts*(c.Planner.Tau-1)), "ns/transition")
					b.ReportMetric(0, "ns/op")
				})
			}
		}
	}
}

// BenchmarkControlDecision is one planning decision with the shipped
// settings of configs/lq.yaml (cem 32 × 8 with keep_elites; mppi 64 × 4)
// and configs/acrobot.yaml (iCEM 16 × 2, τ = 11), under the oracle's model
// (the true transition) and the fitted lds and sm models, from random
// starts restarted every 30 decisions.
func BenchmarkControlDecision(b *testing.B) {
	for _, run := range []struct {
		file, kind string
		environ    []string
	}{{"lq.yaml", "cem", nil}, {"lq.yaml", "mppi", lqMPPI}, {"acrobot.yaml", "cem", nil}} {
		for _, name := range []string{"oracle", "lds", "sm"} {
			c, m, ag := fittedAgentEnv(b, run.file, name, run.environ)
			pl, err := agent.NewFromConfig(c.Planner, m.Actions, &agent.Box{Low: m.Box.Low, High: m.Box.High}, m.Task, m.StateDim())
			if err != nil {
				b.Fatal(err)
			}
			var seqs int
			switch k := c.Planner.Section.(type) {
			case *agent.CEMConfig:
				seqs = k.Population * k.Iterations
			case *agent.MPPIConfig:
				seqs = k.Samples * k.Iterations
			}
			b.Run(c.Name+"/"+run.kind+"/"+name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				s := make([]float64, m.StateDim())
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if i%30 == 0 {
						m.Init(rng, s)
						pl.Reset()
					}
					pl.Act(ag.Sim, s, rng)
				}
				per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(per/1e3, "µs/decision")
				b.ReportMetric(per/float64(seqs*c.Planner.NRollouts*(c.Planner.Tau-1)), "ns/transition")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
