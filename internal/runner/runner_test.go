package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func paper(t testing.TB) (*config.Config, *env.MDP) {
	t.Helper()
	c := testutil.LoadConfig(t, "")
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// The runner's result does not depend on the number of workers (every
// stream is keyed by trial), and on the paper's MDP score matching
// collects more reward than the LDS fit in every seed.
func TestRunIsWorkerIndependentAndSMBeatsLDS(t *testing.T) {
	c, m := paper(t)
	c.Seeds, c.Episodes = 3, 8
	one, err := Run(context.Background(), c, m, record.Trials(c), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, err := Run(context.Background(), c, m, record.Trials(c), Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	// %v prints NaN as NaN, so equal results print equally.
	if a, b := fmt.Sprintf("%v", one.Episodes), fmt.Sprintf("%v", three.Episodes); a != b {
		t.Fatal("results differ between 1 and 3 workers")
	}
	perSeed := map[string][]float64{}
	for i, tr := range one.Trials {
		var sum float64
		for _, e := range one.Episodes[i] {
			sum += e.Reward
		}
		perSeed[tr.Agent] = append(perSeed[tr.Agent], sum)
	}
	for s := range perSeed["sm"] {
		if perSeed["sm"][s] <= perSeed["lds"][s] {
			t.Errorf("seed %d: sm reward %.2f not above lds %.2f", s, perSeed["sm"][s], perSeed["lds"][s])
		}
	}
}

// Terminating episodes: in CartPole every step earns 1, so an episode's
// return is its length, at most H; some episodes end early; and the
// learners' W has the shape of their own family.
func TestCartPoleEpisodesTerminate(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Env.Kind, c.Env.Horizon = "cartpole", 60
	c.Lambda, c.Seeds, c.Episodes = 0.01, 2, 4
	c.Planner.Mode, c.Planner.NSequences, c.Planner.NRollouts, c.Planner.Tau = "random", 20, 1, 6
	c.Model.Family = []string{"relu", "gaussian", "gaussian", "gaussian"}
	c.Agents = []string{"sm", "lds", "oracle"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), c, m, record.Trials(c), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	short := 0
	for i, tr := range res.Trials {
		for _, e := range res.Episodes[i] {
			if e.Steps < 1 || e.Steps > c.Env.Horizon || e.Reward != float64(e.Steps) {
				t.Errorf("%s seed %d episode %d: %d steps, return %g", tr.Agent, tr.Seed, e.Episode, e.Steps, e.Reward)
			}
			if e.Steps < c.Env.Horizon {
				short++
			}
			wantW := map[string]int{"sm": 5 * 5, "lds": 4 * 5, "oracle": 0}[tr.Agent]
			if len(e.W) != wantW {
				t.Errorf("%s: W has %d entries, want %d", tr.Agent, len(e.W), wantW)
			}
		}
	}
	if short == 0 {
		t.Error("no episode terminated early: the test does not exercise termination")
	}
}
