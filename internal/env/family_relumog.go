package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// reluMoG is the authors' custom_for_mog_relu: ψ(x) = [x, relu(x),
// relu(−x)] with a Gaussian base measure (family_relu.go's keys).
var reluMoG = Family{Part: config.Part{Name: "relu-mog",
	Uses: kinkUses, Stats: 3, C: constText("ψ'(s')ψ'(s')ᵀ, singular for s' < 0"), Validate: validateKinked},
	Formula: Formula{LogQ: logQGauss, Psi: []string{"x", "relu(x)", "relu(-x)"}, Note: sigmaNote + "; the authors' custom_for_mog_relu; the kink by model.kink"},
	EnvUses: []string{"env.family.sigma"}, EnvValidate: validateSigma, EnvKeys: &sigmaKeys{Sigma: 1}, ModelKeys: &kinkDefaults,
	Scale: familySigma, ModelClass: setKink,
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) { return newReLU(c, at, 3) }}
