package env

import (
	"fmt"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
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

// newJointFamily builds a joint family of env.family (the kinds above and
// the joint expression families).
func newJointFamily(c config.Family) (expfam.Distribution, error) {
	switch c.Kind {
	case "gaussian-coupled":
		g, err := expfam.NewGaussCoupled(c.Precision)
		if err != nil {
			return nil, fmt.Errorf("env.family.%w", err)
		}
		return g, nil
	}
	return nil, fmt.Errorf("env.family.kind: unknown joint family %q", c.Kind)
}
