package runner

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
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
	c := testutil.LoadConfigOptions(b, config.Options{Path: "../../configs/" + file, Environ: environ})
	m, err := env.New(c)
	if err != nil {
		b.Fatal(err)
	}
	ag, err := agent.New(name, m.Model, m.Dynamics, agent.Config{Lambda: c.Lambda, Confidence: agent.ConfidenceOf(c), Rollout: c.Planner.Rollout})
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
// (pendulum.yaml, mountain-car.yaml, cartpole-mppi.yaml: the shipped kind,
// and the others with the settings each file ships commented out, the same
// horizon τ), under the oracle's model (the true transition), the lds
// agent's and the sm agent's. Decisions follow the warm start from a random
// start, restarted every 50 decisions.
func BenchmarkDecision(b *testing.B) {
	// The SMRL_* variables that select the other kinds with the blocks the
	// files comment out (a key of an unselected planner is an error).
	rss := func(n string) []string {
		return []string{"SMRL_PLANNER_KIND=rss", "SMRL_PLANNER_MODE=random", "SMRL_PLANNER_N_SEQUENCES=" + n}
	}
	cem := func(iters string) []string {
		return []string{"SMRL_PLANNER_KIND=cem", "SMRL_PLANNER_CEM_POPULATION=16", "SMRL_PLANNER_CEM_ELITES=3",
			"SMRL_PLANNER_CEM_ITERATIONS=" + iters, "SMRL_PLANNER_CEM_INIT_STD=1"}
	}
	mppi := []string{"SMRL_PLANNER_KIND=mppi", "SMRL_PLANNER_MPPI_SAMPLES=32", "SMRL_PLANNER_MPPI_TEMPERATURE=0.3", "SMRL_PLANNER_MPPI_NOISE_STD=1"}
	for _, file := range []struct {
		name    string
		environ map[string][]string // per kind; nil: the shipped one
	}{
		{"pendulum.yaml", map[string][]string{"rss": rss("48"), "cem": cem("3")}},
		{"mountain-car.yaml", map[string][]string{"rss": rss("32"), "mppi": mppi}},
		{"cartpole-mppi.yaml", map[string][]string{"rss": rss("32"), "cem": cem("2")}},
	} {
		for _, kind := range []string{"rss", "cem", "mppi"} {
			for _, name := range []string{"oracle", "lds", "sm"} {
				benchDecision(b, file.name, kind, name, file.environ[kind], 50)
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
			benchDecision(b, run.file, run.kind, name, run.environ, 30)
		}
	}
}

// benchDecision runs the sub-benchmark <config name>/kind/agent: decisions
// of the planner of file (with the SMRL_* variables environ) under the
// agent's fitted model, from a random start restarted every restart
// decisions, reported per decision and per model transition.
func benchDecision(b *testing.B, file, kind, agentName string, environ []string, restart int) {
	b.Helper()
	c, m, ag := fittedAgentEnv(b, file, agentName, environ)
	if c.Planner.Kind != kind {
		b.Fatalf("%s with %v: planner.kind %s, want %s", file, environ, c.Planner.Kind, kind)
	}
	pl, err := agent.NewFromConfig(c.Planner, m.Actions, &agent.Box{Low: m.Box.Low, High: m.Box.High}, m.Task, m.StateDim())
	if err != nil {
		b.Fatal(err)
	}
	var seqs int // sequences valued per decision
	switch k := c.Planner.Section.(type) {
	case *agent.CEMConfig:
		seqs = k.Population * k.Iterations
	case *agent.MPPIConfig:
		seqs = k.Samples * k.Iterations
	default:
		seqs = c.Planner.NSequences
	}
	b.Run(c.Name+"/"+kind+"/"+agentName, func(b *testing.B) {
		pcg := rand.NewPCG(1, 2)
		rng := rand.New(pcg)
		pl.BindSource(rng, pcg) // as the runner does
		s := make([]float64, m.StateDim())
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if i%restart == 0 {
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
