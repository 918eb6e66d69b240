// Package env builds the MDP of an experiment from its config: an
// exponential-family transition P_W0(s'|s,a) (package expfam), a known reward
// on states r(s) = Σ_k exp(−width·|s − c_k|²), a discrete action set, a
// horizon H and initial states s_1 ~ Unif[init_low, init_high]^{d_s}.
//
// The real environment draws s' with the same sampler as the models (the
// tabulated inverse CDF of package expfam for product families, exact
// normals for the Gaussian family).
package env

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// MDP is an episodic MDP with exponential-family transitions.
type MDP struct {
	True              *expfam.Model // family, features and W0
	Horizon           int
	InitLow, InitHigh float64
	Actions           [][]float64 // the discrete action set; nil for a box
	Box               *Box        // a box of continuous actions; nil for a discrete set
	Reward            Reward
}

// Box is a box of continuous actions, a_i ∈ [Low_i, High_i].
type Box struct{ Low, High []float64 }

// Reward is r(s) = Σ_k exp(−width·|s − c_k|²).
type Reward struct {
	Width   float64
	Centers [][]float64
}

// At returns r(s).
func (r *Reward) At(s []float64) float64 {
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

// StateDim is d_s.
func (m *MDP) StateDim() int { return m.True.Dist.StateDim() }

// ActionDim is the length of an action vector.
func (m *MDP) ActionDim() int {
	if m.Box != nil {
		return len(m.Box.Low)
	}
	return len(m.Actions[0])
}

// RandomAction draws an action uniformly from the action set or box.
func (m *MDP) RandomAction(rng *rand.Rand, a []float64) {
	if m.Box != nil {
		for i := range a {
			a[i] = m.Box.Low[i] + (m.Box.High[i]-m.Box.Low[i])*rng.Float64()
		}
		return
	}
	copy(a, m.Actions[rng.IntN(len(m.Actions))])
}

// Init draws s_1 into s.
func (m *MDP) Init(rng *rand.Rand, s []float64) {
	for i := range s {
		s[i] = m.InitLow + (m.InitHigh-m.InitLow)*rng.Float64()
	}
}

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

// NewFeatures builds phi for d_s-dimensional states and the config's actions.
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

func group(flat []float64, n int) [][]float64 {
	var out [][]float64
	for i := 0; i+n <= len(flat); i += n {
		out = append(out, append([]float64(nil), flat[i:i+n]...))
	}
	return out
}

// New builds the MDP of a validated config.
func New(c *config.Config) (*MDP, error) {
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
	mdp := &MDP{
		True:     m,
		Horizon:  c.Env.Horizon,
		InitLow:  c.Env.InitLow,
		InitHigh: c.Env.InitHigh,
		Reward:   Reward{Width: c.Env.Reward.Width, Centers: group(c.Env.Reward.Centers, fam.StateDim())},
	}
	if c.Env.ActionSpace == "box" {
		mdp.Box = &Box{Low: c.Env.ActionLow, High: c.Env.ActionHigh}
	} else {
		mdp.Actions = group(c.Env.Actions, c.Env.ActionDim)
	}
	return mdp, nil
}
