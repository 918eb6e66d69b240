package agent

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// TestRefitReleasesTheReplacedFit: a refit hands the fit it replaces back
// to the estimator (estimator.Fit.Release, whose factor the next refit
// writes into), so the old fit panics when used, for the learners whose
// estimators pool their factors (sm, lds and their -ucb and -ps agents,
// with a fixed λ, with lambda: cv and with the standard errors); an mle
// fit, whose estimator keeps no pool, stays usable. The current fit always
// works.
func TestRefitReleasesTheReplacedFit(t *testing.T) {
	truth := gaussTruth(t, 0.5)
	k := defaultConfidence(t)
	cv := CVConfig{Grid: []float64{1e-3, 0.1, 10}, Folds: 3}
	for _, c := range []struct {
		name    string
		cfg     Config
		release bool
	}{
		{"sm", Config{Lambda: 1e-3}, true},
		{"lds", Config{Lambda: 1e-3}, true},
		{"sm", Config{Lambda: 1e-3, SaveSE: true}, true},
		{"lds", Config{Lambda: 1e-3, SaveSE: true}, true},
		{"sm", Config{CV: &cv}, true},
		{"lds", Config{CV: &cv}, true},
		{"sm-ucb", Config{Lambda: 1e-3}, true},
		{"sm-ps", Config{Lambda: 1e-3}, true},
		{"lds-ps", Config{Lambda: 1e-3}, true},
		{"mle", Config{Lambda: 1e-3}, false},
	} {
		c.cfg.Confidence, c.cfg.Rollout, c.cfg.Horizon = k, "sample", 5
		name := fmt.Sprintf("%s (save_se %v, cv %v)", c.name, c.cfg.SaveSE, c.cfg.CV != nil)
		ag, err := New(c.name, specOf(truth, 1), nil, c.cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rng := rand.New(rand.NewPCG(7, 7))
		step := expfam.NewStepper(truth)
		for episode := range 3 {
			for range 10 {
				s := []float64{rng.NormFloat64(), rng.NormFloat64()}
				a := []float64{rng.NormFloat64()}
				next := make([]float64, 2)
				step.Step(s, a, rng, next)
				ag.Observe(s, a, next)
			}
			old := ag.Last
			if err := ag.EndEpisode(); err != nil {
				t.Fatalf("%s episode %d: %v", name, episode, err)
			}
			_ = ag.Last.LogDet() // the current fit works
			if old == nil {
				continue
			}
			if got := panics(func() { old.LogDet() }); got != c.release {
				t.Fatalf("%s episode %d: the replaced fit panics when used: %v, want %v", name, episode, got, c.release)
			}
		}
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}
