package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// customSinKeys are custom-sin's keys in env.family (the paper's family).
type customSinKeys struct {
	Freq  float64 `mapstructure:"freq" yaml:"freq" after:"kind" doc:"custom-sin: psi(x) = sin(freq·x)"`
	Alpha float64 `mapstructure:"alpha" yaml:"alpha" doc:"q(x) = exp(−|x|^alpha/alpha) (custom-sin, exp-sin, x-sin)"`
}

// sinAlphaKeys is the sine families' alpha in env.family.
type sinAlphaKeys struct {
	Alpha float64 `mapstructure:"alpha" yaml:"alpha" doc:"q(x) = exp(−|x|^alpha/alpha) (custom-sin, exp-sin, x-sin)"`
}

// sinModelKeys is the sine families' alpha in model (their base measure
// in the learners' family).
type sinModelKeys struct {
	Alpha float64 `mapstructure:"alpha" yaml:"alpha" after:"sigma" doc:"custom-sin: q(x) = exp(−|x|^alpha/alpha), psi(x) = sin(x/σ_i)"`
}

// sinAlpha is the default alpha of the sine families: env.family.alpha,
// and model.alpha.
const sinAlpha, sinModelAlpha = 1.7, 2

// MaxSinFreq is the largest frequency of a custom-sin family built from a
// scale (ψ(x) = sin(x/σ)): beyond it the density oscillates faster than the
// sampling table's quadrature resolves at reasonable cost.
const MaxSinFreq = 300

// customSin is the paper's family: ψ(x) = sin(freq·x) with the base
// measure q(x) = exp(−|x|^α/α), a product over env.family.dim coordinates.
var customSin = Family{Part: config.Part{Name: "custom-sin",
	C: func(c *config.Config) string {
		if c.Env.Kind != "expfam" {
			return "cos²(s'/σ_i)/σ_i²"
		}
		f := config.Shared[customSinKeys](c, "env.family").Freq
		return fmt.Sprintf("%g cos²(%g s')", f*f, f)
	}},
	Formula: Formula{LogQ: logQSin, Psi: []string{"sin(freq*x)"}, Note: "alpha, freq = env.family.alpha, env.family.freq (env.family: a product over dim coordinates, the paper's), or model.alpha, 1/σ_i (model.family)"},
	EnvUses: []string{"env.family.freq", "env.family.alpha"}, EnvValidate: validateCustomSin, ModelUses: []string{"model.alpha"},
	EnvKeys:       &customSinKeys{Freq: 4, Alpha: sinAlpha},
	ModelKeys:     &sinModelKeys{Alpha: sinModelAlpha},
	ModelValidate: validateModelAlpha,
	True: func(c *config.Config) (expfam.Distribution, error) {
		k := config.Shared[customSinKeys](c, "env.family")
		s, err := expfam.NewSin(k.Freq, k.Alpha)
		if err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
		return expfam.NewProduct(s, c.Env.Family.Dim)
	},
	Coord: func(c *config.Config, at Site) (expfam.Coord, error) {
		k := config.Shared[customSinKeys](c, "env.family")
		freq, alpha := k.Freq, k.Alpha
		if at.Learner {
			if 1/at.Sigma > MaxSinFreq {
				return nil, keyError{fmt.Errorf("model.sigma: coordinate %d has σ = %g, so the custom-sin family's frequency 1/σ = %.4g exceeds %d, "+
					"beyond which its density oscillates too fast for the quadrature of the sampling table; give a larger model.sigma or another model.family",
					at.I, at.Sigma, 1/at.Sigma, MaxSinFreq)}
			}
			freq, alpha = 1/at.Sigma, config.Shared[sinModelKeys](c, "model").Alpha
		}
		s, err := expfam.NewSin(freq, alpha)
		if err != nil {
			return nil, err
		}
		return expfam.NewScalarCoord(s), nil
	}}

// sinAlphaAt is the sine families' alpha at site at: env.family.alpha, or
// model.alpha for the learners.
func sinAlphaAt(c *config.Config, at Site) float64 {
	if at.Learner {
		return config.Shared[sinModelKeys](c, "model").Alpha
	}
	return config.Shared[sinAlphaKeys](c, "env.family").Alpha
}

func validateSinFamily(c *config.Config, bad config.Bad) {
	f := c.Env.Family
	alpha := config.Shared[sinAlphaKeys](c, "env.family").Alpha
	if !(alpha >= 1 && finite(alpha)) {
		bad("env.family.alpha", "must be a finite number >= 1, got %v", alpha)
	} else if alpha > config.MaxAlpha {
		bad("env.family.alpha", "must be <= %d, got %v: q(x) = exp(−|x|^α/α) steepens with α at |x| = 1 and the quadrature that normalises it would need millions of panels", config.MaxAlpha, alpha)
	}
	if f.Kind == "x-sin" && alpha == 1 {
		bad("env.family.alpha", "x-sin needs alpha > 1 (not normalisable otherwise)")
	}
	if f.Kind != "custom-sin" && f.Dim != 1 {
		bad("env.family.dim", "%s is one-dimensional, got dim %d", f.Kind, f.Dim)
	}
}

func validateCustomSin(c *config.Config, bad config.Bad) {
	validateSinFamily(c, bad)
	freq := config.Shared[customSinKeys](c, "env.family").Freq
	if freq == 0 || !finite(freq) {
		bad("env.family.freq", "must be a finite non-zero number, got %v", freq)
	} else {
		config.Between(bad, "env.family.freq", freq, 1e-3, 1e3, "psi(x) = sin(freq·x) enters score matching through freq², which under- or overflows against lambda beyond, and the quadrature must resolve its period 2π/freq")
	}
}

// validateModelAlpha checks model.alpha, the sine families' base measure
// in the learners' family.
func validateModelAlpha(c *config.Config, bad config.Bad) {
	if a := config.Shared[sinModelKeys](c, "model").Alpha; !(a >= 1) || !finite(a) || a > 16 {
		bad("model.alpha", "must lie in [1, 16], got %v", a)
	}
}
