package env

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/vmath"
)

// newExpfam builds the paper's kind of MDP: an exponential-family transition
// P_W0(s'|s,a) (package expfam), the reward r(s) = Σ_k exp(−width·|s − c_k|²)
// on states, no terminal states, and s_1 ~ Unif[init_low, init_high]^{d_s}.
// The real environment draws s' with the same sampler as the models (the
// tabulated inverse CDF for product families, exact normals for the
// Gaussian family), and the learners learn in the true family and features.
func newExpfam(c *config.Config) (*MDP, error) {
	var fam expfam.Distribution
	var err error
	if c.JointFamily() {
		fam, err = newJointFamily(c)
	} else {
		fam, err = NewFamily(c.Env.Family, c.Model.WeightCap)
	}
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
	known := w != nil
	if !known {
		// No true W (config.Options.NoTrueW: the transitions come from
		// data): the family at η = 0 stands in for checks of q alone, and
		// the learners report no error |Ŵ − W0|.
		w = make([]float64, fam.StatDim()*feat.Dim())
	}
	m, err := expfam.NewModel(fam, feat, w)
	if err != nil {
		return nil, fmt.Errorf("env.w0: %w", err)
	}
	if err := checkNaturalParameters(m, actionCorners(c.Env), c.Env.InitLow, c.Env.InitHigh); err != nil {
		return nil, err
	}
	if c.JointFamily() {
		states, actions := checkStates(c, fam.StateDim())
		if err := checkChains(m, states, actions); err != nil {
			return nil, err
		}
	}
	ds := fam.StateDim()
	lds := make([]float64, ds)
	for i := range lds {
		lds[i] = c.LDS.Sigma
	}
	var task Task = &Bumps{Width: c.Env.Reward.Width, Centers: group(c.Env.Reward.Centers, ds)}
	if c.Env.Reward.Expression != "" || c.Env.Terminal != "" || c.Env.Family.Kind == config.ExprKind || c.Env.Features.Kind == config.ExprKind {
		states, actions := checkStates(c, ds)
		if err := checkExprModel(m, "env.family", states, actions); err != nil {
			return nil, err
		}
		if c.Env.Reward.Expression != "" || c.Env.Terminal != "" {
			bumps, _ := task.(*Bumps)
			t, err := newExprTask(c.Env, ds, c.Env.ActionDim, bumps)
			if err != nil {
				return nil, err
			}
			if err := t.checkReward(states, actions); err != nil {
				return nil, err
			}
			if err := t.checkTerminal(states); err != nil {
				return nil, err
			}
			task = t
		}
	}
	return &MDP{
		Dim:      ds,
		True:     m,
		Task:     task,
		Dynamics: modelDynamics{m},
		Model: ModelSpec{Family: rolloutFamily(fam, c.Sampler), Features: feat, LDSSigma: lds, W0: trueW(m, known),
			Kink: c.Model.Kink, KinkBandwidth: kinkBandwidths(c.Model, familyScales(c.Env.Family, ds))},
		Init:            uniformInit(c.Env.InitLow, c.Env.InitHigh),
		CheckTransition: naturalSpaceCheck(m),
	}, nil
}

// trueW is the true W of m, nil when it is not known.
func trueW(m *expfam.Model, known bool) []float64 {
	if !known {
		return nil
	}
	return m.W
}

// familyScales returns the scale σ of env.family per coordinate for the
// kernel bandwidths of model.kink kernel: env.family.sigma.
func familyScales(f config.Family, ds int) []float64 {
	s := make([]float64, ds)
	for i := range s {
		s[i] = f.Sigma
	}
	return s
}

// actionCorners returns the discrete actions, or the corners of a box of
// continuous actions (η is linear in a for linear features).
func actionCorners(e config.Env) [][]float64 {
	if e.ActionSpace != "box" {
		return group(e.Actions, e.ActionDim)
	}
	da := len(e.ActionLow)
	if da > 12 || len(e.ActionHigh) != da {
		return nil
	}
	var out [][]float64
	for corner := range 1 << da {
		a := make([]float64, da)
		for i := range a {
			a[i] = e.ActionLow[i]
			if corner>>i&1 == 1 {
				a[i] = e.ActionHigh[i]
			}
		}
		out = append(out, a)
	}
	return out
}

// modelDynamics is the transition of an exponential-family model.
type modelDynamics struct{ m *expfam.Model }

func (d modelDynamics) NewSimulator() Simulator { return expfam.NewStepper(d.m).Strict() }
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
		v += math.Exp(r.exponent(s, c))
	}
	return v
}

// exponent is −width·|s − c|², the exponent of the bump at c.
func (r *Bumps) exponent(s, c []float64) float64 {
	var d2 float64
	for i, x := range c {
		d := s[i] - x
		d2 += d * d
	}
	return -r.Width * d2
}

