package env

import (
	"fmt"
	"math"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/expr"
)

// This file builds what a config writes as expressions (package expr,
// docs/expressions.md): env.family and model.family entries of kind
// expression, features of kind expression, env.reward.expression and
// env.terminal, and checks them at load time.

// exprSpec is the family f with the score-matching weight cap wcap
// (model.weight_cap; 0: the default).
func exprSpec(f config.ExprFamily, wcap float64) expfam.ExprSpec {
	lo, hi := f.Bounds()
	return expfam.ExprSpec{LogQ: f.LogQ, Psi: f.Psi, Lo: lo, Hi: hi, Cap: wcap}
}

// newExprFamily builds env.family of kind expression: a joint family of
// x0, x1, … sampled by MCMC (expfam.JointExpr, newMCMC), or the d-fold product
// of one tabulated scalar family (expfam.Product, as custom-sin) when every
// coordinate has the same family of one statistic and no score-matching
// weight (the real line, no kink of ψ), else a product of per-coordinate
// families (expfam.Coords), whose weights the learners apply. wcap is
// model.weight_cap.
func newExprFamily(c *config.Config) (expfam.Distribution, error) {
	if jointExpr(c) {
		k := config.Shared[exprKeys](c, "env.family")
		j, err := expfam.NewJointExpr(c.Env.Family.Dim, k.LogQ, k.Psi)
		if err != nil {
			return nil, fmt.Errorf("env.family.%w", err)
		}
		return newMCMC(c, j)
	}
	wcap := weightCap(c)
	coords := exprCoordinates(c)
	explicit := len(config.Shared[exprKeys](c, "env.family").Coords) > 0
	key := func(i int) string {
		if explicit {
			return fmt.Sprintf("env.family.coords[%d]", i)
		}
		return "env.family"
	}
	same := !explicit || !slices.ContainsFunc(coords, func(f config.ExprFamily) bool {
		return f.LogQ != coords[0].LogQ || !slices.Equal(f.Psi, coords[0].Psi) || !slices.Equal(f.Support, coords[0].Support)
	})
	if same && len(coords[0].Psi) == 1 {
		s, err := expfam.NewExprScalar(exprSpec(coords[0], wcap))
		if err != nil {
			return nil, fmt.Errorf("%s.%w", key(0), err)
		}
		if s.DefaultWeight() == nil {
			return expfam.NewProduct(s, c.Env.Family.Dim)
		}
	}
	cs := make([]expfam.Coord, len(coords))
	for i, f := range coords {
		var err error
		if cs[i], err = expfam.NewExprCoord(exprSpec(f, wcap)); err != nil {
			return nil, fmt.Errorf("%s.%w", key(i), err)
		}
	}
	return expfam.NewCoords(cs)
}

// exprCoordOf returns coordinate i of a family built by newExprFamily or
// NewLearnerFamily, and whether it is an expression family.
func exprCoordOf(d expfam.Distribution, i int) (expfam.Coord, expfam.ExprChecker, bool) {
	var c expfam.Coord
	switch f := d.(type) {
	case *expfam.Product:
		c = &expfam.ScalarCoord{T: f.T}
		if s, ok := f.S.(*expfam.ExprScalar); ok {
			return c, s, true
		}
	case *expfam.Coords:
		c = f.C[i]
		if ch, ok := c.(expfam.ExprChecker); ok {
			return c, ch, true
		}
	}
	return c, nil, false
}

