package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// constantFeatures are phi(s, a) = 1 (env.features only).
var constantFeatures = Feature{Name: "constant", EnvOnly: true,
	Part: func(string) config.Part {
		return config.Part{Doc: "phi(s, a) = 1: the transition ignores the state and action", PhiDim: fixedDim(func(int, int) int { return 1 })}
	},
	Build: func(_ *config.Config, _ string, ds, da int, _ []float64) (expfam.Features, error) {
		return expfam.Constant{DS: ds, DA: da}, nil
	}}
