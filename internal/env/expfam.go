package env

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// newExpfam builds the paper's kind of MDP: an exponential-family transition
// P_W0(s'|s,a) (package expfam), the reward r(s) = Σ_k exp(−width·|s − c_k|²)
// on states, no terminal states, and s_1 ~ Unif[init_low, init_high]^{d_s}.
// The real environment draws s' with the same sampler as the models (the
// tabulated inverse CDF for product families, exact normals for the
// Gaussian family), and the learners learn in the true family and features.
func newExpfam(c *config.Config) (*MDP, error) {
	fam, err := NewFamily(c.Env.Family)
	if err != nil {
		return nil, err
	}
	feat, err := NewFeatures(c.Env, fam.StateDim())
	if err != nil {
		return nil, err
	}
	var w []float64
	for _, row := range c.Env.W0 {
		w = append(w, row...)
	}
	m, err := expfam.NewModel(fam, feat, w)
	if err != nil {
		return nil, fmt.Errorf("env.w0: %w", err)
	}
	ds := fam.StateDim()
	lds := make([]float64, ds)
	for i := range lds {
		lds[i] = c.LDS.Sigma
	}
	return &MDP{
		Dim:      ds,
		True:     m,
		Task:     &Bumps{Width: c.Env.Reward.Width, Centers: group(c.Env.Reward.Centers, ds)},
		Dynamics: modelDynamics{m},
		Model:    ModelSpec{Family: fam, Features: feat, LDSSigma: lds, W0: m.W},
		Init:     uniformInit(c.Env.InitLow, c.Env.InitHigh),
	}, nil
}

// modelDynamics is the transition of an exponential-family model.
type modelDynamics struct{ m *expfam.Model }

func (d modelDynamics) NewSimulator() Simulator { return expfam.NewStepper(d.m) }
func (d modelDynamics) NewMean() Simulator      { return expfam.NewMeanStepper(d.m) }

// Bumps is the reward r(s) = Σ_k exp(−width·|s − c_k|²) of the state, the
// same for every action; no state is terminal.
type Bumps struct {
	Width   float64
	Centers [][]float64
}

// At returns r(s).
func (r *Bumps) At(s []float64) float64 {
	var v float64
	for _, c := range r.Centers {
		var d2 float64
		for i, x := range c {
			d := s[i] - x
			d2 += d * d
		}
		v += math.Exp(-r.Width * d2)
	}
	return v
}

// Reward is r(s).
func (r *Bumps) Reward(s, _ []float64) float64 { return r.At(s) }

// Terminal is never true.
func (r *Bumps) Terminal([]float64) (bool, float64) { return false, 0 }

// Terminates is false.
func (r *Bumps) Terminates() bool { return false }

// NewFamily builds the transition family of a config.
func NewFamily(c config.Family) (expfam.Distribution, error) {
	switch c.Kind {
	case "custom-sin":
		s, err := expfam.NewSin(c.Freq, c.Alpha)
		if err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
		return expfam.NewProduct(s, c.Dim)
	case "exp-sin":
		s, err := expfam.NewExpSin(c.Alpha)
		if err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
		return expfam.NewProduct(s, 1)
	case "x-sin":
		s, err := expfam.NewXSin(c.Alpha)
		if err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
		return expfam.NewProduct(s, 1)
	case "gaussian":
		return expfam.NewGaussian(c.Dim, c.Sigma)
	}
	return nil, fmt.Errorf("env.family.kind: unknown family %q", c.Kind)
}

// NewFeatures builds phi of env.features for d_s-dimensional states and the
// config's actions.
func NewFeatures(c config.Env, ds int) (expfam.Features, error) {
	da := c.ActionDim
	switch c.Features.Kind {
	case "linear":
		return expfam.Linear{DS: ds, DA: da}, nil
	case "affine":
		return expfam.Affine{DS: ds, DA: da}, nil
	case "constant":
		return expfam.Constant{DS: ds, DA: da}, nil
	case "rff":
		return expfam.NewRFF(ds, da, c.Features.Dim, c.Features.Length, c.Features.Seed)
	case "per-action":
		return expfam.PerAction{DS: ds, Actions: group(c.Actions, da)}, nil
	}
	return nil, fmt.Errorf("env.features.kind: unknown features %q", c.Features.Kind)
}

