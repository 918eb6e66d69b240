package record

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
)

// Trial identifies one run of one agent.
type Trial struct {
	Agent string
	Seed  int // 0-based seed index
}

// Episode is the outcome of one episode of one trial.
type Episode struct {
	Episode   int     // from 1
	Reward    float64 // the episode's return (package env): Σ_h r(s_h, a_h), plus a terminal reward
	Steps     int     // the episode's length: H, or fewer when it reached a terminal state
	PlusCount int     // steps that played the first action of env.actions
	W         []float64
	SE        []float64 // standard errors of W (stats.save_se), else nil
	WError    float64   // |Ŵ − W0|_F after the end-of-episode update; NaN for the oracle
	Beta      float64   // β_k of the confidence set planned with; NaN for agents without one
	Accept    float64   // fraction of the episode's sampled parameters that fell in the ball; NaN when none were drawn
	// Lambda is the λ of the end-of-episode refit of an agent that chooses
	// it by cross-validation (lambda: cv; agent.Agent.CVLambda), else 0.
	Lambda float64
	// Diag diagnoses a learning agent's end-of-episode refit; nil for
	// agents that fit nothing (and in results of earlier versions).
	Diag *Diag
	// Actions counts the episode's steps per action of a discrete action
	// set: Actions[i] steps played env.actions[i]. nil for a box of
	// continuous actions.
	Actions []int
}

// Diag diagnoses one refit (estimator.Fit.Conditioning).
type Diag struct {
	Cond    float64 // condition number of V + λI (2-norm); NaN when unknown
	MinEigN float64 // smallest eigenvalue of V over n, the transitions so far; NaN when unknown
	// WStep is |Ŵ_k − Ŵ_(k−1)|_F, the step from the previous refit (from
	// the starting W = 0 in episode 1).
	WStep float64
}

// String prints d's values (not its address), so that results print
// alike when they are equal.
func (d *Diag) String() string {
	if d == nil {
		return "<nil>"
	}
	return fmt.Sprintf("{cond %v min_eig_n %v w_step %v}", d.Cond, d.MinEigN, d.WStep)
}

// Result holds every trial's episodes.
type Result struct {
	Trials   []Trial
	Episodes [][]Episode // per trial, in the order of Trials
}

// Trials lists the (agent, seed) pairs of a config in canonical order:
// agents in config order, then seeds. Package runner runs them in this
// order, and the results files list them so.
func Trials(c *config.Config) []Trial {
	var ts []Trial
	for _, a := range c.Agents {
		for s := 0; s < c.Seeds; s++ {
			ts = append(ts, Trial{Agent: a, Seed: s})
		}
	}
	return ts
}