// Rewards sets out[t] = At(xs[t·d_s : (t+1)·d_s]) (BatchRewarder; the
// actions play no part): the exponentials of up to 64 bumps at a time in
// one vmath.Exps call, each state's bumps then added in At's order, so
// the same bits.
func (r *Bumps) Rewards(xs []float64, _ [][]float64, out []float64) {
	const batch = 64
	nc := len(r.Centers)
	if len(out) == 0 {
		return
	}
	ds := len(xs) / len(out)
	per := batch / max(nc, 1) // states per batch
	if per == 0 {
		for t := range out {
			out[t] = r.At(xs[t*ds : (t+1)*ds])
		}
		return
	}
	var buf [batch]float64
	for t0 := 0; t0 < len(out); t0 += per {
		m := min(per, len(out)-t0)
		e := buf[:m*nc]
		r.exponents(e, xs[t0*ds:(t0+m)*ds], ds)
		vmath.Exps(e, e)
		// Each state's bumps added in At's order, 0 + e_0 + e_1 + …,
		// centre by centre across the states.
		o := out[t0 : t0+m]
		clear(o)
		for k := range nc {
			for t := range o {
				o[t] += e[t*nc+k]
			}
		}
	}
}

// exponents sets e[t·n_c + k] = exponent(xs[t·d_s : (t+1)·d_s], c_k), the
// arithmetic of exponent centre by centre, with a loop of its own for
// states of one coordinate (the paper's).
func (r *Bumps) exponents(e, xs []float64, ds int) {
	nc := len(r.Centers)
	for k, c := range r.Centers {
		if len(c) == 1 && ds == 1 {
			c0, w := c[0], -r.Width
			for t, x := range xs {
				var d2 float64
				d := x - c0
				d2 += d * d
				e[t*nc+k] = w * d2
			}
			continue
		}
		for t := range len(xs) / ds {
			e[t*nc+k] = r.exponent(xs[t*ds:(t+1)*ds], c)
		}
	}
}

// Reward is r(s).
func (r *Bumps) Reward(s, _ []float64) float64 { return r.At(s) }

// Terminal is never true.
func (r *Bumps) Terminal([]float64) (bool, float64) { return false, 0 }

// Terminates is false.
func (r *Bumps) Terminates() bool { return false }

// NewFamily builds the transition family of a config from the family
// registry (families): custom-sin, exp-sin and x-sin as tabulated products
// (expfam.Product) and gaussian in closed form (expfam.Gaussian), as they
// always were; every other family as a product of Dim registry coordinates
// (expfam.Coords). weightCap is model.weight_cap, the cap of the learners'
// score-matching weights.
func NewFamily(c config.Family, weightCap float64) (expfam.Distribution, error) {
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
	case config.ExprKind:
		return newExprFamily(c, weightCap)
	}
	if c.Dim < 1 {
		return nil, fmt.Errorf("env.family.dim must be >= 1, got %d", c.Dim)
	}
	p := FamilyParams{Sigma: c.Sigma, Alpha: c.Alpha, Freq: c.Freq, Low: c.Low, High: c.High, Cap: weightCap}
	cs := make([]expfam.Coord, c.Dim)
	for i := range cs {
		var err error
		if cs[i], err = NewCoord(c.Kind, p); err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
	}
	return expfam.NewCoords(cs)
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
	case config.ExprKind:
		f, err := expfam.NewExprFeatures(ds, da, c.Features.Phi)
		if err != nil {
			return nil, fmt.Errorf("env.features.%w", err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("env.features.kind: unknown features %q", c.Features.Kind)
}

// expfamKind registers env.kind expfam (see env.go's registry).
var expfamKind = Kind{Part: config.Part{Name: "expfam",
	Doc: "the paper's MDP: an exponential-family transition P(s'|s,a) = q(s') exp(<psi(s'), W0 phi(s,a)> − Z), reward Σ_k exp(−width·|s − c_k|²)",
	Uses: []string{"env.family", "env.features", "env.w0", "env.reward", "env.terminal", "env.terminal_reward", "env.init_low", "env.init_high",
		"model.kink", "model.kink_bandwidth", "model.weight_cap"}}, // the learners' score matching of the true family
	Build: newExpfam}

// The feature maps of env.features.kind and model.features.kind, with the
// keys each reads (the families are in families.go).
func init() {
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
			{Name: config.ExprKind, Doc: "phi written as expressions of s0, s1, …, a0, … (docs/expressions.md)",
				Uses: []string{section + ".phi"}, SizeKey: "phi",
				PhiDim: func(c *config.Config, section string, _, _ int) (int, bool) {
					ft := c.Env.Features
					if section == "model.features" {
						ft = c.Model.Features
					}
					return len(ft.Phi), len(ft.Phi) > 0
				}},
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
	if f.Kind != "custom-sin" && f.Kind != "coupled-sin" && f.Dim != 1 {
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
