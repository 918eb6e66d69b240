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
	fam, err := NewFamily(c)
	if err != nil {
		return nil, err
	}
	feat, err := NewFeatures(c, fam.StateDim())
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
	if _, ok := fam.(*expfam.MCMC); ok && known {
		states, actions := checkStates(c, fam.StateDim())
		if err := checkChains(m, states, actions); err != nil {
			return nil, err
		}
	}
	ds := fam.StateDim()
	scales := make([]float64, ds)
	for i := range scales {
		scales[i] = 1
	}
	var task Task = &Bumps{Width: c.Env.Reward.Width, Centers: group(c.Env.Reward.Centers, ds)}
	fk, ft := familyByName(c.Env.Family.Kind), featureByName(c.Env.Features.Kind)
	if c.Env.Reward.Expression != "" || c.Env.Terminal != "" || (fk != nil && fk.Expression) || (ft != nil && ft.Expression) {
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
	spec := ModelSpec{Family: rolloutFamily(fam, c.Sampler), Features: feat, Scales: scales, W0: trueW(m, known)}
	learnerHooks(c, trueScales(c, ds), &spec)
	return &MDP{
		Dim:             ds,
		True:            m,
		Task:            task,
		Dynamics:        modelDynamics{m},
		Model:           spec,
		Init:            uniformInit(c.Env.InitLow, c.Env.InitHigh),
		CheckTransition: naturalSpaceCheck(m),
	}, nil
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

// NewFeatures builds phi of env.features for d_s-dimensional states and the
// config's actions, from the feature-map registry (features.go).
func NewFeatures(c *config.Config, ds int) (expfam.Features, error) {
	f := featureByName(c.Env.Features.Kind)
	if f == nil {
		return nil, fmt.Errorf("env.features.kind: unknown features %q", c.Env.Features.Kind)
	}
	return f.Build(c, "env.features", ds, c.Env.ActionDim, nil)
}

// expfamKind registers env.kind expfam (see env.go's registry).
var expfamKind = Kind{Part: config.Part{Name: "expfam",
	Doc: "the paper's MDP: an exponential-family transition P(s'|s,a) = q(s') exp(<psi(s'), W0 phi(s,a)> − Z), reward Σ_k exp(−width·|s − c_k|²)",
	Uses: []string{"env.family", "env.features", "env.w0", "env.reward", "env.terminal", "env.terminal_reward", "env.init_low", "env.init_high",
		"model.kink", "model.kink_bandwidth", "model.weight_cap"}}, // the learners' score matching of the true family
	Build: newExpfam}

// The action spaces of env.action_space (the families are in families.go,
// the feature maps in features.go).
func init() {
	config.Register(config.Part{Group: "env.action_space", Name: "discrete", Doc: "a finite set: the list env.actions, action_dim numbers each", Uses: []string{"env.actions"}})
	config.Register(config.Part{Group: "env.action_space", Name: "box", Doc: "a box of continuous actions a_i in [action_low_i, action_high_i]", Uses: []string{"env.action_low", "env.action_high"}})
}

// trueW is the true W of m, nil when it is not known.
func trueW(m *expfam.Model, known bool) []float64 {
	if !known {
		return nil
	}
	return m.W
}
