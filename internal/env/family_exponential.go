package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// exponential is the exponential distribution of rate η on (0, ∞), fitted
// by weighted score matching.
var exponential = Family{Part: config.Part{Name: "exponential", C: constText(boundaryC),
	Uses: []string{"model.weight_cap"}, Validate: validateWeightCap(0)},
	Formula:   Formula{Lo: "0", LogQ: "0", Psi: []string{"-x"}, Note: weightedNote},
	ModelKeys: &capKeys{},
	Coord: func(c *config.Config, _ Site) (expfam.Coord, error) {
		return expfam.NewExponential(capOr(weightCap(c), 1))
	}}
