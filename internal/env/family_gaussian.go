package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// sigmaKeys is env.family.sigma, the scale of the Gaussian family and of
// the Gaussian base measure of relu, relu-mog and truncated-gaussian.
type sigmaKeys struct {
	Sigma float64 `mapstructure:"sigma" yaml:"sigma" doc:"gaussian: s' = W0 phi + N(0, sigma² I); relu, relu-mog, truncated-gaussian: scale of the Gaussian base"`
}

// gaussian is s' = W phi(s, a) + N(0, σ² I): C(s') is constant.
var gaussian = Family{Part: config.Part{Name: "gaussian", ConstantC: true},
	Formula: Formula{LogQ: logQGauss, Psi: []string{"x/sigma^2"}, Note: "s' = W phi(s, a) + N(0, sigma² I); sigma = env.family.sigma, or σ_i in model.family"},
	EnvUses: []string{"env.family.sigma"}, EnvValidate: validateGaussian, EnvKeys: &sigmaKeys{Sigma: 1}, Scale: familySigma,
	True: func(c *config.Config) (expfam.Distribution, error) {
		return expfam.NewGaussian(c.Env.Family.Dim, config.Shared[sigmaKeys](c, "env.family").Sigma)
	},
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) { return expfam.NewGaussCoord(sigmaAt(c, at)) }}

// sigmaAt is the scale of a Gaussian base measure at site at:
// env.family.sigma, or the learners' coordinate's σ_i.
func sigmaAt(c *config.Config, at Site) float64 {
	if at.Learner {
		return at.Sigma
	}
	return config.Shared[sigmaKeys](c, "env.family").Sigma
}

// familySigma is the Family.Scale of the families with a Gaussian base
// measure: env.family.sigma.
func familySigma(c *config.Config) float64 { return config.Shared[sigmaKeys](c, "env.family").Sigma }

func validateGaussian(c *config.Config, bad config.Bad) {
	sigma := config.Shared[sigmaKeys](c, "env.family").Sigma
	if !(sigma > 0 && finite(sigma)) {
		bad("env.family.sigma", "must be a finite number > 0, got %v", sigma)
	} else {
		config.Between(bad, "env.family.sigma", sigma, 1e-3, 1e3, config.SigmaWhy)
	}
}

// validateSigma checks env.family.sigma, the scale of a family's Gaussian
// base measure.
func validateSigma(c *config.Config, bad config.Bad) {
	f := c.Env.Family
	sigma := config.Shared[sigmaKeys](c, "env.family").Sigma
	if !(sigma > 0 && finite(sigma)) || sigma < 1e-3 || sigma > 1e3 {
		bad("env.family.sigma", "must lie in [1e-3, 1e3] for %s (the scale of its Gaussian base measure), got %v", f.Kind, sigma)
	}
}
