package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// linearFeatures are phi(s, a) = [s, a].
var linearFeatures = Feature{Name: "linear",
	Part: func(string) config.Part {
		return config.Part{LDSUsable: true, Doc: "phi(s, a) = [s, a]", PhiDim: fixedDim(func(ds, da int) int { return ds + da })}
	},
	Build: func(_ *config.Config, _ string, ds, da int, _ []float64) (expfam.Features, error) {
		return expfam.Linear{DS: ds, DA: da}, nil
	}}
