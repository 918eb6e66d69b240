package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// exprKeys are the expression family's keys in env.family: log q, psi and
// the support for every coordinate, or coords, one family per coordinate.
type exprKeys struct {
	LogQ    string              `mapstructure:"log_q" yaml:"log_q,omitempty" doc:"expression: log q(x), the base measure, in the expression language of x (docs/expressions.md)"`
	Psi     []string            `mapstructure:"psi" yaml:"psi,omitempty" doc:"expression: the statistics psi(x), one expression each (d_psi of them per coordinate)"`
	Support []float64           `mapstructure:"support" yaml:"support,omitempty" doc:"expression: [low, high] of the support (.inf for unbounded); empty: the real line"`
	Coords  []config.ExprFamily `mapstructure:"coords" yaml:"coords,omitempty" doc:"expression: one {log_q, psi, support} per coordinate, instead of one for all"`
}

// exprModelKeys are the expression family's keys in model: the weight
// cap, and model.expression, one family for all of model.family's
// expression entries or one per entry in order.
type exprModelKeys struct {
	WeightCap  float64             `mapstructure:"weight_cap" yaml:"weight_cap" doc:"cap C of the score-matching weight min(d/C, 1)^p, d = distance to kink/boundary; 0: family default (docs/weighted-sm.md)"`
	Expression []config.ExprFamily `mapstructure:"expression" yaml:"expression,omitempty" doc:"model.family expression: its coordinates families, each {log_q, psi, support} (docs/expressions.md)"`
}

// ExprKind is the name of the expression family and feature map.
const ExprKind = "expression"

// expressionFamily is q and psi written as expressions of x
// (docs/expressions.md; built in expr.go).
var expressionFamily = Family{Part: config.Part{Name: ExprKind, Doc: "q and psi written as expressions of x (log_q, psi, support; docs/expressions.md)",
	Uses: []string{"model.weight_cap"}, C: constText("ψ'(s')ψ'(s')ᵀ of the expressions, with no derived lower bound"),
	DimOf: func(c *config.Config) (int, bool) { // a joint expression: its largest x_i
		if !jointExpr(c) {
			return 0, false
		}
		k := config.Shared[exprKeys](c, "env.family")
		return max(config.JointVarMax(append([]string{k.LogQ}, k.Psi...)...)+1, 1), true
	}},
	EnvUses:   []string{"env.family.log_q", "env.family.psi", "env.family.support", "env.family.coords", "sampler"}, // sampler: the joint expressions of x0, x1, …
	ModelUses: []string{"model.expression"},
	EnvKeys:   &exprKeys{}, ModelKeys: &exprModelKeys{},
	EnvStatsOf: func(c *config.Config, ds int) int {
		if jointExpr(c) {
			return len(config.Shared[exprKeys](c, "env.family").Psi) // the joint statistics
		}
		return config.ExprStats(exprCoordinates(c))
	},
	ModelStatsOf: func(c *config.Config, ds int) int {
		m := 1
		for _, x := range config.Shared[exprModelKeys](c, "model").Expression {
			m = max(m, len(x.Psi))
		}
		return ds * m
	},
	EnvValidate:   validateExprFamily,
	ModelValidate: validateModelExpression,
	Expression:    true,
	True:          newExprFamily,
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) {
		if !at.Learner {
			return nil, fmt.Errorf("the expression family is built whole (newExprFamily)")
		}
		return learnerExprCoord(c, at.Nth)
	}}

// exprCoordinates returns the per-coordinate expression families of an
// env.family of kind expression: coords, or log_q/psi/support repeated
// env.family.dim times.
func exprCoordinates(c *config.Config) []config.ExprFamily {
	k := config.Shared[exprKeys](c, "env.family")
	if len(k.Coords) > 0 {
		return k.Coords
	}
	out := make([]config.ExprFamily, c.Env.Family.Dim)
	for i := range out {
		out[i] = config.ExprFamily{LogQ: k.LogQ, Psi: k.Psi, Support: k.Support}
	}
	return out
}

