package experiment

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/results"
)

// TableColumns returns the measures that suit c's task on mdp: the paper's
// values for the paper's experiment, lengths when episodes can end early,
// cumulative reward and regret for the paper's kind of MDP (env.kind
// expfam), and the a = +1 count for the discrete actions ±1 only.
func TableColumns(c *config.Config, mdp *env.MDP) results.Columns {
	return results.Columns{
		Paper:       IsPaper(c),
		Terminating: mdp.Task.Terminates(),
		Cumulative:  mdp.Kind == "expfam",
		PlusCount:   plusMinusOne(mdp),
	}
}

// plusMinusOne reports whether mdp's actions are the discrete set {+1, −1}
// with +1 first (the action the plus count counts).
func plusMinusOne(mdp *env.MDP) bool {
	if mdp.Box != nil || len(mdp.Actions) != 2 {
		return false
	}
	a, b := mdp.Actions[0], mdp.Actions[1]
	return len(a) == 1 && len(b) == 1 && a[0] == 1 && b[0] == -1
}
