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
// This file parses every expression so that a syntax error or an unknown
// variable fails at load time, naming the key and the column; the numeric
// checks (normalisable at W0, finite derivatives) are package env's.

// ExprKind is the kind name of expression families and features.
const ExprKind = "expression"

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

// Coordinates returns the per-coordinate expression families of an
// env.family of kind expression: coords, or log_q/psi/support repeated
// env.family.dim times.
func (f Family) Coordinates() []ExprFamily {
	if len(f.Coords) > 0 {
		return f.Coords
	}
	out := make([]ExprFamily, f.Dim)
	for i := range out {
		out[i] = ExprFamily{LogQ: f.LogQ, Psi: f.Psi, Support: f.Support}
	}
	return out
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

// checkExpr parses src with vars and reports a problem under key; boolean
// says whether a comparison is wanted (true) or a number.
func checkExpr(bad func(key, format string, args ...any), key, src string, vars []string, boolean bool) {
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

// checkExprFamily checks one family of x under key.
func checkExprFamily(bad func(key, format string, args ...any), key string, f ExprFamily) {
	checkExpr(bad, key+".log_q", f.LogQ, FamilyVars, false)
	if len(f.Psi) == 0 {
		bad(key+".psi", "must list at least one statistic, an expression of x")
	}
	if len(f.Psi) > maxExprStats {
		bad(key+".psi", "must list at most %d statistics, got %d", maxExprStats, len(f.Psi))
	}
	for k, p := range f.Psi {
		checkExpr(bad, fmt.Sprintf("%s.psi[%d]", key, k), p, FamilyVars, false)
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

// checkJointExprFamily checks a joint expression family: log q and psi
// are expressions of x0, …, x_{dim−1}.
func checkJointExprFamily(bad func(key, format string, args ...any), f Family) {
	vars := JointVars(max(f.Dim, JointVarMax(append([]string{f.LogQ}, f.Psi...)...)+1))
	checkExpr(bad, "env.family.log_q", f.LogQ, vars, false)
	if len(f.Psi) == 0 {
		bad("env.family.psi", "must list at least one statistic, an expression of %s", vars)
	}
	if len(f.Psi) > maxExprStats {
		bad("env.family.psi", "must list at most %d statistics, got %d", maxExprStats, len(f.Psi))
	}
	for k, p := range f.Psi {
		checkExpr(bad, fmt.Sprintf("env.family.psi[%d]", k), p, vars, false)
	}
}

// maxExprStats bounds the statistics of one expression coordinate.
const maxExprStats = 64

// validateExpr checks the expression keys (see the top of this file) that
// c uses: a key of a part c does not select is reported once, by the
// registry ("is set but env.kind is pendulum"), or dropped when a source
// above the key's changed the selection (Load), so it is not checked here.
func (c *Config) validateExpr(bad func(key, format string, args ...any)) {
	e := c.Env
	f := e.Family
	ds, da := f.Dim, e.ActionDim
	if ps := c.EnvDim(); ps > 0 {
		ds = ps
	}
	if ds < 1 || ds > maxCount || da < 1 || da > maxCount {
		return // reported elsewhere
	}
	if c.Uses("env.family.log_q") {
		switch {
		case len(f.Coords) > 0 && (f.LogQ != "" || len(f.Psi) > 0 || len(f.Support) > 0):
			bad("env.family.coords", "give either coords (one family per coordinate) or log_q, psi and support (one for all), not both")
		case len(f.Coords) > 0 && len(f.Coords) != f.Dim:
			bad("env.family.coords", "has %d families for env.family.dim = %d coordinates", len(f.Coords), f.Dim)
		case len(f.Coords) > 0:
			for i, cf := range f.Coords {
				checkExprFamily(bad, fmt.Sprintf("env.family.coords[%d]", i), cf)
			}
		case f.JointExpr():
			checkJointExprFamily(bad, f)
		default:
			checkExprFamily(bad, "env.family", ExprFamily{LogQ: f.LogQ, Psi: f.Psi, Support: f.Support})
		}
	}
	checkFeatures := func(key string, ft Features, ds int) {
		if !c.Uses(key + ".phi") {
			return
		}
		if len(ft.Phi) == 0 {
			bad(key+".phi", "must list at least one feature, an expression of %s", strings.Join(TaskVars(ds, da), ", "))
		}
		if len(ft.Phi) > maxCount {
			bad(key+".phi", "must list at most %d features, got %d", maxCount, len(ft.Phi))
		}
		for j, p := range ft.Phi {
			checkExpr(bad, fmt.Sprintf("%s.phi[%d]", key, j), p, TaskVars(ds, da), false)
		}
	}
	checkFeatures("env.features", e.Features, f.Dim)
	checkFeatures("model.features", c.Model.Features, ds)
	if e.Reward.Expression != "" && c.Uses("env.reward.expression") {
		checkExpr(bad, "env.reward.expression", e.Reward.Expression, TaskVars(ds, da), false)
	}
	if c.Uses("env.terminal") {
		if e.Terminal != "" {
			checkExpr(bad, "env.terminal", e.Terminal, StateVars(ds), true)
		}
		if !finite(e.TerminalReward) || math.Abs(e.TerminalReward) > 1e6 {
			bad("env.terminal_reward", "must be a finite number with |value| <= 1e6 (as env.mountain_car.goal_reward), got %v: the planner adds rewards over n_rollouts × tau states, which must not overflow", e.TerminalReward)
		} else if e.TerminalReward != 0 && e.Terminal == "" {
			bad("env.terminal_reward", "needs env.terminal, the states that collect it")
		}
	}
	if !c.Uses("model.expression") {
		return
	}
	// model.family entries "expression" take model.expression in order.
	n := 0
	for _, k := range c.Model.Family {
		if k == ExprKind {
			n++
		}
	}
	if len(c.Model.Family) == 1 && n == 1 {
		n = ds // one entry for every coordinate
	}
	m := c.Model.Expression
	switch {
	case len(m) == 0:
		bad("model.expression", "must define the family of model.family's expression entries: [{log_q: ..., psi: [...]}]")
	case len(m) != 1 && len(m) != n:
		bad("model.expression", "has %d families for %d expression coordinates of model.family (give one, or one per coordinate)", len(m), n)
	default:
		for i, mf := range m {
			checkExprFamily(bad, fmt.Sprintf("model.expression[%d]", i), mf)
		}
	}
}
