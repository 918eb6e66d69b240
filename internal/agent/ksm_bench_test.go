package agent

import (
	"testing"
)

// BenchmarkKSMDecision is the time of one MPPI decision (32 sequences of
// 15 torques, rollouts to the model's mean) of configs/pendulum-bimodal.yaml's
// ksm agent (200 features, 30 centres per coordinate) and of its sm agent,
// each fitted to 1000 transitions of the bimodal pendulum; and the time of
// the ksm agent's refit at n = 1000 (a cold fit: the centres are drawn).
func BenchmarkKSMDecision(b *testing.B) {
	c, mdp, rng, s, a, next := benchPendulum(b, "../../configs/pendulum-bimodal.yaml")
	for _, name := range []string{"ksm", "sm"} {
		ag, err := New(name, mdp.Model, mdp.Dynamics, Config{Lambda: c.Lambda, Rollout: "mean"})
		if err != nil {
			b.Fatal(err)
		}
		for i := range s {
			ag.Observe(s[i], a[i], next[i])
		}
		benchRefitDecide(b, name, c, mdp, ag, s, rng)
	}
}
