package config

import (
	"math"
	"slices"
)

// This file holds the keys of issue 23 (planner.tie_break, env.kind lq and
// acrobot, the lqr agent) and their validation, kept apart so that the
// config restructuring can move them as one piece.

// TieBreaks are the values of planner.tie_break.
var TieBreaks = []string{"first", "vote", "mean"}

// LQ configures env.kind lq: s' = A s + B a + noise_std·ε, ε ~ N(0, I),
// r(s, a) = −(sᵀQs + aᵀRa), a in the box of env.action_low/high.
type LQ struct {
	A        [][]float64 `mapstructure:"a" yaml:"a"` // d_s × d_s
	B        [][]float64 `mapstructure:"b" yaml:"b"` // d_s × d_a
	Q        [][]float64 `mapstructure:"q" yaml:"q"` // d_s × d_s, symmetric positive semidefinite
	R        [][]float64 `mapstructure:"r" yaml:"r"` // d_a × d_a, symmetric positive definite
	NoiseStd float64     `mapstructure:"noise_std" yaml:"noise_std"`
}

// Acrobot configures env.kind acrobot: Gymnasium's Acrobot-v1 (its
// physical constants are fixed).
type Acrobot struct {
	DT             float64 `mapstructure:"dt" yaml:"dt"`                             // RK4 step, s
	Init           float64 `mapstructure:"init" yaml:"init"`                         // (θ1, θ2, θ̇1, θ̇2)_1 ~ Unif[−init, init]^4
	TorqueNoiseMax float64 `mapstructure:"torque_noise_max" yaml:"torque_noise_max"` // torque += Unif[−max, max]
	// HeightPotential is the weight c of the planners' potential Φ(s) = c·y,
	// y the tip's height (potential-based shaping; returns never include it).
	HeightPotential float64 `mapstructure:"height_potential" yaml:"height_potential"`
}

// maxLQDim bounds d_s and d_a of env.lq: the lqr agent inverts a d_a × d_a
// matrix per step of the horizon at the start of a trial.
const maxLQDim = 100

// validateControl checks planner.tie_break, env.lq, env.acrobot and the
// lqr agent.
func (c *Config) validateControl(bad func(key, format string, args ...any), agents bool) {
	p := c.Planner
	if !slices.Contains(TieBreaks, p.TieBreak) {
		bad("planner.tie_break", "unknown tie-break %q (known: %v)", p.TieBreak, TieBreaks)
	} else if p.TieBreak != "first" && (p.Kind != "rss" || p.Mode != "random" || c.Env.ActionSpace != "discrete") {
		bad("planner.tie_break", "%q applies to planner.kind rss in mode random over a discrete action set (env.action_space: discrete), got kind %s, mode %s, action space %s; use first",
			p.TieBreak, p.Kind, p.Mode, c.Env.ActionSpace)
	}
	if p.Kind == "cem" && p.CEM.KeepElites && c.Env.ActionSpace != "box" {
		bad("planner.cem.keep_elites", "applies to box actions (env.action_space: box); over a discrete set cem refits action frequencies and keeps no sequences")
	}
	if p.Kind == "mppi" && (p.MPPI.Iterations < 1 || p.MPPI.Iterations > 1000) {
		bad("planner.mppi.iterations", "must lie in [1, 1000], got %d", p.MPPI.Iterations)
	}
	if agents && slices.Contains(c.Agents, "lqr") && c.Env.Kind != "lq" {
		bad("agents", "lqr plays the Riccati controller of env.lq and needs env.kind: lq, got %s", c.Env.Kind)
	}
	switch c.Env.Kind {
	case "lq":
		c.validateLQ(bad)
	case "acrobot":
		a := c.Env.Acrobot
		if !(a.DT > 0 && a.DT <= 1) {
			bad("env.acrobot.dt", "must lie in (0, 1], got %v: longer RK4 steps of the acrobot's dynamics diverge", a.DT)
		}
		if !(a.Init >= 0 && a.Init <= math.Pi) {
			bad("env.acrobot.init", "must lie in [0, π], got %v", a.Init)
		}
		if !(a.HeightPotential >= 0 && a.HeightPotential <= 1e6) {
			bad("env.acrobot.height_potential", "must lie in [0, 1e6], got %v", a.HeightPotential)
		}
		if !(a.TorqueNoiseMax >= 0 && a.TorqueNoiseMax <= 1e3) {
			bad("env.acrobot.torque_noise_max", "must lie in [0, 1000], got %v", a.TorqueNoiseMax)
		}
		if c.Env.ActionDim != 1 {
			bad("env.action_dim", "acrobot has one action (the torque on the second joint), got action_dim %d", c.Env.ActionDim)
		}
	}
}