// expfamKind registers env.kind expfam (see env.go's registry).
var expfamKind = Kind{Part: config.Part{Name: "expfam",
	Doc:  "the paper's MDP: an exponential-family transition P(s'|s,a) = q(s') exp(<psi(s'), W0 phi(s,a)> − Z), reward Σ_k exp(−width·|s − c_k|²)",
	Uses: []string{"env.family", "env.features", "env.w0", "env.reward", "env.init_low", "env.init_high"}},
	Build: newExpfam}

// The families of env.family.kind and the feature maps of
// env.features.kind and model.features.kind, with the keys each reads.
func init() {
	const q = "q(x) = exp(−|x|^alpha/alpha)"
	for _, p := range []config.Part{
		{Name: "custom-sin", Doc: q + ", psi(x) = sin(freq·x), a product over dim coordinates (the paper's)",
			Uses: []string{"env.family.freq", "env.family.alpha"}, Validate: validateCustomSin,
			C: func(c *config.Config) string {
				f := c.Env.Family.Freq
				return fmt.Sprintf("%g cos²(%g s')", f*f, f)
			}},
		{Name: "exp-sin", Doc: q + ", psi(x) = exp(sin x), one-dimensional", Uses: []string{"env.family.alpha"},
			Validate: validateSinFamily, C: constText("cos²(s') exp(2 sin s')")},
		{Name: "x-sin", Doc: q + ", psi(x) = x sin x, one-dimensional", Uses: []string{"env.family.alpha"},
			Validate: validateSinFamily, C: constText("(sin s' + s' cos s')²")},
		{Name: "gaussian", Doc: "s' = W0 phi(s,a) + N(0, sigma² I)", Uses: []string{"env.family.sigma"},
			Validate: validateGaussian, ConstantC: true},
	} {
		p.Group = "env.family.kind"
		config.Register(p)
	}

	for _, section := range []string{"env.features", "model.features"} {
		rffUses := []string{section + ".dim", section + ".length", section + ".seed"}
		if section == "model.features" {
			rffUses = append(rffUses, "model.input_scale")
		}
		parts := []config.Part{
			{Name: "linear", Doc: "phi(s, a) = [s, a]",
				PhiDim: func(_ *config.Config, _ string, ds, da int) (int, bool) { return ds + da, true }},
			{Name: "affine", Doc: "phi(s, a) = [s, a, 1]",
				PhiDim: func(_ *config.Config, _ string, ds, da int) (int, bool) { return ds + da + 1, true }},
			{Name: "rff", Doc: "dim random Fourier features cos(ω·x/length + b) of x = (s, a), ω ~ N(0, I) drawn with seed",
				Uses: rffUses, Validate: validateRFF(section), SizeKey: "dim", PhiDim: rffDim},
		}
		if section == "env.features" {
			parts = append(parts,
				config.Part{Name: "per-action", Doc: "one block [s, 1] per discrete action: phi(s, a) = e_a ⊗ [s, 1]",
					Validate: validatePerAction, SizeKey: "env.actions", PhiDim: perActionDim},
				config.Part{Name: "constant", Doc: "phi(s, a) = 1: the transition ignores the state and action",
					PhiDim: func(*config.Config, string, int, int) (int, bool) { return 1, true }})
		}
		for _, p := range parts {
			p.Group = section + ".kind"
			config.Register(p)
		}
	}

	for _, p := range []config.Part{
		{Name: "gaussian", Doc: "N(W phi(s, a), σ_i²) per coordinate", ConstantC: true},
		{Name: "relu", Doc: "q(x) = exp(−x²/(2σ_i²)), psi(x) = [x, relu(x)] (the authors' custom_for_exp_relu); kink term by model.kink_bandwidth",
			Uses: []string{"model.kink_bandwidth"}, Stats: 2, C: constText("ψ'(s')ψ'(s')ᵀ, singular for s' < 0")},
		{Name: "relu-mog", Doc: "q(x) = exp(−x²/(2σ_i²)), psi(x) = [x, relu(x), relu(−x)] (the authors' custom_for_mog_relu); kink term by model.kink_bandwidth",
			Uses: []string{"model.kink_bandwidth"}, Stats: 3, C: constText("ψ'(s')ψ'(s')ᵀ, singular for s' < 0")},
		{Name: "custom-sin", Doc: "q(x) = exp(−|x|^alpha/alpha), psi(x) = sin(x/σ_i) per coordinate",
			Uses: []string{"model.alpha"}, C: constText("cos²(s'/σ_i)/σ_i²")},
	} {
		p.Group = "model.family"
		config.Register(p)
	}

	config.Register(config.Part{Group: "env.action_space", Name: "discrete", Doc: "a finite set: the list env.actions, action_dim numbers each", Uses: []string{"env.actions"}})
	config.Register(config.Part{Group: "env.action_space", Name: "box", Doc: "a box of continuous actions a_i in [action_low_i, action_high_i]", Uses: []string{"env.action_low", "env.action_high"}})
}

