package env

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
)

// This file registers the joint families of env.family.kind: families of
// the whole next state whose base measure couples its coordinates
// (docs/joint-families.md). They are true families only (model.family is
// one family per coordinate). The joint expression families (of x0, x1,
// …) are the expression family's (family_expression.go).

// gaussCoupledKeys is gaussian-coupled's precision in env.family.
type gaussCoupledKeys struct {
	Precision [][]float64 `mapstructure:"precision" yaml:"precision,omitempty" doc:"gaussian-coupled: Λ, d rows of d numbers, symmetric positive definite (q(x) = exp(−½ xᵀΛx), psi(x) = x); dim from its rows"`
}

// coupledSinKeys are coupled-sin's keys in env.family: custom-sin's freq
// and alpha (the same keys and defaults) and the coupling κ.
type coupledSinKeys struct {
	Freq     float64 `mapstructure:"freq" yaml:"freq" doc:"custom-sin: psi(x) = sin(freq·x)"`
	Alpha    float64 `mapstructure:"alpha" yaml:"alpha" doc:"q(x) = exp(−|x|^alpha/alpha) (custom-sin, exp-sin, x-sin)"`
	Coupling float64 `mapstructure:"coupling" yaml:"coupling" doc:"coupled-sin: κ of log q(x) = −Σ|x_i|^alpha/alpha + κ Σ cos(x_i − x_(i+1)) on a ring"`
}

// gaussianCoupled is q(x) = exp(−½ xᵀΛx), psi(x) = x: P(s'|s,a) =
// N(Λ⁻¹η, Λ⁻¹) exactly, the ground truth of the joint families' tests.
var gaussianCoupled = Family{Part: config.Part{Name: "gaussian-coupled", Doc: "on ℝ^d: log q(x) = −½ xᵀΛx, psi(x) = x, so s' ~ N(Λ⁻¹ W0 phi, Λ⁻¹) exactly; Λ = env.family.precision (d×d symmetric positive definite; dim from its rows)",
	C: constText("I"),
	DimOf: func(c *config.Config) (int, bool) {
		p := config.Shared[gaussCoupledKeys](c, "env.family").Precision
		return len(p), len(p) > 0
	}},
	EnvUses: []string{"env.family.precision"}, EnvKeys: &gaussCoupledKeys{}, EnvValidate: validateGaussCoupled, NoModel: true,
	True: func(c *config.Config) (expfam.Distribution, error) {
		g, err := expfam.NewGaussCoupled(config.Shared[gaussCoupledKeys](c, "env.family").Precision)
		if err != nil {
			return nil, fmt.Errorf("env.family.%w", err)
		}
		return g, nil
	}}

// coupledSin is the paper's family on a ring of d coordinates with a
// known coupling in the base measure: for κ ≠ 0 and d ≥ 3, Z does not
// factor. It is sampled by MCMC (sampler).
var coupledSin = Family{Part: config.Part{Name: "coupled-sin", Doc: "on ℝ^d: log q(x) = −Σ|x_i|^alpha/alpha + κ Σ cos(x_i − x_(i+1)) (a ring), psi(x) = [sin(freq·x_i)]_i; κ = env.family.coupling; sampled by MCMC (sampler)",
	C: func(c *config.Config) string {
		f := config.Shared[coupledSinKeys](c, "env.family").Freq
		return fmt.Sprintf("diag(%g cos²(%g s'_i))", f*f, f)
	}},
	EnvUses: []string{"env.family.freq", "env.family.alpha", "env.family.coupling", "sampler"}, EnvValidate: validateCoupledSin, NoModel: true,
	EnvKeys: &coupledSinKeys{Freq: 4, Alpha: sinAlpha, Coupling: 0.5},
	True: func(c *config.Config) (expfam.Distribution, error) {
		k := config.Shared[coupledSinKeys](c, "env.family")
		j, err := expfam.NewCoupledSin(c.Env.Family.Dim, k.Alpha, k.Freq, k.Coupling)
		if err != nil {
			return nil, fmt.Errorf("env.family.%w", err)
		}
		return newMCMC(c, j)
	}}

// validateGaussCoupled checks the precision's shape and entries and its
// agreement with dim; its positive definiteness is checked where the
// family is built (expfam.NewGaussCoupled), naming the same key.
func validateGaussCoupled(c *config.Config, bad config.Bad) {
	p := config.Shared[gaussCoupledKeys](c, "env.family").Precision
	if len(p) == 0 {
		bad("env.family.precision", "gaussian-coupled needs its precision Λ, d rows of d numbers")
	} else if len(p) != c.Env.Family.Dim {
		bad("env.family.dim", "must agree with env.family.precision's %d rows, got %d", len(p), c.Env.Family.Dim)
	}
	for i, row := range p {
		if len(row) != len(p) {
			bad("env.family.precision", "row %d has %d numbers, want %d (a square matrix)", i, len(row), len(p))
		}
		for _, x := range row {
			config.Between(bad, "env.family.precision", x, 0, 1e6, "Λ is the precision of the next state; its entries set scales of 1e-3 and beyond")
		}
	}
}

