package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// benchPendulum loads the config at path, builds its MDP and draws 1000
// transitions of it (pendulumData) from a fixed stream, which it returns
// with the stream (for the benchmarks' decisions and the measurements'
// held-out data).
func benchPendulum(tb testing.TB, path string) (*config.Config, *env.MDP, *rand.Rand, [][]float64, [][]float64, [][]float64) {
	tb.Helper()
	c := testutil.LoadConfig(tb, path)
	mdp, err := env.New(c)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	s, a, next := pendulumData(mdp, 1000, rng)
	return c, mdp, rng, s, a, next
}

// BenchmarkKernelFamilyDecision is the time of one MPPI decision (32
// sequences of 16 torques, rollouts to the model's mean) of
// examples/kernel/pendulum-kernel-learner.yaml's sm agent with
// model.family: kernel (200 features, 30 centres per coordinate, the
// autoregressive graph of s' − s), fitted to 1000 transitions of the
// bimodal pendulum (decision/warm); and the time of its refits at n =
// 1000: a draw of the centres with the config's bandwidth: cv
// (refit/draw: FitKernelSpec, about a minute) and a refit between draws
// (refit/warm: the statistics fixed, CG warm-started at the last Ŵ).
func BenchmarkKernelFamilyDecision(b *testing.B) {
	c, mdp, rng, s, a, next := benchPendulum(b, "../../examples/kernel/pendulum-kernel-learner.yaml")
	ag, err := New("sm", mdp.Model, mdp.Dynamics, Config{Lambda: c.Lambda, Rollout: "mean"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range s {
		ag.Observe(s[i], a[i], next[i])
	}
	if err := ag.EndEpisode(); err != nil { // the first draw, so that refit/warm and decision run alone too
		b.Fatal(err)
	}
	b.Run("refit/draw", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			ag, err := New("sm", mdp.Model, mdp.Dynamics, Config{Lambda: c.Lambda, Rollout: "mean"})
			if err != nil {
				b.Fatal(err)
			}
			for i := range s {
				ag.Observe(s[i], a[i], next[i])
			}
			b.StartTimer()
			if err := ag.EndEpisode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	benchRefitDecide(b, "warm", c, mdp, ag, s, rng)
}

// benchRefitDecide runs the benchmarks refit/label (ag's refit on the
// transitions it holds) and decision/label (one decision of c's planner
// with ag's model, from the states s in turn).
func benchRefitDecide(b *testing.B, label string, c *config.Config, mdp *env.MDP, ag *Agent, s [][]float64, rng *rand.Rand) {
	b.Run("refit/"+label, func(b *testing.B) {
		for b.Loop() {
			if err := ag.EndEpisode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	pl, err := NewFromConfig(c.Planner, nil, &Box{Low: mdp.Box.Low, High: mdp.Box.High}, mdp.Task, mdp.StateDim())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decision/"+label, func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			pl.Act(ag.Sim, s[i%len(s)], rng)
		}
	})
}