// checkExprModel checks the expression coordinates of model m at load time
// (key names the family's config key): at representative (s, a), the
// initial states' range and its middle with every action (at most 16; a
// box's corners and centre), each coordinate is normalisable at
// η = W·phi(s, a), phi is finite, and log q and ψ with their derivatives
// are finite and ψ is not constant on the support of the density there.
func checkExprModel(m *expfam.Model, key string, states [][]float64, actions [][]float64) error {
	d := m.Dist
	blocks := []int{d.StatDim()}
	if b, ok := d.(expfam.Blocked); ok {
		blocks = b.Blocks()
	}
	phi := make([]float64, m.Feat.Dim())
	eta := make([]float64, d.StatDim())
	checked := make([]bool, len(blocks))
	ef, _ := m.Feat.(*expfam.ExprFeatures)
	// The expressions first, on [−10, 10] (within the support): a NaN there
	// would otherwise surface as a NaN log Z.
	for i := range blocks {
		if _, ch, ok := exprCoordOf(d, i); ok {
			if err := ch.CheckOn(-10, 10); err != nil {
				return fmt.Errorf("%s: %w", coordKey(key, i, len(blocks)), err)
			}
		}
	}
	for _, s := range states {
		for _, a := range actions {
			if ef != nil {
				if err := ef.CheckAt(s, a); err != nil {
					return fmt.Errorf("env.features.%w", err)
				}
			}
			m.Eta(s, a, phi, eta)
			off := 0
			for i, n := range blocks {
				e := eta[off : off+n]
				off += n
				c, ch, ok := exprCoordOf(d, i)
				if !ok {
					continue
				}
				ckey := coordKey(key, i, len(blocks))
				z, err := c.LogPartition(e)
				if err == nil && (math.IsNaN(z) || math.IsInf(z, 0)) {
					err = fmt.Errorf("log Z = %v", z)
				}
				if err != nil {
					return fmt.Errorf("%s: not normalisable at η = %.4g = W·phi(s, a) for s = %v, a = %v: %w", ckey, e, s, a, err)
				}
				if checked[i] {
					continue
				}
				checked[i] = true
				lo, hi, err := densitySupport(c, e)
				if err == nil {
					err = ch.CheckOn(lo, hi)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", ckey, err)
				}
			}
		}
	}
	return nil
}

// densitySupport returns where the density of coordinate c at η is not
// negligible: the quadrature's support for one statistic, and the mean of x
// ± 20 for more.
func densitySupport(c expfam.Coord, eta []float64) (lo, hi float64, err error) {
	var s expfam.Scalar
	switch x := c.(type) {
	case *expfam.ScalarCoord:
		s = x.T.Family()
	case *expfam.ExprScalarCoord:
		s = x.S
	default:
		mean := c.Mean(eta)
		if math.IsNaN(mean) {
			return 0, 0, fmt.Errorf("not normalisable at η = %v", eta)
		}
		return mean - 20, mean + 20, nil
	}
	cdf, err := expfam.NewCDF(s, eta[0])
	if err != nil {
		return 0, 0, err
	}
	lo, hi = cdf.Support()
	return lo, hi, nil
}

// checkStates returns representative states (init_low, init_high and their
// middle in every coordinate) and actions (the discrete set, at most 16, or
// a box's corners and centre) for the load-time checks.
func checkStates(c *config.Config, ds int) (states, actions [][]float64) {
	e := c.Env
	for _, v := range []float64{e.InitLow, e.InitHigh, (e.InitLow + e.InitHigh) / 2} {
		s := make([]float64, ds)
		for i := range s {
			s[i] = v
		}
		states = append(states, s)
	}
	if e.ActionSpace == "box" {
		actions = [][]float64{e.ActionLow, e.ActionHigh, make([]float64, len(e.ActionLow))}
		for i := range e.ActionLow {
			actions[2][i] = (e.ActionLow[i] + e.ActionHigh[i]) / 2
		}
		return states, actions
	}
	acts := group(e.Actions, e.ActionDim)
	return states, acts[:min(len(acts), 16)]
}

// ExprTask is a task written as expressions: the reward r(s, a), an
// expression of s0.. and a0.. (R), or the bumps when R is nil; the terminal
// states, a boolean expression of s0.. (Term; none when nil), with the
// reward Bonus collected on entering one.
type ExprTask struct {
	DS, DA int
	Bumps  *Bumps
	R      *expr.Program
	Term   *expr.Program
	Bonus  float64
}

// newExprTask builds the task of env.reward and env.terminal for d_s-state
// and d_a-action vectors, with bumps as the reward when env.reward has no
// expression.
func newExprTask(c config.Env, ds, da int, bumps *Bumps) (*ExprTask, error) {
	t := &ExprTask{DS: ds, DA: da, Bumps: bumps, Bonus: c.TerminalReward}
	if src := c.Reward.Expression; src != "" {
		e, err := expr.Parse(src, config.TaskVars(ds, da))
		if err != nil {
			return nil, fmt.Errorf("env.reward.expression: %w", err)
		}
		t.R = e.Compile()
	}
	if src := c.Terminal; src != "" {
		e, err := expr.Parse(src, config.StateVars(ds))
		if err != nil {
			return nil, fmt.Errorf("env.terminal: %w", err)
		}
		if !e.Bool() {
			return nil, fmt.Errorf("env.terminal: %q is a number, want a condition", src)
		}
		t.Term = e.Compile()
		if v, ok := t.Term.Const(); ok {
			what := "true: every episode would end after its first step"
			if v == 0 {
				what = "false: no episode would end on it"
			}
			return nil, fmt.Errorf("env.terminal: %q is always %s", src, what)
		}
	}
	return t, nil
}

