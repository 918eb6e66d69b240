package results

import (
	"fmt"
	"math"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
)

// The thresholds of the refit warnings (Warnings), checked at the last
// refit of a trial. See docs/outputs.md ("Warnings") for how they were
// chosen.
const (
	// CondLimit bounds cond(V + λI): above it the solve for Ŵ loses more
	// than half of float64's 16 digits.
	CondLimit = 1e8
	// MinEigLimit bounds λ_min(V) = n·min_eig_n from below for a
	// direction the data, not the ridge λ, determine: below it that
	// direction of Ŵ rests on less information than a quarter of one
	// transition with features and statistics of unit scale.
	MinEigLimit = 0.25
)

// Warning is one problem of one trial (agent, seed): a badly posed refit
// or an action never played. Kind says which check raised it, so that a
// trial has at most one warning per kind.
type Warning struct {
	Agent string
	Seed  int
	Kind  string // "cond", "min_eig", "w_step", "w_still" or "action"
	Text  string // what and what helps, after "agent A seed S "
}

// String is the warning's line: "warning: agent A seed S " + Text.
func (w Warning) String() string {
	return fmt.Sprintf("warning: agent %s seed %d %s", w.Agent, w.Seed, w.Text)
}

// WarnInput is what Warnings needs beyond the rows: the discrete actions
// (env.actions, nil for a box) and the λ each agent's refit used when it
// did not cross-validate it.
type WarnInput struct {
	Actions [][]float64
	Lambda  func(agent string) float64
	// PlainSM says that the sm agents fit without the information floor
	// (sm.floor: 0), which the little-information warning then suggests.
	PlainSM bool
}

// Warnings checks every trial of rows (in canonical order: agents, seeds,
// episodes ascending) and returns its warnings, at most one per kind:
//
//   - cond: cond(V + λI) > CondLimit at the last refit;
//   - min_eig: at the last refit λ ≤ λ_min(V) < MinEigLimit, with
//     λ_min(V) = n·min_eig_n: a direction the data determine from very
//     little information (below λ the ridge sets it, as intended);
//   - w_step: in the last third of the episodes a step |Ŵ_k − Ŵ_(k−1)|_F
//     larger than both |Ŵ_k|_F and every step of the first third: the
//     estimate jumped where a consistent one settles;
//   - w_still: every refit of the trial left Ŵ where it started (w_step
//     0 in every episode): the agent learned nothing, e.g. a data-bound
//     family still waiting for the data to draw its statistics from;
//   - action: a learning agent (one with refit diagnostics) never played
//     an action of a discrete action set in the whole trial.
//
// Trials without diagnostics (the oracle, lqr, results of earlier
// versions) get none.
func Warnings(rows []Row, in WarnInput) []Warning {
	var out []Warning
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && rows[hi].Agent == rows[lo].Agent && rows[hi].Seed == rows[lo].Seed {
			hi++
		}
		out = append(out, trialWarnings(rows[lo:hi], in)...)
		lo = hi
	}
	return out
}