// validateCoupledSin checks coupled-sin's alpha and freq as custom-sin's
// (its coordinates' own base measure and statistic) and κ.
func validateCoupledSin(c *config.Config, bad config.Bad) {
	k := config.Shared[coupledSinKeys](c, "env.family")
	if !(k.Alpha >= 1 && finite(k.Alpha)) || k.Alpha > config.MaxAlpha {
		bad("env.family.alpha", "must lie in [1, %d], got %v", config.MaxAlpha, k.Alpha)
	}
	if k.Freq == 0 || !finite(k.Freq) {
		bad("env.family.freq", "must be a finite non-zero number, got %v", k.Freq)
	} else {
		config.Between(bad, "env.family.freq", k.Freq, 1e-3, 1e3, "psi(x) = sin(freq·x) enters score matching through freq², which under- or overflows against lambda beyond")
	}
	config.Between(bad, "env.family.coupling", k.Coupling, 0, 100, "κ weighs cos(x_i − x_(i+1)) in log q; beyond, the chains need step sizes of 1/κ")
}

// SamplerSettings are the chains' settings of the sampler: section.
func SamplerSettings(s config.Sampler) mcmc.Settings {
	eps, _ := s.StepSizeValue()
	return mcmc.Settings{Kind: s.Kind, Warmup: s.Warmup, Steps: s.Steps, Leapfrog: s.Leapfrog, StepSize: eps}
}

// newMCMC is the joint family j sampled by chains of the sampler: section
// (coupled-sin, the joint expression families).
func newMCMC(c *config.Config, j expfam.Joint) (expfam.Distribution, error) {
	m, err := expfam.NewMCMC(j, SamplerSettings(c.Sampler))
	if err != nil {
		return nil, fmt.Errorf("sampler: %w", err)
	}
	return m, nil
}

// rolloutFamily is the learners' family of a true family fam: fam itself,
// or for a family sampled by MCMC the same family with chains of
// sampler.rollout_steps transitions per draw (0: sampler.steps, the true
// environment's), the planners' short chains.
func rolloutFamily(fam expfam.Distribution, s config.Sampler) expfam.Distribution {
	mc, ok := fam.(*expfam.MCMC)
	if !ok || s.RolloutSteps == 0 || s.RolloutSteps == mc.S.Steps {
		return fam
	}
	short := *mc
	short.S.Steps = s.RolloutSteps
	return &short
}

// checkChains checks a true family sampled by MCMC at load time, as the
// product families' quadrature is checked: at each representative (s, a)
// a chain at η = W0·phi(s, a) runs its warm-up and 10 draws of
// sampler.steps transitions each, which must not diverge (a non-finite
// density or gradient, an energy error beyond its bound) nor drift beyond
// |x_i| = MaxAbsState (a density that is not normalisable sends the chain
// to infinity). The chains draw from a stream of their own, so the check
// changes no draw.
func checkChains(m *expfam.Model, states, actions [][]float64) error {
	mc, ok := m.Dist.(*expfam.MCMC)
	if !ok {
		return nil
	}
	phi := make([]float64, m.Feat.Dim())
	eta := make([]float64, mc.StatDim())
	rng := rand.New(rand.NewPCG(0x636861696e, 0x636865636b)) // "chain", "check"
	for _, s := range states {
		for _, a := range actions {
			m.Eta(s, a, phi, eta)
			if err := checkChainAt(mc, eta, rng); err != nil {
				var de *mcmc.DivergenceError
				if errors.As(err, &de) {
					return fmt.Errorf("env.family: the sampler's chain diverges at η = W0·phi(s, a) = %.4g for s = %v, a = %v: the density is not normalisable there, or sampler.step_size is too large: %w", eta, s, a, err)
				}
				return fmt.Errorf("env.family: at η = W0·phi(s, a) = %.4g for s = %v, a = %v: %w", eta, s, a, err)
			}
		}
	}
	return nil
}

// checkChainAt runs one checking chain at eta.
func checkChainAt(mc *expfam.MCMC, eta []float64, rng *rand.Rand) error {
	w := mc.NewWarmChain()
	w.Strict = true
	x := make([]float64, mc.StateDim())
	for range 10 {
		w.Draw(eta, x, rng, x)
		if w.Err != nil {
			return w.Err
		}
		for i, v := range x {
			if math.IsNaN(v) || math.Abs(v) > config.MaxAbsState {
				return fmt.Errorf("the chain drifts to x%d = %g, beyond |x| = %d: the density is not normalisable there", i, v, config.MaxAbsState)
			}
		}
	}
	return nil
}
