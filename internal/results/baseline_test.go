package results

import (
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/record"
)

// The readers learn the regret baseline from the agents' registrations
// (config.IsBaseline), which package agent makes; this package's tests do
// not link it, so they register the oracle's part as agent does, and a
// test-only baseline.
func init() {
	config.Register(config.Part{Group: "agents", Name: "oracle", Baseline: true})
	config.Register(config.Part{Group: "agents", Name: "test-reference", Baseline: true})
}

// TestRegretAgainstTheDeclaredBaseline: Rows pairs regret against the
// agent whose registration declares Baseline, whatever its name, and
// against no agent that does not declare it (lqr).
func TestRegretAgainstTheDeclaredBaseline(t *testing.T) {
	ep := func(r float64) []record.Episode { return []record.Episode{{Episode: 1, Reward: r}} }
	for _, tc := range []struct {
		base   string
		regret float64
	}{{"test-reference", 3}, {"lqr", math.NaN()}} {
		res := &record.Result{Trials: []record.Trial{{Agent: "sm", Seed: 0}, {Agent: tc.base, Seed: 0}},
			Episodes: [][]record.Episode{ep(2), ep(5)}}
		rows := Rows(res)
		if got := rows[0].Regret; !(got == tc.regret || math.IsNaN(got) && math.IsNaN(tc.regret)) {
			t.Errorf("regret of sm against %s: %v, want %v", tc.base, got, tc.regret)
		}
	}
}
