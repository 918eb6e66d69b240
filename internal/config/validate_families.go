package config

import (
	"slices"
)

// FamilyInfo describes one family of the family registry (package env
// builds them; env.family.kind and model.family accept the same names).
type FamilyInfo struct {
	Name string
	// Stats is the number of statistics per state coordinate, m.
	Stats int
	// OneDim is true for families defined on one coordinate only as a true
	// family (env.family.dim must be 1).
	OneDim bool
	// Sigma is true when the family uses env.family.sigma (model.sigma) as
	// the scale of a Gaussian base measure.
	Sigma bool
	// Bounded is true for families on a half-line or an interval.
	Bounded bool
}

// Families is the catalog of transition families, in the order they are
// listed to users.
var Families = []FamilyInfo{
	{Name: "custom-sin", Stats: 1},
	{Name: "exp-sin", Stats: 1, OneDim: true},
	{Name: "x-sin", Stats: 1, OneDim: true},
	{Name: "gaussian", Stats: 1, Sigma: true},
	{Name: "relu", Stats: 2, Sigma: true},
	{Name: "relu-mog", Stats: 3, Sigma: true},
	{Name: "exponential", Stats: 1, Bounded: true},
	{Name: "gamma", Stats: 2, Bounded: true},
	{Name: "beta", Stats: 2, Bounded: true},
	{Name: "truncated-gaussian", Stats: 1, Sigma: true, Bounded: true},
}

// KinkModes are the values of model.kink: how score matching treats the
// kink of the relu families' statistic.
var KinkModes = []string{"weighted", "kernel", "none"}

// FamilyByName returns the catalog entry of a family.
func FamilyByName(name string) (FamilyInfo, bool) {
	i := slices.IndexFunc(Families, func(f FamilyInfo) bool { return f.Name == name })
	if i < 0 {
		return FamilyInfo{}, false
	}
	return Families[i], true
}

func familyNames() []string {
	out := make([]string, len(Families))
	for i, f := range Families {
		out[i] = f.Name
	}
	return out
}

// validateFamilies checks the keys of the family registry: the families'
// own parameters (env.family.sigma for the Gaussian-based families,
// env.family.low/high for truncated-gaussian) and model.kink and
// model.weight_cap, the score-matching weights.
func (c *Config) validateFamilies(bad func(key, format string, args ...any)) {
	f := c.Env.Family
	info, known := FamilyByName(f.Kind)
	if c.Env.Kind == "expfam" && known {
		if info.Sigma && f.Kind != "gaussian" { // gaussian's own check is in validate
			if !(f.Sigma > 0 && finite(f.Sigma)) || f.Sigma < 1e-3 || f.Sigma > 1e3 {
				bad("env.family.sigma", "must lie in [1e-3, 1e3] for %s (the scale of its Gaussian base measure), got %v", f.Kind, f.Sigma)
			}
		}
		if info.OneDim && f.Dim != 1 {
			bad("env.family.dim", "%s is one-dimensional, got dim %d", f.Kind, f.Dim)
		}
	}
	usesTrunc := f.Kind == "truncated-gaussian" || slices.Contains(c.Model.Family, "truncated-gaussian")
	if usesTrunc && (!finite(f.Low) || !finite(f.High) || !(f.Low < f.High) || f.Low < -MaxAbsState || f.High > MaxAbsState) {
		bad("env.family.low", "truncated-gaussian needs −%d <= env.family.low < env.family.high <= %d, got [%v, %v]", MaxAbsState, MaxAbsState, f.Low, f.High)
	}
	m := c.Model
	if !slices.Contains(KinkModes, m.Kink) {
		bad("model.kink", "unknown mode %q (known: %v)", m.Kink, KinkModes)
	}
	if !(m.WeightCap >= 0) || !finite(m.WeightCap) || m.WeightCap > 1e3 {
		bad("model.weight_cap", "must lie in [0, 1000] (0: the family's default), got %v", m.WeightCap)
	}
	if slices.Contains(m.Family, "beta") || f.Kind == "beta" {
		if m.WeightCap > 0.5 {
			bad("model.weight_cap", "the beta family's distance to the boundary is at most 0.5, so its cap must lie in (0, 0.5], got %v", m.WeightCap)
		}
	}
}
