package env

import (
	"fmt"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// exprFeatureKeys are the expression features' key in env.features or
// model.features.
type exprFeatureKeys struct {
	Phi []string `mapstructure:"phi" yaml:"phi,omitempty" doc:"expression features: one expression of s0, s1, …, a0, a1, … per feature (docs/expressions.md)"`
}

// expressionFeatures are phi written as expressions of s0, s1, …, a0, …
// (docs/expressions.md).
var expressionFeatures = Feature{Name: ExprKind, Expression: true,
	Part: func(section string) config.Part {
		return config.Part{Doc: "phi written as expressions of s0, s1, …, a0, … (docs/expressions.md)",
			Uses: []string{section + ".phi"}, SizeKey: "phi",
			Keys:     []config.KeySet{{At: section, Defaults: &exprFeatureKeys{}}},
			Validate: validateExprFeatures(section),
			PhiDim: func(c *config.Config, section string, _, _ int) (int, bool) {
				phi := config.Shared[exprFeatureKeys](c, section).Phi
				return len(phi), len(phi) > 0
			}}
	},
	Build: func(c *config.Config, section string, ds, da int, _ []float64) (expfam.Features, error) {
		f, err := expfam.NewExprFeatures(ds, da, config.Shared[exprFeatureKeys](c, section).Phi)
		if err != nil {
			return nil, fmt.Errorf("%s.%w", section, err)
		}
		return f, nil
	}}

// validateExprFeatures parses section's phi, so that a syntax error or an
// unknown variable fails at load time naming the key.
func validateExprFeatures(section string) func(c *config.Config, bad config.Bad) {
	return func(c *config.Config, bad config.Bad) {
		ds, da, ok := exprDims(c)
		if !ok {
			return // reported elsewhere
		}
		if section == "env.features" {
			ds = c.Env.Family.Dim
		}
		phi := config.Shared[exprFeatureKeys](c, section).Phi
		if len(phi) == 0 {
			bad(section+".phi", "must list at least one feature, an expression of %s", strings.Join(config.TaskVars(ds, da), ", "))
		}
		if len(phi) > config.MaxCount {
			bad(section+".phi", "must list at most %d features, got %d", config.MaxCount, len(phi))
		}
		for j, p := range phi {
			config.CheckExpr(bad, fmt.Sprintf("%s.phi[%d]", section, j), p, config.TaskVars(ds, da), false)
		}
	}
}
