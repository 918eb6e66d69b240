package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// rffKeys are rff's keys in env.features.
type rffKeys struct {
	Dim    int     `mapstructure:"dim" yaml:"dim" doc:"rff: number of random features"`
	Length float64 `mapstructure:"length" yaml:"length" doc:"rff: length scale"`
	Seed   uint64  `mapstructure:"seed" yaml:"seed" doc:"rff: seed of the random draw"`
	FMA    bool    `mapstructure:"fma" yaml:"fma" doc:"rff: compute the features with fused multiply-adds (the same bits on every machine, other last digits than false, fewer operations in the AVX2 and AVX-512 kernels); false: the bits of earlier versions"`
}

// rffModelKeys are rff's keys in model.features, whose length may be the
// word cv (smrl estimate).
type rffModelKeys struct {
	Dim    int     `mapstructure:"dim" yaml:"dim" doc:"rff: number of random features"`
	Length float64 `mapstructure:"length" yaml:"length" doc:"rff: length scale, or cv: chosen on cv.lengths (smrl estimate only)"`
	Seed   uint64  `mapstructure:"seed" yaml:"seed" doc:"rff: seed of the random draw"`
	FMA    bool    `mapstructure:"fma" yaml:"fma" doc:"rff: compute the features with fused multiply-adds (the same bits on every machine, other last digits than false, fewer operations in the AVX2 and AVX-512 kernels); false: the bits of earlier versions"`
}

// rffOf returns rff's keys in section.
func rffOf(c *config.Config, section string) rffKeys {
	if section == "model.features" {
		return rffKeys(config.Shared[rffModelKeys](c, section))
	}
	return config.Shared[rffKeys](c, section)
}

// rffFeatures are dim random Fourier features cos(ω·x/length + b) of
// x = (s, a), ω ~ N(0, I) drawn with seed, in fused multiply-adds when fma
// is true (expfam.RFF.FMA).
var rffFeatures = Feature{Name: "rff",
	Part: func(section string) config.Part {
		uses := []string{section + ".dim", section + ".length", section + ".seed", section + ".fma"}
		var keys any = &rffKeys{Dim: 64, Length: 1, Seed: 7}
		if section == "model.features" {
			uses = append(uses, "model.input_scale")
			keys = &rffModelKeys{Dim: 64, Length: 1, Seed: 7}
		}
		return config.Part{Doc: "dim random Fourier features cos(ω·x/length + b) of x = (s, a), ω ~ N(0, I) drawn with seed",
			Uses: uses, Keys: []config.KeySet{{At: section, Defaults: keys}}, Validate: validateRFF(section), SizeKey: "dim",
			PhiDim: func(c *config.Config, section string, _, _ int) (int, bool) { return rffOf(c, section).Dim, true }}
	},
	Build: func(c *config.Config, section string, ds, da int, scale []float64) (expfam.Features, error) {
		k := rffOf(c, section)
		r, err := expfam.NewRFF(ds, da, k.Dim, k.Length, k.Seed)
		if r != nil {
			r.FMA = k.FMA
		}
		if section == "env.features" {
			return r, err
		}
		if err != nil {
			return nil, fmt.Errorf("model.features: %w", err)
		}
		if scale != nil {
			if err := r.ScaleInputs(scale); err != nil {
				return nil, fmt.Errorf("model.input_scale: %w", err)
			}
		}
		return r, nil
	}}

// validateRFF checks the rff keys of section (env.features or
// model.features).
func validateRFF(section string) func(c *config.Config, bad config.Bad) {
	return func(c *config.Config, bad config.Bad) {
		ft := rffOf(c, section)
		why := "random Fourier features cos(ω·x/length + b) of a shorter length are noise at the states' resolution, of a longer one constant"
		if section == "model.features" {
			why = "random Fourier features cos(ω·x/length + b) of the scaled inputs (model.input_scale) with a shorter length are noise, with a longer one constant"
		}
		if ft.Dim < 1 || ft.Dim > config.MaxCount {
			bad(section+".dim", "must lie in [1, %d], got %d", config.MaxCount, ft.Dim)
		}
		if !(ft.Length > 0 && finite(ft.Length)) {
			bad(section+".length", "must be a finite number > 0, got %v", ft.Length)
		} else if section == "model.features" && (ft.Length < 1e-3 || ft.Length > 1e3) {
			bad(section+".length", "must lie in [1e-3, 1e3], got %v: %s", ft.Length, why)
		} else {
			config.Between(bad, section+".length", ft.Length, 1e-3, 1e3, why)
		}
	}
}
