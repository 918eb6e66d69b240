package env

import (
	"math"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// kinkKeys are the relu families' keys in model: how score matching
// treats the kink of their statistic, and the cap of its weight.
type kinkKeys struct {
	KinkBandwidth float64 `mapstructure:"kink_bandwidth" yaml:"kink_bandwidth" after:"features" doc:"relu families: kernel bandwidth of the score-matching kink term, in units of σ_i (0: ignore the kink)"`
	Kink          string  `mapstructure:"kink" yaml:"kink" doc:"relu families in score matching: weighted (weight vanishing at the kink) | kernel (kink_bandwidth) | none (authors')"`
	WeightCap     float64 `mapstructure:"weight_cap" yaml:"weight_cap" doc:"cap C of the score-matching weight min(d/C, 1)^p, d = distance to kink/boundary; 0: family default (docs/weighted-sm.md)"`
}

// kinkDefaults are the defaults of kinkKeys.
var kinkDefaults = kinkKeys{KinkBandwidth: 0.15, Kink: "weighted"}

// KinkModes are the values of model.kink, a key of the relu families: how
// score matching treats the kink of their statistic.
var KinkModes = []string{"weighted", "kernel", "none"}

var kinkUses = []string{"model.kink", "model.kink_bandwidth", "model.weight_cap"}

// relu is the authors' custom_for_exp_relu: ψ(x) = [x, relu(x)] with a
// Gaussian base measure.
var relu = Family{Part: config.Part{Name: "relu",
	Uses: kinkUses, Stats: 2, C: constText("ψ'(s')ψ'(s')ᵀ, singular for s' < 0"), Validate: validateKinked},
	Formula: Formula{LogQ: logQGauss, Psi: []string{"x", "relu(x)"}, Note: sigmaNote + "; the authors' custom_for_exp_relu; the kink by model.kink"},
	EnvUses: []string{"env.family.sigma"}, EnvValidate: validateSigma, EnvKeys: &sigmaKeys{Sigma: 1}, ModelKeys: &kinkDefaults,
	Scale: familySigma, ModelClass: setKink,
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) { return newReLU(c, at, 2) }}

// setKink is the relu families' Family.ModelClass: the learners' treatment
// of their kink, model.kink, and the kernel bandwidths kink_bandwidth·σ_i
// of score matching's kink term (used by model.kink kernel) for
// coordinates of scales sigma. relu and relu-mog share the keys, so either
// sets the same values.
func setKink(c *config.Config, sigma []float64, m *ModelSpec) {
	k := config.Shared[kinkKeys](c, "model")
	h := make([]float64, len(sigma))
	for i, s := range sigma {
		h[i] = k.KinkBandwidth * s
	}
	m.Kink, m.KinkBandwidth = k.Kink, h
}

func newReLU(c *config.Config, at Site, stats int) (expfam.Coord, error) {
	sigma, wcap := sigmaAt(c, at), weightCap(c)
	r, err := expfam.NewReLU(sigma, stats)
	if err != nil || wcap == 0 {
		return r, err
	}
	return &cappedReLU{ReLU: r, w: &expfam.DistWeight{Points: []float64{0}, Lo: math.Inf(-1), Hi: math.Inf(1), C: wcap * sigma, P: 1}}, nil
}

// cappedReLU is a ReLU family with the weight cap of model.weight_cap.
type cappedReLU struct {
	*expfam.ReLU
	w expfam.Weight
}

func (c *cappedReLU) DefaultWeight() expfam.Weight { return c.w }

// validateKinked checks the keys of the relu families: model.kink,
// model.kink_bandwidth and model.weight_cap.
func validateKinked(c *config.Config, bad config.Bad) {
	k := config.Shared[kinkKeys](c, "model")
	if !slices.Contains(KinkModes, k.Kink) {
		bad("model.kink", "unknown mode %q (known: %v)", k.Kink, KinkModes)
	}
	if kb := k.KinkBandwidth; !(kb >= 0) || !finite(kb) || kb > 10 {
		bad("model.kink_bandwidth", "must lie in [0, 10] (units of the coordinate's scale), got %v", kb)
	}
	validateWeightCap(0)(c, bad)
}
