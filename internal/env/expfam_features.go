package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Feature is one feature map of the registry (RegisterFeatures): phi(s, a)
// of env.features.kind (the true model's features, env.kind expfam) and,
// unless EnvOnly, of model.features.kind (the learners' in the physical
// environments). Part gives the map's config part in a section
// ("env.features" or "model.features"): its doc, the keys it reads
// (Uses), the keys it declares there (Keys: config.KeySet at section;
// read them with config.Shared), its validation, PhiDim and SizeKey; Group
// is set by RegisterFeatures. Build builds phi for d_s state and d_a
// action coordinates from section's keys; scale, for the learners' rff
// features, divides (s, a) first (nil: unscaled). Adding a feature map is
// one file (the map's Feature value; its math in internal/expfam) and one
// line in RegisterFeatures' call in this file.
type Feature struct {
	Name    string
	EnvOnly bool
	Part    func(section string) config.Part
	Build   func(c *config.Config, section string, ds, da int, scale []float64) (expfam.Features, error)
	// Expression marks features written as expressions of the config:
	// the true model is checked numerically at the start states.
	Expression bool
}

// The feature-map registry: one line per map, in the order smrl list
// features shows them.
func init() {
	RegisterFeatures(
		linearFeatures,
		affineFeatures,
		rffFeatures,
		expressionFeatures,
		perActionFeatures,
		constantFeatures,
	)
}

// FeatureMaps is the feature-map registry, in registration order.
var FeatureMaps []Feature

// RegisterFeatures registers feature maps with config, in
// env.features.kind and (unless EnvOnly) model.features.kind. A test may
// register its own from a _test.go file.
func RegisterFeatures(fs ...Feature) {
	FeatureMaps = append(FeatureMaps, fs...)
	for _, section := range []string{"env.features", "model.features"} {
		for _, f := range fs {
			if f.EnvOnly && section == "model.features" {
				continue
			}
			p := f.Part(section)
			p.Group, p.Name = section+".kind", f.Name
			config.Register(p)
		}
	}
}

// featureByName returns the feature map name of the registry, nil if none.
func featureByName(name string) *Feature {
	for i := range FeatureMaps {
		if FeatureMaps[i].Name == name {
			return &FeatureMaps[i]
		}
	}
	return nil
}

// fixedDim is a Part.PhiDim of a map whose d_phi is n(d_s, d_a).
func fixedDim(n func(ds, da int) int) func(*config.Config, string, int, int) (int, bool) {
	return func(_ *config.Config, _ string, ds, da int) (int, bool) { return n(ds, da), true }
}
