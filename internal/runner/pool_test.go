package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
)

// One pool over the trials of two experiments gives each trial the
// episodes it has when its experiment runs alone, for any number of
// workers, and the experiments do differ.
func TestRunJobsMixesExperiments(t *testing.T) {
	a, ma := paper(t)
	a.Seeds, a.Episodes, a.Planner.NRollouts = 2, 4, 20
	b := *a
	b.Planner.Tau = 2
	mb, err := env.New(&b)
	if err != nil {
		t.Fatal(err)
	}
	alone := func(cfg *config.Config, m *env.MDP) string {
		res, err := Run(context.Background(), cfg, m, record.Trials(cfg), Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%v", res.Episodes)
	}
	wantA, wantB := alone(a, ma), alone(&b, mb)
	if wantA == wantB {
		t.Fatal("tau 5 and tau 2 gave the same episodes: the test cannot tell the experiments apart")
	}
	var jobs []Job
	for _, tr := range record.Trials(a) {
		jobs = append(jobs, Job{Config: a, MDP: ma, Trial: tr}, Job{Config: &b, MDP: mb, Trial: tr, Label: "b"})
	}
	for _, w := range []int{1, 3} {
		var calls int
		eps, err := RunJobs(context.Background(), jobs, Options{Workers: w, OnTrial: func(i int, e []record.Episode) error { calls++; return nil }})
		if err != nil {
			t.Fatal(err)
		}
		var ga, gb [][]record.Episode
		for i := range jobs {
			if i%2 == 0 {
				ga = append(ga, eps[i])
			} else {
				gb = append(gb, eps[i])
			}
		}
		if fmt.Sprintf("%v", ga) != wantA || fmt.Sprintf("%v", gb) != wantB || calls != len(jobs) {
			t.Errorf("%d workers: pooled episodes differ from the experiments run alone (OnTrial calls %d)", w, calls)
		}
	}
	// An error names the job's label.
	bad := b
	bad.Agents = []string{"nope"}
	_, err = RunJobs(context.Background(), []Job{{Config: &bad, MDP: mb, Trial: record.Trial{Agent: "nope"}, Label: "planner.tau=2"}}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "planner.tau=2: agent nope, seed 0: ") {
		t.Errorf("error %v does not name the job", err)
	}
}