// constText is a Part.C that does not depend on the config.
func constText(s string) func(*config.Config) string { return func(*config.Config) string { return s } }

// rffDim is d_phi of rff features: section.dim.
func rffDim(c *config.Config, section string, _, _ int) (int, bool) {
	if section == "model.features" {
		return c.Model.Features.Dim, true
	}
	return c.Env.Features.Dim, true
}

// perActionDim is d_phi of per-action features: one block [s, 1] per
// action of env.actions.
func perActionDim(c *config.Config, _ string, ds, da int) (int, bool) {
	n := len(c.Env.Actions)
	if n == 0 || n%da != 0 {
		return 0, false
	}
	return n / da * (ds + 1), true
}

func validateSinFamily(c *config.Config, bad config.Bad) {
	f := c.Env.Family
	if !(f.Alpha >= 1 && finite(f.Alpha)) {
		bad("env.family.alpha", "must be a finite number >= 1, got %v", f.Alpha)
	} else if f.Alpha > config.MaxAlpha {
		bad("env.family.alpha", "must be <= %d, got %v: q(x) = exp(−|x|^α/α) steepens with α at |x| = 1 and the quadrature that normalises it would need millions of panels", config.MaxAlpha, f.Alpha)
	}
	if f.Kind == "x-sin" && f.Alpha == 1 {
		bad("env.family.alpha", "x-sin needs alpha > 1 (not normalisable otherwise)")
	}
	if f.Kind != "custom-sin" && f.Dim != 1 {
		bad("env.family.dim", "%s is one-dimensional, got dim %d", f.Kind, f.Dim)
	}
}

func validateCustomSin(c *config.Config, bad config.Bad) {
	validateSinFamily(c, bad)
	f := c.Env.Family
	if f.Freq == 0 || !finite(f.Freq) {
		bad("env.family.freq", "must be a finite non-zero number, got %v", f.Freq)
	} else {
		config.Between(bad, "env.family.freq", f.Freq, 1e-3, 1e3, "psi(x) = sin(freq·x) enters score matching through freq², which under- or overflows against lambda beyond, and the quadrature must resolve its period 2π/freq")
	}
}

func validateGaussian(c *config.Config, bad config.Bad) {
	f := c.Env.Family
	if !(f.Sigma > 0 && finite(f.Sigma)) {
		bad("env.family.sigma", "must be a finite number > 0, got %v", f.Sigma)
	} else {
		config.Between(bad, "env.family.sigma", f.Sigma, 1e-3, 1e3, config.SigmaWhy)
	}
}

// validateRFF checks the rff keys of section (env.features or
// model.features).
func validateRFF(section string) func(c *config.Config, bad config.Bad) {
	return func(c *config.Config, bad config.Bad) {
		ft := c.Env.Features
		why := "random Fourier features cos(ω·x/length + b) of a shorter length are noise at the states' resolution, of a longer one constant"
		if section == "model.features" {
			ft = c.Model.Features
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

func validatePerAction(c *config.Config, bad config.Bad) {
	if c.Env.ActionSpace == "box" {
		bad("env.features.kind", "per-action features need a discrete action set, not env.action_space: box")
	}
}