// Reward returns r(s, a).
func (t *ExprTask) Reward(s, a []float64) float64 {
	if t.R == nil {
		return t.Bumps.At(s)
	}
	if len(a) < t.DA {
		// No action (a figure of r(s)): the action reads as 0.
		a = make([]float64, t.DA)
	}
	return t.R.Eval2(s[:t.DS], a[:t.DA])
}

// Terminal reports whether s satisfies env.terminal, and the terminal
// reward. Where the condition is undefined (a comparison of a NaN, such as
// log(s0) > 0 at s0 < 0) it reports done with a NaN reward, which the
// runner and the planner refuse naming env.terminal (see Task.Terminal).
func (t *ExprTask) Terminal(s []float64) (bool, float64) {
	if t.Term == nil {
		return false, 0
	}
	holds, defined := t.Term.Cond(s[:t.DS])
	if !defined {
		return true, math.NaN()
	}
	if !holds {
		return false, 0
	}
	return true, t.Bonus
}

// Terminates reports whether env.terminal is set.
func (t *ExprTask) Terminates() bool { return t.Term != nil }

// checkReward evaluates the reward at the representative states and actions
// and fails where it is not finite.
func (t *ExprTask) checkReward(states, actions [][]float64) error {
	if t.R == nil {
		return nil
	}
	for _, s := range states {
		for _, a := range actions {
			if r := t.Reward(s, a); math.IsNaN(r) || math.IsInf(r, 0) {
				return fmt.Errorf("env.reward.expression: %q is %v at s = %v, a = %v", t.R, r, s, a)
			}
		}
	}
	return nil
}

// checkTerminal fails when env.terminal holds at every representative
// state: the episodes would start in the set they end on entering, and a
// condition true everywhere (such as s0 == s0) ends each after one step.
func (t *ExprTask) checkTerminal(states [][]float64) error {
	if t.Term == nil {
		return nil
	}
	for _, s := range states {
		if done, bonus := t.Terminal(s); math.IsNaN(bonus) {
			return fmt.Errorf("env.terminal: %q is undefined (compares a NaN) at s = %v", t.Term, s)
		} else if !done {
			return nil
		}
	}
	return fmt.Errorf("env.terminal: %q holds at every start state checked (%v): every episode would end after its first step", t.Term, states)
}

// learnerExprCoord builds the n-th expression coordinate of model.family
// from model.expression (its only entry, or entry n) and checks it on the
// support of its density at η = 0 (on [−10, 10] where that is not
// normalisable).
func learnerExprCoord(c *config.Config, n int) (expfam.Coord, error) {
	m := config.Shared[exprModelKeys](c, "model")
	if len(m.Expression) == 0 {
		return nil, fmt.Errorf("model.expression: no family given for model.family's expression entry")
	}
	j := 0
	if len(m.Expression) > 1 {
		j = n
	}
	if j >= len(m.Expression) {
		return nil, fmt.Errorf("model.expression: %d families for more expression coordinates of model.family", len(m.Expression))
	}
	key := fmt.Sprintf("model.expression[%d]", j)
	co, err := expfam.NewExprCoord(exprSpec(m.Expression[j], m.WeightCap))
	if err != nil {
		return nil, fmt.Errorf("%s.%w", key, err)
	}
	if err := co.(expfam.ExprChecker).CheckOn(-10, 10); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	lo, hi, err := densitySupport(co, make([]float64, co.StatDim()))
	if err != nil {
		lo, hi = -10, 10
	}
	if err := co.(expfam.ExprChecker).CheckOn(lo, hi); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return co, nil
}

// coordKey names coordinate i of n of the family at key.
func coordKey(key string, i, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s (coordinate %d)", key, i)
	}
	return key
}

// NewRewardTask is the task of env.reward.expression and env.terminal for
// d_s-state and d_a-action vectors: the planners' task of env.kind
// external, for an environment written elsewhere that plans as it does.
func NewRewardTask(c config.Env, ds, da int) (Task, error) {
	return newExprTask(c, ds, da, nil)
}