// trialWarnings returns the warnings of one trial's rows.
func trialWarnings(rows []Row, in WarnInput) []Warning {
	last := rows[len(rows)-1]
	d := last.Diag
	if d == nil {
		return nil
	}
	var out []Warning
	add := func(kind, format string, args ...any) {
		out = append(out, Warning{Agent: last.Agent, Seed: last.Seed, Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
	explore := exploringAdvice(last.Agent)
	if d.Cond > CondLimit {
		add("cond", "refit is ill-conditioned: cond(V + λI) = %.3g > %.0e at episode %d, so the solve for Ŵ loses over half its digits; a larger lambda (or lambda: cv) bounds it",
			d.Cond, CondLimit, last.Episode)
	}
	lambda := last.Lambda // the cross-validated λ, else the agent's
	if lambda == 0 && in.Lambda != nil {
		lambda = in.Lambda(last.Agent)
	}
	n := 0
	for _, r := range rows {
		n += r.Steps
	}
	if minEig := d.MinEigN * float64(n); minEig < MinEigLimit && minEig >= lambda {
		floor := ""
		if in.PlainSM && strings.HasPrefix(last.Agent, "sm") {
			floor = "; sm.floor (5, the default; 0 here) shrinks it to what the data support"
		}
		add("min_eig", "refit rests on little information in some direction: smallest eigenvalue of V = %.3g < %g at episode %d (n = %d, λ = %g), so Ŵ is noisy along it; a larger lambda (or lambda: cv) shrinks it%s%s",
			minEig, MinEigLimit, last.Episode, n, lambda, floor, explore)
	}
	if k, step, ok := lateJump(rows); ok {
		add("w_step", "estimate jumped late: |Ŵ_k − Ŵ_(k−1)|_F = %.3g at episode %d exceeds |Ŵ_k|_F and every step of the first third; a larger lambda (or lambda: cv) steadies it%s",
			step, k, explore)
	}
	if still(rows) {
		add("w_still", "model never changed: every one of its %d refits left Ŵ where it started (w_step 0), so it planned with its initial model throughout (a family bound to the data waits for enough distinct next states in every coordinate to draw its statistics from: a constant coordinate never gives them)", len(rows))
	}
	if last.Actions != nil {
		if text := unplayedActions(rows, in.Actions, last.Agent, explore != ""); text != "" {
			add("action", "%s", text)
		}
	}
	return out
}

// still reports whether every row with refit diagnostics records a
// w_step of 0 (and there is at least one).
func still(rows []Row) bool {
	n := 0
	for _, r := range rows {
		if r.Diag == nil {
			continue
		}
		if r.Diag.WStep != 0 {
			return false
		}
		n++
	}
	return n > 0
}

// maxListedActions bounds the actions one warning names: a set of
// hundreds of actions would otherwise make one line of hundreds of values.
const maxListedActions = 5

// unplayedActions describes the actions of a discrete set that a trial's
// rows never played ("" when it played every one), in one sentence for
// the trial. What was never played is extrapolated from what was; it is
// unidentified only when some features are reached by those actions
// alone (per-action features), which the min_eig warning reports.
func unplayedActions(rows []Row, actions [][]float64, agent string, greedy bool) string {
	var never []string
	for i, a := range actions {
		played := false
		for _, r := range rows {
			played = played || i < len(r.Actions) && r.Actions[i] > 0
		}
		if !played {
			never = append(never, fmt.Sprintf("%d (a = %s)", i, fmtAction(a)))
		}
	}
	if len(never) == 0 {
		return ""
	}
	listed := strings.Join(never[:min(len(never), maxListedActions)], ", ")
	if len(never) > maxListedActions {
		listed += fmt.Sprintf(" and %d more", len(never)-maxListedActions)
	}
	help := "leave them out of env.actions if the task does not need them"
	if greedy { // an exploring variant would play them
		help = fmt.Sprintf("an exploring agent (%s-ps, %s-ucb) plays them, or %s", agent, agent, help)
	}
	return fmt.Sprintf("never played %d of %d actions in %d episodes: %s; its model of them is extrapolated from the actions it played, and the columns of Ŵ that only their features reach (per-action features) are not identified; %s",
		len(never), len(actions), len(rows), listed, help)
}

// lateJump finds the largest step of the last third of a trial's episodes
// that exceeds |Ŵ_k|_F and every step of the first third.
func lateJump(rows []Row) (episode int, step float64, ok bool) {
	k := len(rows)
	third := k / 3
	if third == 0 || rows[0].W == nil {
		return 0, 0, false
	}
	var early float64
	for _, r := range rows[:third] {
		if r.Diag == nil {
			return 0, 0, false
		}
		early = math.Max(early, r.Diag.WStep)
	}
	for _, r := range rows[k-third:] {
		if r.Diag == nil {
			return 0, 0, false
		}
		var norm float64
		for _, w := range r.W {
			norm += w * w
		}
		if s := r.Diag.WStep; s > early && s > math.Sqrt(norm) && s > step {
			episode, step, ok = r.Episode, s, true
		}
	}
	return episode, step, ok
}

// exploringAdvice names the exploring agents of agent's estimator, which
// gather data where a greedy one does not; empty for an exploring agent.
func exploringAdvice(agent string) string {
	if config.UsesConfidence(agent) {
		return ""
	}
	return fmt.Sprintf("; an exploring agent (%s-ps, %s-ucb) gathers data there", agent, agent)
}

// fmtAction writes an action as [x] or [x, y].
func fmtAction(a []float64) string {
	s := make([]string, len(a))
	for i, x := range a {
		s[i] = fmt.Sprintf("%g", x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
