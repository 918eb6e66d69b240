package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// betaFamily is the beta distribution on (0, 1), fitted by weighted score
// matching; its weight's cap is at most 0.5.
var betaFamily = Family{Part: config.Part{Name: "beta", C: constText(boundaryC),
	Uses: []string{"model.weight_cap"}, Stats: 2, Validate: validateWeightCap(0.5)},
	Formula:   Formula{Lo: "0", Hi: "1", LogQ: "0", Psi: []string{"log(x)", "log(1-x)"}, Note: weightedNote},
	ModelKeys: &capKeys{},
	Coord:     func(c *config.Config, _ Site) (expfam.Coord, error) { return expfam.NewBeta(capOr(weightCap(c), 0.5)) }}
