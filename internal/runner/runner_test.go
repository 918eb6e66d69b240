package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

func paper(t testing.TB) (*config.Config, *env.MDP) {
	t.Helper()
	c, err := config.Load(config.Options{})
	if err != nil {
		t.Fatal(err)
	}
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
	one, err := Run(context.Background(), c, m, Trials(c), Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, err := Run(context.Background(), c, m, Trials(c), Options{Workers: 3})
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
