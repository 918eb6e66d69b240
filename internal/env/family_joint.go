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
// the whole next state whose base measure (and, for the expressions of
// x0, x1, …, whose statistic) couples its coordinates
// (docs/joint-families.md). They are true families only (model.family is
// one family per coordinate).

// jointFamilies are the joint entries of Families.
var jointFamilies = []Family{
	{Part: config.Part{Name: "gaussian-coupled", Doc: "on ℝ^d: log q(x) = −½ xᵀΛx, psi(x) = x, so s' ~ N(Λ⁻¹ W0 phi, Λ⁻¹) exactly; Λ = env.family.precision (d×d symmetric positive definite; dim from its rows)",
		C: constText("I")},
		EnvUses: []string{"env.family.precision"}, NoModel: true},
	{Part: config.Part{Name: "coupled-sin", Doc: "on ℝ^d: log q(x) = −Σ|x_i|^alpha/alpha + κ Σ cos(x_i − x_(i+1)) (a ring), psi(x) = [sin(freq·x_i)]_i; κ = env.family.coupling; sampled by MCMC (sampler)",
		C: func(c *config.Config) string {
			f := c.Env.Family.Freq
			return fmt.Sprintf("diag(%g cos²(%g s'_i))", f*f, f)
		}},
		EnvUses: []string{"env.family.freq", "env.family.alpha", "env.family.coupling", "sampler"}, EnvValidate: validateCoupledSin, NoModel: true},
}

// validateCoupledSin checks coupled-sin's alpha and freq as custom-sin's
// (its coordinates' own base measure and statistic).
func validateCoupledSin(c *config.Config, bad config.Bad) {
	validateCustomSin(c, bad)
}

// SamplerSettings are the chains' settings of the sampler: section.
func SamplerSettings(s config.Sampler) mcmc.Settings {
	eps, _ := s.StepSizeValue()
	return mcmc.Settings{Kind: s.Kind, Warmup: s.Warmup, Steps: s.Steps, Leapfrog: s.Leapfrog, StepSize: eps}
}

// newJointFamily builds the joint family of env.family (c.JointFamily):
// gaussian-coupled with its exact sampler, coupled-sin and the joint
// expression families sampled by chains of the sampler: section.
func newJointFamily(c *config.Config) (expfam.Distribution, error) {
	f := c.Env.Family
	var j expfam.Joint
	var err error
	switch {
	case f.Kind == "gaussian-coupled":
		g, err := expfam.NewGaussCoupled(f.Precision)
		if err != nil {
			return nil, fmt.Errorf("env.family.%w", err)
		}
		return g, nil
	case f.Kind == "coupled-sin":
		j, err = expfam.NewCoupledSin(f.Dim, f.Alpha, f.Freq, f.Coupling)
	default:
		j, err = expfam.NewJointExpr(f.Dim, f.LogQ, f.Psi)
	}
	if err != nil {
		return nil, fmt.Errorf("env.family.%w", err)
	}
	m, err := expfam.NewMCMC(j, SamplerSettings(c.Sampler))
	if err != nil {
		return nil, fmt.Errorf("sampler: %w", err)
	}
	return m, nil
}

// checkChains checks a true family sampled by MCMC at load time, as the
// product families' quadrature is checked: at each representative (s, a)
// a chain at η = W0·phi(s, a) runs its warm-up and sampler.steps more
// transitions, which must not diverge (a non-finite density or gradient,
// an energy error beyond its bound) nor drift beyond |x_i| = MaxAbsState
// (a density that is not normalisable sends the chain to infinity). The
// chains draw from a stream of their own, so the check changes no draw.
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
