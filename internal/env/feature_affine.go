package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// affineFeatures are phi(s, a) = [s, a, 1].
var affineFeatures = Feature{Name: "affine",
	Part: func(string) config.Part {
		return config.Part{LDSUsable: true, Doc: "phi(s, a) = [s, a, 1]", PhiDim: fixedDim(func(ds, da int) int { return ds + da + 1 })}
	},
	Build: func(_ *config.Config, _ string, ds, da int, _ []float64) (expfam.Features, error) {
		return expfam.Affine{DS: ds, DA: da}, nil
	}}
