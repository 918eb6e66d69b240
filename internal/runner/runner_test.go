package runner

import (
	"context"
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

func finalRewards(r *Result) map[string]float64 {
	out := map[string]float64{}
	for i, tr := range r.Trials {
		for _, e := range r.Episodes[i] {
			out[tr.Agent] += e.Reward
		}
	}
	return out
}

func TestSmoke(t *testing.T) {
	c, m := paper(t)
	res, err := Run(context.Background(), c, m, Trials(c), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tot := finalRewards(res)
	for a, v := range tot {
		t.Logf("%s: mean cumulative reward %.2f", a, v/float64(c.Seeds))
	}
	for i, tr := range res.Trials {
		if tr.Agent == "sm" && tr.Seed == 0 {
			for _, e := range res.Episodes[i][:5] {
				t.Logf("sm ep %d plus %d W %v", e.Episode, e.PlusCount, e.W)
			}
		}
		if tr.Agent == "lds" && tr.Seed == 0 {
			for _, e := range res.Episodes[i][:5] {
				t.Logf("lds ep %d plus %d W %v", e.Episode, e.PlusCount, e.W)
			}
		}
	}
}
