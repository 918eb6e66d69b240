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
	fam, err := NewFamily(c.Env.Family, c.Model.WeightCap)
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
	if err := checkNaturalParameters(m, actionCorners(c.Env), c.Env.InitLow, c.Env.InitHigh); err != nil {
		return nil, err
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
		Model: ModelSpec{Family: fam, Features: feat, LDSSigma: lds, W0: m.W,
			Kink: c.Model.Kink, KinkBandwidth: kinkBandwidths(c.Model, familyScales(c.Env.Family, ds))},
		Init: uniformInit(c.Env.InitLow, c.Env.InitHigh),
	}, nil
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
	}
	return nil, fmt.Errorf("env.features.kind: unknown features %q", c.Features.Kind)
}
