package runner

import (
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// The oracle on noise-free CartPole (configs/cartpole.yaml: 100 random ±1
// sequences, 10 steps ahead, sampled rollouts of the true simulator) at 2
// seeds × 5 episodes: with tie_break vote or mean it balances all 200 steps
// in every episode (on 10 seeds × 200 episodes: 200.0 ± 0); with the
// authors' first-drawn rule it drops the pole (measured 165.9 steps per
// episode here; 180.1 over the last 20 of 200 episodes).
func TestCartPoleTieBreak(t *testing.T) {
	for _, tb := range []string{"first", "vote", "mean"} {
		c := testutil.LoadConfig(t, "../../configs/cartpole.yaml")
		c.Seeds, c.Episodes, c.Agents = 2, 5, []string{"oracle"}
		c.Planner.TieBreak = tb
		res := runConfig(t, c, 0)
		var steps, n float64
		for _, eps := range res.Episodes {
			for _, e := range eps {
				steps += float64(e.Steps)
				n++
			}
		}
		t.Logf("%s: %.1f steps per episode", tb, steps/n)
		if full := steps == 200*n; full != (tb != "first") {
			t.Errorf("tie_break %s: %.1f steps per episode, want 200 for vote and mean, fewer for first", tb, steps/n)
		}
	}
}
