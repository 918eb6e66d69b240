package config

import (
	"fmt"
	"math"
	"strings"

	"github.com/smrl-dev/smrl/internal/expr"
)

// Keys of families, features, rewards and terminal states written as
// expressions (package expr; docs/expressions.md):
//
//	env.family.kind: expression     log_q, psi, support: one family of x for
//	                                every coordinate; or coords, one per coordinate
//	env.features.kind: expression   env.features.phi: expressions of s0.. and a0..
//	model.features.kind: expression model.features.phi, likewise
//	model.family entry expression   its family from model.expression (one
//	                                for all such entries, or one per entry)
//	env.reward.expression           r(s, a) of s0.. and a0.. (expfam only)
//	env.terminal                    a boolean expression of s0..: terminal states
//	env.terminal_reward             collected on entering a terminal state
//
// This file parses the task's expressions (the reward and the terminal
// states) so that a syntax error or an unknown variable fails at load
// time, naming the key and the column, and gives the expression families
// and features of package env the same checks (CheckExpr,
// CheckExprFamily), which they run in their parts' Validate; the numeric
// checks (normalisable at W0, finite derivatives) are package env's.

// FamilyVars are the variables of a family's expressions.
var FamilyVars = []string{"x"}

// StateVars returns s0, …, s{ds−1}.
func StateVars(ds int) []string {
	v := make([]string, ds)
	for i := range v {
		v[i] = fmt.Sprintf("s%d", i)
	}
	return v
}

// TaskVars returns s0, …, s{ds−1}, a0, …, a{da−1}: the variables of
// features and rewards, in the order of their values [s, a].
func TaskVars(ds, da int) []string {
	v := StateVars(ds)
	for i := range da {
		v = append(v, fmt.Sprintf("a%d", i))
	}
	return v
}

// ExprStats returns the total number of statistics of the expression
// families fs.
func ExprStats(fs []ExprFamily) int {
	n := 0
	for _, f := range fs {
		n += len(f.Psi)
	}
	return n
}

// Bounds returns the support of f, (−Inf, +Inf) when none is given.
func (f ExprFamily) Bounds() (lo, hi float64) {
	if len(f.Support) == 2 {
		return f.Support[0], f.Support[1]
	}
	return math.Inf(-1), math.Inf(1)
}

// CheckExpr parses src with vars and reports a problem under key; boolean
// says whether a comparison is wanted (true) or a number.
func CheckExpr(bad Bad, key, src string, vars []string, boolean bool) {
	if strings.TrimSpace(src) == "" {
		bad(key, "must be an expression, got nothing")
		return
	}
	e, err := expr.Parse(src, vars)
	if err != nil {
		bad(key, "%v", err)
		return
	}
	switch {
	case boolean && !e.Bool():
		bad(key, "%q is a number, want a condition such as s0 > 1 (comparisons joined by && and ||)", src)
	case !boolean && e.Bool():
		bad(key, "%q is a condition (true/false), want a number", src)
	}
}

// CheckExprFamily checks one family of x under key.
func CheckExprFamily(bad Bad, key string, f ExprFamily) {
	CheckExpr(bad, key+".log_q", f.LogQ, FamilyVars, false)
	if len(f.Psi) == 0 {
		bad(key+".psi", "must list at least one statistic, an expression of x")
	}
	if len(f.Psi) > MaxExprStats {
		bad(key+".psi", "must list at most %d statistics, got %d", MaxExprStats, len(f.Psi))
	}
	for k, p := range f.Psi {
		CheckExpr(bad, fmt.Sprintf("%s.psi[%d]", key, k), p, FamilyVars, false)
	}
	switch len(f.Support) {
	case 0:
	case 2:
		lo, hi := f.Support[0], f.Support[1]
		if math.IsNaN(lo) || math.IsNaN(hi) || !(lo < hi) {
			bad(key+".support", "must be [lo, hi] with lo < hi (-.inf and .inf allowed), got [%v, %v]", lo, hi)
		} else if (!math.IsInf(lo, 0) && math.Abs(lo) > MaxAbsState) || (!math.IsInf(hi, 0) && math.Abs(hi) > MaxAbsState) {
			bad(key+".support", "finite ends must lie in [−%d, %d], got [%v, %v]: %s", MaxAbsState, MaxAbsState, lo, hi, StateWhy)
		} else if !(hi-lo >= MinSupportWidth) {
			bad(key+".support", "must be at least %g wide, got [%v, %v]: %s", MinSupportWidth, lo, hi, SupportWhy)
		}
	default:
		bad(key+".support", "must be [lo, hi], two numbers, got %d", len(f.Support))
	}
}

// MaxExprStats bounds the statistics of one expression coordinate.
const MaxExprStats = 64

// validateExpr checks the expression keys of the task (env.reward.expression,
// env.terminal) that c uses; the expression families and features check
// their own keys (their parts' Validate, in package env). A key of a part
// c does not select is reported once, by the registry ("is set but
// env.kind is pendulum"), or dropped when a source above the key's
// changed the selection (Load), so it is not checked here.
func (c *Config) validateExpr(bad func(key, format string, args ...any)) {
	e := c.Env
	ds, da := e.Family.Dim, e.ActionDim
	if ps := c.EnvDim(); ps > 0 {
		ds = ps
	} else if ps == DimFromEnv {
		return // the environment's builder parses them once it knows d_s
	}
	if ds < 1 || ds > maxCount || da < 1 || da > maxCount {
		return // reported elsewhere
	}
	if e.Reward.Expression != "" && c.Uses("env.reward.expression") {
		CheckExpr(bad, "env.reward.expression", e.Reward.Expression, TaskVars(ds, da), false)
	}
	if c.Uses("env.terminal") {
		if e.Terminal != "" {
			CheckExpr(bad, "env.terminal", e.Terminal, StateVars(ds), true)
		}
		if !finite(e.TerminalReward) || math.Abs(e.TerminalReward) > 1e6 {
			bad("env.terminal_reward", "must be a finite number with |value| <= 1e6 (as env.mountain_car.goal_reward), got %v: the planner adds rewards over n_rollouts × tau states, which must not overflow", e.TerminalReward)
		} else if e.TerminalReward != 0 && e.Terminal == "" {
			bad("env.terminal_reward", "needs env.terminal, the states that collect it")
		}
	}
}
