package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// xSin is ψ(x) = x sin x with the sine families' base measure,
// one-dimensional.
var xSin = Family{Part: config.Part{Name: "x-sin", C: constText("(sin s' + s' cos s')²")},
	Formula: Formula{LogQ: logQSin, Psi: []string{"x*sin(x)"}, Note: "alpha = env.family.alpha or model.alpha; one-dimensional"},
	EnvUses: []string{"env.family.alpha"}, EnvValidate: validateSinFamily, ModelUses: []string{"model.alpha"},
	EnvKeys: &sinAlphaKeys{Alpha: sinAlpha}, ModelKeys: &sinModelKeys{Alpha: sinModelAlpha}, ModelValidate: validateModelAlpha,
	True: func(c *config.Config) (expfam.Distribution, error) {
		s, err := expfam.NewXSin(config.Shared[sinAlphaKeys](c, "env.family").Alpha)
		if err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
		return expfam.NewProduct(s, 1)
	},
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) {
		s, err := expfam.NewXSin(sinAlphaAt(c, at))
		if err != nil {
			return nil, err
		}
		return expfam.NewScalarCoord(s), nil
	}}
