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

// defaultCenters are the default reward's centres in one dimension (π/8
// and −3π/8, default.yaml's).
var defaultCenters = []float64{math.Pi / 8, -3 * math.Pi / 8}

// adaptJointDims fills what a joint family's config may leave out, from
// what it gives (sources: the keys a source set): env.family.dim from the
// family's own keys (Part.DimOf: the rows of gaussian-coupled's
// precision, the largest x_i a joint expression names), and the default
// reward's centres where they do not fit that dim, repeated over its
// coordinates (each centre c·(1, …, 1)), so that smrl estimate and smrl
// sample need no reward keys. A dim that is given is kept (and must then
// agree: the family's validation).
func adaptJointDims(c *Config, sources map[string]string) {
	if c.Env.Kind != "expfam" {
		return
	}
	f := &c.Env.Family
	if _, set := sources["env.family.dim"]; !set {
		if p, ok := lookup("env.family.kind", f.Kind); ok && p.DimOf != nil {
			if d, ok := p.DimOf(c); ok {
				f.Dim = d
			}
		}
	}
	if _, set := sources["env.reward.centers"]; !set && f.Dim > 1 && len(c.Env.Reward.Centers) == len(defaultCenters) && len(defaultCenters)%f.Dim != 0 {
		centers := make([]float64, 0, len(defaultCenters)*f.Dim)
		for _, x := range defaultCenters {
			for range f.Dim {
				centers = append(centers, x)
			}
		}
		c.Env.Reward.Centers = centers
	}
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
