package env

import (
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// truncKeys are truncated-gaussian's keys in env.family: its scale and its
// support (low, high), which model.family truncated-gaussian reads too.
type truncKeys struct {
	Sigma float64 `mapstructure:"sigma" yaml:"sigma" doc:"gaussian: s' = W0 phi + N(0, sigma² I); relu, relu-mog, truncated-gaussian: scale of the Gaussian base"`
	Low   float64 `mapstructure:"low" yaml:"low" doc:"truncated-gaussian (env.family and model.family): support [low, high]"`
	High  float64 `mapstructure:"high" yaml:"high" doc:"truncated-gaussian: upper end of the support (see low)"`
}

// truncatedGaussian is N(W phi, σ²) truncated to (low, high), fitted by
// weighted score matching.
var truncatedGaussian = Family{Part: config.Part{Name: "truncated-gaussian", C: constText(boundaryC),
	Uses: []string{"model.weight_cap", "env.family.low", "env.family.high"}, Validate: validateTruncated},
	Formula: Formula{Lo: "low", Hi: "high", LogQ: logQGauss, Psi: []string{"x/sigma^2"}, Note: "N(W phi, sigma²) truncated to (low, high) = (env.family.low, env.family.high), " + sigmaNote + "; " + weightedNote},
	EnvUses: []string{"env.family.sigma"}, EnvValidate: validateSigma, Scale: familySigma,
	EnvKeys: &truncKeys{Sigma: 1, Low: -1, High: 1}, ModelKeys: &capKeys{},
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) {
		k := config.Shared[truncKeys](c, "env.family")
		sigma, wcap := sigmaAt(c, at), weightCap(c)
		f, err := expfam.NewTruncGauss(sigma, k.Low, k.High)
		if err != nil || wcap == 0 {
			return f, err
		}
		return &cappedCoord{TruncGauss: f, w: &expfam.DistWeight{Lo: k.Low, Hi: k.High, C: wcap * sigma, P: 1}}, nil
	}}

// cappedCoord is a truncated-gaussian family with the weight cap of
// model.weight_cap.
type cappedCoord struct {
	*expfam.TruncGauss
	w expfam.Weight
}

func (c *cappedCoord) DefaultWeight() expfam.Weight { return c.w }

// validateTruncated checks truncated-gaussian's support and weight cap.
func validateTruncated(c *config.Config, bad config.Bad) {
	f := config.Shared[truncKeys](c, "env.family")
	if !finite(f.Low) || !finite(f.High) || !(f.Low < f.High) || f.Low < -config.MaxAbsState || f.High > config.MaxAbsState {
		bad("env.family.low", "truncated-gaussian needs −%d <= env.family.low < env.family.high <= %d, got [%v, %v]", config.MaxAbsState, config.MaxAbsState, f.Low, f.High)
	} else if !(f.High-f.Low >= config.MinSupportWidth) {
		bad("env.family.low", "truncated-gaussian's support [env.family.low, env.family.high] must be at least %g wide, got [%v, %v]: %s", config.MinSupportWidth, f.Low, f.High, config.SupportWhy)
	}
	validateWeightCap(0)(c, bad)
}
