package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// gammaFamily is the gamma distribution on (0, ∞), fitted by weighted
// score matching.
var gammaFamily = Family{Part: config.Part{Name: "gamma", C: constText(boundaryC),
	Uses: []string{"model.weight_cap"}, Stats: 2, Validate: validateWeightCap(0)},
	Formula:   Formula{Lo: "0", LogQ: "0", Psi: []string{"log(x)", "-x"}, Note: weightedNote},
	ModelKeys: &capKeys{},
	Coord:     func(c *config.Config, _ Site) (expfam.Coord, error) { return expfam.NewGamma(capOr(weightCap(c), 1)) }}
