package agent

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// gaussTruth is s' = W0 phi + N(0, σ² I) on R² with affine features.
func gaussTruth(t testing.TB, sigma float64) *expfam.Model {
	t.Helper()
	g, err := expfam.NewGaussian(2, sigma)
	if err != nil {
		t.Fatal(err)
	}
	feat := expfam.Affine{DS: 2, DA: 1}
	w := make([]float64, 2*feat.Dim())
	w[0], w[feat.Dim()+1] = 0.8, 0.7
	m, err := expfam.NewModel(g, feat, w)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// specOf is the model class of an expfam truth m, with the LDS agent's
// noise σ in every coordinate.
func specOf(m *expfam.Model, ldsSigma float64) env.ModelSpec {
	s := make([]float64, m.Dist.StateDim())
	for i := range s {
		s[i] = ldsSigma
	}
	return env.ModelSpec{Family: m.Dist, Features: m.Feat, LDSSigma: s, W0: m.W}
}

func defaultConfidence(t testing.TB) Confidence {
	t.Helper()
	c := testutil.LoadConfig(t, "")
	return ConfidenceOf(c)
}

// TestTheoryConstants: "auto" gives the constants of the agent's Gaussian
// model in its fit's units, numbers override, and a family without them is
// an error that says why.
func TestTheoryConstants(t *testing.T) {
	k := defaultConfidence(t)
	k.Beta = "theory"
	truth := gaussTruth(t, 0.5)
	for _, c := range []struct {
		agent    string
		ldsSigma float64
		want     estimator.Constants
	}{
		{"sm-ucb", 1, estimator.Constants{BPsi: 64, BC: 0, Alpha1: 16}},
		{"mle-ucb", 1, estimator.Constants{BPsi: 4, BC: 0, Alpha1: 4}},
		{"lds-ucb", 0.25, estimator.Constants{BPsi: 16, BC: 0, Alpha1: 16}},
	} {
		ag, err := New(c.agent, specOf(truth, c.ldsSigma), nil, Config{Lambda: 0.1, Rollout: "sample", Confidence: k, Horizon: 5})
		if err != nil {
			t.Fatal(err)
		}
		if ag.theory != c.want {
			t.Errorf("%s: constants %+v, want %+v", c.agent, ag.theory, c.want)
		}
		// β of the empty fit: log det = 0, ridge λ (λ/σ² for lds).
		ridge := 0.1
		if c.agent == "lds-ucb" {
			ridge /= c.ldsSigma * c.ldsSigma
		}
		w := c.want
		want := math.Sqrt(2*w.BPsi/w.Alpha1)*math.Sqrt(math.Log(2/k.Delta)) + math.Sqrt(ridge)*k.BStar
		if got := ag.beta(); !testutil.AbsWithin(got, want, 1e-12*want) {
			t.Errorf("%s: β_1 = %.15g, want %.15g", c.agent, got, want)
		}
	}
	// Numbers override auto one by one.
	k2 := k
	k2.BPsi, k2.Alpha1 = "2", "0.5"
	ag, err := New("sm-ucb", specOf(truth, 1), nil, Config{Lambda: 0.1, Rollout: "sample", Confidence: k2, Horizon: 5})
	if err != nil {
		t.Fatal(err)
	}
	if want := (estimator.Constants{BPsi: 2, BC: 0, Alpha1: 0.5}); ag.theory != want {
		t.Errorf("overridden constants %+v, want %+v", ag.theory, want)
	}
	// custom-sin: α₁ = 0, no derived constants.
	_, mdp := load(t, "../../configs/synthetic.yaml")
	if _, err := New("sm-ucb", specOf(mdp.True, 1), nil, Config{Lambda: 0.1, Rollout: "sample", Confidence: k, Horizon: 5}); err == nil ||
		!strings.Contains(err.Error(), "confidence.b_psi: auto is derived only for Gaussian models") {
		t.Errorf("sm-ucb with theory β on custom-sin: %v", err)
	}
	if _, err := New("lds-ucb", specOf(mdp.True, 1), nil, Config{Lambda: 0.1, Rollout: "sample", Confidence: k, Horizon: 5}); err != nil {
		t.Errorf("lds-ucb with theory β on custom-sin (its own model is Gaussian): %v", err)
	}
}

// TestTheoremLambda: confidence.lambda theorem fits the -ucb agents with
// λ = 1/b_star², the others with the top-level λ.
func TestTheoremLambda(t *testing.T) {
	k := defaultConfidence(t)
	k.Beta, k.Lambda, k.BStar = "theory", "theorem", 4
	truth := gaussTruth(t, 0.5)
	for name, want := range map[string]float64{"sm-ucb": 1.0 / 16, "lds-ucb": 1.0 / 16, "sm-ps": 0.3, "sm": 0.3} {
		ag, err := New(name, specOf(truth, 0.5), nil, Config{Lambda: 0.3, Rollout: "sample", Confidence: k, Horizon: 5})
		if err != nil {
			t.Fatal(err)
		}
		ag.Observe([]float64{0.1, 0.2}, []float64{1}, []float64{0.3, -0.1})
		if err := ag.EndEpisode(); err != nil {
			t.Fatal(err)
		}
		if ag.Last.Lambda != want {
			t.Errorf("%s: λ = %g, want %g", name, ag.Last.Lambda, want)
		}
	}
}

// TestLDSAgentUsesItsSigma: the lds agents' confidence set is in the
// precision of their own model: the norm scales as 1/lds.sigma, the ridge
// as 1/lds.sigma², and log det(V/λ + I) does not change.
func TestLDSAgentUsesItsSigma(t *testing.T) {
	k := defaultConfidence(t)
	truth := gaussTruth(t, 0.5)
	fits := map[float64]*estimator.Fit{}
	for _, sigma := range []float64{1, 0.5} {
		ag, err := New("lds-ps", specOf(truth, sigma), nil, Config{Lambda: 0.3, Rollout: "sample", Confidence: k, Horizon: 5})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		for i := 0; i < 20; i++ {
			ag.Observe([]float64{rng.NormFloat64(), rng.NormFloat64()}, []float64{1}, []float64{rng.NormFloat64(), rng.NormFloat64()})
		}
		if err := ag.EndEpisode(); err != nil {
			t.Fatal(err)
		}
		fits[sigma] = ag.Last
	}
	x := []float64{0.3, -1, 0.2, 0.5, 0.1, 1, -0.4, 2}
	if got, want := fits[0.5].Norm(x), 2*fits[1].Norm(x); !testutil.AbsWithin(got, want, 1e-12*want) {
		t.Errorf("|x|_A with lds.sigma 0.5 = %g, want twice that with σ = 1, %g", got, want)
	}
	if fits[0.5].Ridge() != 4*fits[1].Ridge() || fits[0.5].LogDet() != fits[1].LogDet() {
		t.Errorf("ridge %g vs %g, log det %g vs %g", fits[0.5].Ridge(), fits[1].Ridge(), fits[0.5].LogDet(), fits[1].LogDet())
	}
}

// TestSimulateEpisode: on the deterministic drift s' = s + a with the
// reward peaked at s = 3 and actions ±1, the planner walks up from 0, so
// the simulated episode of H = 5 visits 0, 1, 2, 3, 4 and scores
// Σ_h exp(−(s_h − 3)²).
func TestSimulateEpisode(t *testing.T) {
	reward := stateReward(func(s []float64) float64 { return math.Exp(-(s[0] - 3) * (s[0] - 3)) })
	pl, err := NewPlanner("constant", 1, 3, 1, false, [][]float64{{-1}, {1}}, nil, reward, 1)
	if err != nil {
		t.Fatal(err)
	}
	s1 := []float64{0}
	got := SimulateEpisode(pl, driftSim{}, s1, 5, rand.New(rand.NewPCG(1, 1)))
	var want float64
	for h := 0; h < 5; h++ {
		want += reward([]float64{float64(h)})
	}
	if !testutil.AbsWithin(got, want, 1e-12) || s1[0] != 0 {
		t.Errorf("simulated reward %.15g, want %.15g (s1 now %v)", got, want, s1)
	}
}

// TestRolloutPicksBestCandidate: with value = rollout the agent plans with
// the candidate whose simulated episode scores highest (η = 5 under
// a = −1 is the best model of the exploration MDP), ties to the earliest,
// and the choice is a function of the rng's state only.
func TestRolloutPicksBestCandidate(t *testing.T) {
	_, mdp := load(t, "../../configs/exploration.yaml")
	pl, err := NewPlanner("constant", 20, 5, 1, true, mdp.Actions, nil, mdp.Task, 1)
	if err != nil {
		t.Fatal(err)
	}
	model := func(w ...float64) Simulator { return trueFamilyModel(t, mdp, w) }
	pcg := rand.NewPCG(0, 0)
	a := &Agent{sims: []Simulator{model(0, -3, 0, -3), model(0, 0, 0, 5), model(0, 1, 0, 1), model(0, 0, 0, 5)},
		horizon: 10, rollPCG: pcg, rollRand: rand.New(pcg)}
	j := a.bestRollout(pl, []float64{0}, rand.New(rand.NewPCG(3, 3)))
	if j != 1 {
		t.Errorf("picked candidate %d, want 1 (the first of the two η = 5 models)", j)
	}
	if j2 := a.bestRollout(pl, []float64{0}, rand.New(rand.NewPCG(3, 3))); j2 != j {
		t.Errorf("same rng state, different choice: %d vs %d", j2, j)
	}
}