// validateLQ checks the shapes and values of env.lq against env.action_dim
// and the box.
func (c *Config) validateLQ(bad func(key, format string, args ...any)) {
	l := c.Env.LQ
	ds, da := len(l.A), c.Env.ActionDim
	if ds < 1 || ds > maxLQDim {
		bad("env.lq.a", "must have 1 to %d rows (d_s), got %d", maxLQDim, ds)
		return
	}
	if da > maxLQDim {
		bad("env.action_dim", "must be <= %d with env.kind lq, got %d", maxLQDim, da)
		return
	}
	shape := func(key string, m [][]float64, rows, cols int) bool {
		if len(m) != rows {
			bad(key, "must have %d rows, got %d", rows, len(m))
			return false
		}
		for i, r := range m {
			if len(r) != cols {
				bad(key, "row %d must have %d entries, got %d", i, cols, len(r))
				return false
			}
			for _, v := range r {
				if !finite(v) || math.Abs(v) > 1e6 {
					bad(key, "must hold finite numbers with |value| <= 1e6, got %v", v)
					return false
				}
			}
		}
		return true
	}
	shape("env.lq.a", l.A, ds, ds)
	shape("env.lq.b", l.B, ds, da)
	for _, m := range []struct {
		key  string
		m    [][]float64
		n    int
		what string
	}{{"env.lq.q", l.Q, ds, "positive semidefinite"}, {"env.lq.r", l.R, da, "positive definite"}} {
		if !shape(m.key, m.m, m.n, m.n) {
			continue
		}
		sym := true
		for i := range m.n {
			for j := range i {
				sym = sym && m.m[i][j] == m.m[j][i]
			}
		}
		if !sym {
			bad(m.key, "must be symmetric")
			continue
		}
		if ok := cholesky(m.m, m.key == "env.lq.q"); !ok {
			bad(m.key, "must be %s", m.what)
		}
	}
	if !(l.NoiseStd >= 0 && l.NoiseStd <= 1e3) {
		bad("env.lq.noise_std", "must lie in [0, 1000], got %v", l.NoiseStd)
	}
	if c.Env.ActionSpace != "box" {
		bad("env.action_space", "env.kind lq needs box actions (env.action_space: box), got %s", c.Env.ActionSpace)
	}
}

// cholesky reports whether the symmetric matrix m is positive definite (or,
// with semi, positive semidefinite up to a relative 1e-12 of its diagonal)
// by attempting its Cholesky factorisation.
func cholesky(m [][]float64, semi bool) bool {
	n := len(m)
	var scale float64
	for i := range n {
		scale = max(scale, math.Abs(m[i][i]))
	}
	tol := 0.0
	if semi {
		tol = 1e-12 * max(scale, 1)
	}
	l := make([]float64, n*n)
	for j := range n {
		d := m[j][j]
		for k := range j {
			d -= l[j*n+k] * l[j*n+k]
		}
		if d < -tol || (!semi && d <= 0) {
			return false
		}
		if d <= tol {
			// A zero pivot of a semidefinite matrix: its column must vanish.
			for i := j + 1; i < n; i++ {
				v := m[i][j]
				for k := range j {
					v -= l[i*n+k] * l[j*n+k]
				}
				if math.Abs(v) > tol {
					return false
				}
			}
			continue
		}
		d = math.Sqrt(d)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := m[i][j]
			for k := range j {
				v -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = v / d
		}
	}
	return true
}
