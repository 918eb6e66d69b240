package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
)

// This file holds what config knows of the joint families (the families
// of the whole next state: gaussian-coupled, coupled-sin and expressions
// of x0, x1, …; docs/joint-families.md): their dimension, their default
// reward and their variables.

// jointVarRE matches a variable x0, x1, … of a joint expression family.
var jointVarRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])x([0-9]+)(?:[^A-Za-z0-9_]|$)`)

// JointVarMax returns the largest i of the variables x_i that the sources
// name, −1 when none does.
func JointVarMax(srcs ...string) int {
	m := -1
	for _, s := range srcs {
		for _, g := range jointVarRE.FindAllStringSubmatch(s, -1) {
			if i, err := strconv.Atoi(g[1]); err == nil && i > m {
				m = i
			}
		}
	}
	return m
}

// JointExpr reports whether the expression family f is joint: its log_q
// or psi names x0, x1, … (a family of the whole next state), not x (a
// product over coordinates).
func (f Family) JointExpr() bool {
	return len(f.Coords) == 0 && JointVarMax(append([]string{f.LogQ}, f.Psi...)...) >= 0
}

// JointVars returns the variables x0, …, x_{d−1} of a joint expression
// family of d coordinates.
func JointVars(d int) []string {
	v := make([]string, d)
	for i := range v {
		v[i] = fmt.Sprintf("x%d", i)
	}
	return v
}

// JointFamily reports whether env.family is a family of the whole next
// state, sampled by MCMC or exactly (gaussian-coupled): the kinds
// gaussian-coupled and coupled-sin, and a joint expression.
func (c *Config) JointFamily() bool {
	f := c.Env.Family
	return f.Kind == "gaussian-coupled" || f.Kind == "coupled-sin" || (f.Kind == ExprKind && f.JointExpr())
}

// defaultCenters are the default reward's centres in one dimension (π/8
// and −3π/8, default.yaml's).
var defaultCenters = []float64{math.Pi / 8, -3 * math.Pi / 8}

// adaptJointDims fills what a joint family's config may leave out, from
// what it gives (sources: the keys a source set): env.family.dim from the
// rows of gaussian-coupled's precision or from the largest x_i a joint
// expression names, and the default reward's centres, repeated over the
// dim coordinates (each centre c·(1, …, 1)), so that smrl estimate and
// smrl sample need no reward keys. A dim that is given is kept (and must
// then agree: validateJoint).
func adaptJointDims(c *Config, sources map[string]string) {
	f := &c.Env.Family
	if _, set := sources["env.family.dim"]; !set && c.Env.Kind == "expfam" {
		switch {
		case f.Kind == "gaussian-coupled" && len(f.Precision) > 0:
			f.Dim = len(f.Precision)
		case f.Kind == ExprKind && f.JointExpr():
			f.Dim = max(JointVarMax(append([]string{f.LogQ}, f.Psi...)...)+1, 1)
		}
	}
	if _, set := sources["env.reward.centers"]; !set && f.Dim > 1 && c.Env.Kind == "expfam" && len(c.Env.Reward.Centers) == len(defaultCenters) {
		centers := make([]float64, 0, len(defaultCenters)*f.Dim)
		for _, x := range defaultCenters {
			for range f.Dim {
				centers = append(centers, x)
			}
		}
		c.Env.Reward.Centers = centers
	}
}

// validateJoint checks the keys of the joint families that config can
// check alone; the precision's positive definiteness and a joint
// expression's normalisability are checked where the family is built
// (package env), naming the same keys.
func (c *Config) validateJoint(bad Bad) {
	f := c.Env.Family
	switch {
	case f.Kind == "gaussian-coupled":
		if len(f.Precision) == 0 {
			bad("env.family.precision", "gaussian-coupled needs its precision Λ, d rows of d numbers")
		} else if len(f.Precision) != f.Dim {
			bad("env.family.dim", "must agree with env.family.precision's %d rows, got %d", len(f.Precision), f.Dim)
		}
		for i, row := range f.Precision {
			if len(row) != len(f.Precision) {
				bad("env.family.precision", "row %d has %d numbers, want %d (a square matrix)", i, len(row), len(f.Precision))
			}
			for _, x := range row {
				Between(bad, "env.family.precision", x, 0, 1e6, "Λ is the precision of the next state; its entries set scales of 1e-3 and beyond")
			}
		}
	case f.Kind == "coupled-sin":
		Between(bad, "env.family.coupling", f.Coupling, 0, 100, "κ weighs cos(x_i − x_(i+1)) in log q; beyond, the chains need step sizes of 1/κ")
	case f.Kind == ExprKind && f.JointExpr():
		if m := JointVarMax(append([]string{f.LogQ}, f.Psi...)...); m >= f.Dim {
			bad("env.family.dim", "the joint expression family names x%d, so it needs dim >= %d, got %d", m, m+1, f.Dim)
		}
		if len(f.Support) > 0 {
			bad("env.family.support", "a joint expression family (of x0, x1, …) lives on the whole space; give no support (write a bounded family as a product of x)")
		}
	}
}
