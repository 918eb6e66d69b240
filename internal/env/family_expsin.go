package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// expSin is ψ(x) = exp(sin x) with the sine families' base measure,
// one-dimensional.
var expSin = Family{Part: config.Part{Name: "exp-sin", C: constText("cos²(s') exp(2 sin s')")},
	Formula: Formula{LogQ: logQSin, Psi: []string{"exp(sin(x))"}, Note: "alpha = env.family.alpha or model.alpha; one-dimensional"},
	EnvUses: []string{"env.family.alpha"}, EnvValidate: validateSinFamily, ModelUses: []string{"model.alpha"},
	EnvKeys: &sinAlphaKeys{Alpha: sinAlpha}, ModelKeys: &sinModelKeys{Alpha: sinModelAlpha}, ModelValidate: validateModelAlpha,
	True: func(c *config.Config) (expfam.Distribution, error) {
		s, err := expfam.NewExpSin(config.Shared[sinAlphaKeys](c, "env.family").Alpha)
		if err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
		return expfam.NewProduct(s, 1)
	},
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) {
		s, err := expfam.NewExpSin(sinAlphaAt(c, at))
		if err != nil {
			return nil, err
		}
		return expfam.NewScalarCoord(s), nil
	}}