// validateExprFamily parses env.family's expressions, so that a syntax
// error or an unknown variable fails at load time naming the key; the
// numeric checks are expr.go's, when the MDP is built.
func validateExprFamily(c *config.Config, bad config.Bad) {
	if _, _, ok := exprDims(c); !ok {
		return // reported elsewhere
	}
	f := config.Shared[exprKeys](c, "env.family")
	switch {
	case len(f.Coords) > 0 && (f.LogQ != "" || len(f.Psi) > 0 || len(f.Support) > 0):
		bad("env.family.coords", "give either coords (one family per coordinate) or log_q, psi and support (one for all), not both")
	case len(f.Coords) > 0 && len(f.Coords) != c.Env.Family.Dim:
		bad("env.family.coords", "has %d families for env.family.dim = %d coordinates", len(f.Coords), c.Env.Family.Dim)
	case len(f.Coords) > 0:
		for i, cf := range f.Coords {
			config.CheckExprFamily(bad, fmt.Sprintf("env.family.coords[%d]", i), cf)
		}
	case jointExpr(c):
		checkJointExprFamily(c, bad, f)
	default:
		config.CheckExprFamily(bad, "env.family", config.ExprFamily{LogQ: f.LogQ, Psi: f.Psi, Support: f.Support})
	}
}

// jointExpr reports whether env.family's expression family is joint: its
// log_q or psi names x0, x1, … (a family of the whole next state), not x
// (a product over coordinates; docs/joint-families.md).
func jointExpr(c *config.Config) bool {
	k := config.Shared[exprKeys](c, "env.family")
	return len(k.Coords) == 0 && config.JointVarMax(append([]string{k.LogQ}, k.Psi...)...) >= 0
}

// checkJointExprFamily checks a joint expression family: log q and psi
// are expressions of x0, …, x_{dim−1}, on the whole space.
func checkJointExprFamily(c *config.Config, bad config.Bad, f exprKeys) {
	dim := c.Env.Family.Dim
	m := config.JointVarMax(append([]string{f.LogQ}, f.Psi...)...)
	if m >= dim {
		bad("env.family.dim", "the joint expression family names x%d, so it needs dim >= %d, got %d", m, m+1, dim)
	}
	if len(f.Support) > 0 {
		bad("env.family.support", "a joint expression family (of x0, x1, …) lives on the whole space; give no support (write a bounded family as a product of x)")
	}
	vars := config.JointVars(max(dim, m+1))
	config.CheckExpr(bad, "env.family.log_q", f.LogQ, vars, false)
	if len(f.Psi) == 0 {
		bad("env.family.psi", "must list at least one statistic, an expression of %s", vars)
	}
	if len(f.Psi) > config.MaxExprStats {
		bad("env.family.psi", "must list at most %d statistics, got %d", config.MaxExprStats, len(f.Psi))
	}
	for k, p := range f.Psi {
		config.CheckExpr(bad, fmt.Sprintf("env.family.psi[%d]", k), p, vars, false)
	}
}

// validateModelExpression checks model.expression against model.family's
// expression entries, which take its families in order.
func validateModelExpression(c *config.Config, bad config.Bad) {
	ds, _, ok := exprDims(c)
	if !ok {
		return
	}
	n := 0
	for _, k := range c.Model.Family {
		if k == ExprKind {
			n++
		}
	}
	if len(c.Model.Family) == 1 && n == 1 {
		n = ds // one entry for every coordinate
	}
	m := config.Shared[exprModelKeys](c, "model").Expression
	switch {
	case len(m) == 0:
		bad("model.expression", "must define the family of model.family's expression entries: [{log_q: ..., psi: [...]}]")
	case len(m) != 1 && len(m) != n:
		bad("model.expression", "has %d families for %d expression coordinates of model.family (give one, or one per coordinate)", len(m), n)
	default:
		for i, mf := range m {
			config.CheckExprFamily(bad, fmt.Sprintf("model.expression[%d]", i), mf)
		}
	}
}

// exprDims returns d_s (the environment's, else env.family.dim) and d_a
// for the checks of expressions; ok is false when either is out of range
// (reported by config).
func exprDims(c *config.Config) (ds, da int, ok bool) {
	ds, da = c.Env.Family.Dim, c.Env.ActionDim
	if ps := c.EnvDim(); ps > 0 {
		ds = ps
	}
	return ds, da, ds >= 1 && ds <= config.MaxCount && da >= 1 && da <= config.MaxCount
}
