package estimate

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
)

// This file adds an estimator the way ARCHITECTURE.md says one is added:
// one Estimator value plus one registration line, with no change to
// agent, config or estimate (TestTestOnlyEstimator). It is ridge least
// squares at σ = 1, as smrl estimate's lds, counting what it is given.

var testRidgeAdds int

var testRidge = agent.Estimator{Name: "test-ridge",
	Doc:    "a test-only ridge least squares s' = W phi + N(0, I)",
	Floats: func(_, _, dphi int, _ bool) float64 { return 2 * float64(dphi) * float64(dphi) },
	New: func(s agent.Setup) (*agent.Fitter, error) {
		e := estimator.NewLDS(s.Spec.Family.StateDim(), s.Dphi)
		return &agent.Fitter{Dist: s.Spec.Family, N: e.N,
			Add: func(phi, next []float64) { testRidgeAdds++; e.Add(phi, next) },
			Fit: func(l float64, _ []float64) (*estimator.Fit, error) { return e.Fit(l) },
			CrossValidate: func(n int, data estimator.Data, folds int, grid []float64, _ []float64) (*estimator.CV, error) {
				return estimator.CrossValidateLDS(e, n, data, folds, grid, nil)
			},
			Sandwich: e.Sandwich}, nil
	}}

func init() { agent.RegisterEstimator(&testRidge) } // the one registration line

// TestTestOnlyEstimator: an estimator registered from a test file is a
// method of smrl estimate (ParseMethods, Fit, the memory check, the help
// of --method) and gives
// agents test-ridge, test-ridge-ucb and test-ridge-ps that a config
// accepts and agent.New builds; its agent fits what smrl estimate fits on
// the same transitions, bit for bit, and equals lds there (the same least
// squares).
func TestTestOnlyEstimator(t *testing.T) {
	if got, err := ParseMethods([]string{"test-ridge,sm"}); err != nil || !slices.Equal(got, []string{"test-ridge", "sm"}) {
		t.Fatalf("ParseMethods(test-ridge,sm) = %v, %v", got, err)
	}
	if slices.Contains(DefaultMethods(), "test-ridge") {
		t.Errorf("DefaultMethods %v: test-ridge is not a default", DefaultMethods())
	}
	const help = "estimators to run: sm, lds, mle, test-ridge, and for comparison sm-kernel (kernel kink term), sm-plain (h ≡ 1, the authors' SM) (default sm, lds, mle)"
	if got := MethodsHelp(); got != help {
		t.Errorf("MethodsHelp() = %q, want %q", got, help)
	}
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte("agents: [oracle, test-ridge, test-ridge-ucb, test-ridge-ps]\nepisodes: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(config.Options{Path: p})
	if err != nil {
		t.Fatalf("a config with the test-only agents: %v", err)
	}
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkMethodMemory(c, []string{"test-ridge"}); err != nil {
		t.Fatal(err)
	}
	data := Draw(mdp, 200, rand.New(rand.NewPCG(1, 2)))
	phi := Features(mdp, data)
	testRidgeAdds = 0
	w, err := Fit("test-ridge", mdp, phi, data, c.Lambda)
	if err != nil || testRidgeAdds != data.Len() {
		t.Fatalf("Fit(test-ridge): %v after %d of %d transitions", err, testRidgeAdds, data.Len())
	}
	lds, err := Fit("lds", mdp, phi, data, c.Lambda)
	if err != nil || !slices.Equal(w, lds) {
		t.Errorf("Fit(test-ridge) = %v, Fit(lds) = %v (%v)", w, lds, err)
	}
	for _, name := range []string{"test-ridge", "test-ridge-ucb", "test-ridge-ps"} {
		a, err := agent.New(name, mdp.Model, mdp.Dynamics, agent.Config{Lambda: c.Lambda, Confidence: agent.ConfidenceOf(c), Rollout: "sample", Horizon: c.Env.Horizon})
		if err != nil {
			t.Fatalf("agent.New(%s): %v", name, err)
		}
		if !a.Learner() || a.Method() != "test-ridge" || !agent.Learns(name) {
			t.Errorf("%s: Learner %v, Method %q, Learns %v", name, a.Learner(), a.Method(), agent.Learns(name))
		}
		if name != "test-ridge" {
			continue
		}
		for i := range data.Len() {
			a.Observe(data.State(i), data.Action(i), data.NextState(i))
		}
		if err := a.EndEpisode(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Model.W, w) {
			t.Errorf("agent test-ridge fitted %v, smrl estimate %v", a.Model.W, w)
		}
	}
}
