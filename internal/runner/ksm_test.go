package runner

import (
	"context"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// bimodalPendulum is the pendulum with bimodal torque noise at a short
// horizon: the ksm agent's test bed.
const bimodalPendulum = `
seeds: 1
episodes: 2
lambda: 0.001
agents: [ksm, sm, oracle]
env:
  kind: pendulum
  horizon: 200
  action_space: box
  action_low: [-2]
  action_high: [2]
  pendulum:
    noise: mixture
    mixture_weights: [0.5, 0.5]
    mixture_means: [-1.5, 1.5]
    mixture_stds: [0.3, 0.3]
model:
  family: [gaussian]
  sigma: [1]
  target: delta
  features:
    kind: rff
    dim: 200
    length: 1
ksm:
  centres: 30
planner:
  kind: mppi
  tau: 16
  n_rollouts: 1
  rollout: mean
  mppi:
    samples: 32
    temperature: 0.3
    noise_std: 1
`

func TestKSMAgentRuns(t *testing.T) {
	c := testutil.LoadConfig(t, testutil.WriteYAML(t, bimodalPendulum))
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := RunTrial(context.Background(), c, m, record.Trial{Agent: "ksm", Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(eps[0].Reward, eps[1].Reward)
}
