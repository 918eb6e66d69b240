package agent

import (
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// fastModel is the rollout loop specialised for the paper's kind of model
// and task: a product of one tabulated scalar family (expfam.Product),
// features [s, a] (expfam.Linear), a reward of Gaussian bumps on the state
// (env.Bumps) and no terminal states. It does the generic loop's arithmetic
// in the generic loop's order, so its values are bit-identical (tested), but
// calls no interface per transition: η = W [x, a] row by row, one uniform
// and one table lookup per coordinate, the bumps of the new state.
type fastModel struct {
	w      []float64 // W, d_s × (d_s + d_a), row-major
	ds, da int
	tab    *expfam.Table
	bumps  *env.Bumps
}

// fastPath returns the specialised loop for sim under the rollouts' task, or
// ok = false when sim, its model or the task is of another kind.
func (r *Rollouts) fastPath(sim Simulator) (f fastModel, ok bool) {
	if r.ends {
		return f, false
	}
	b, ok := r.Task.(*env.Bumps)
	if !ok {
		return f, false
	}
	st, ok := sim.(*expfam.Stepper)
	if !ok {
		return f, false
	}
	p, ok := st.M.Dist.(*expfam.Product)
	if !ok {
		return f, false
	}
	lin, ok := st.M.Feat.(expfam.Linear)
	if !ok || lin.DS != p.D {
		return f, false
	}
	return fastModel{w: st.M.W, ds: lin.DS, da: lin.DA, tab: p.T, bumps: b}, true
}

// value is Rollouts.Value's loop for this model: the sum over n rollouts of
// r0 + Σ_{t=1}^{τ−1} r(x_t), x and next being scratch states.
func (f *fastModel) value(s []float64, act [][]float64, n, tau int, r0 float64, rng *rand.Rand, x, next []float64) float64 {
	ds, dphi := f.ds, f.ds+f.da
	var total float64
	for k := 0; k < n; k++ {
		copy(x, s)
		v := r0
		for t := 1; t < tau; t++ {
			a := act[t-1]
			for i := 0; i < ds; i++ {
				row := f.w[i*dphi : (i+1)*dphi]
				var e float64
				for j, xj := range x[:ds] {
					e += row[j] * xj
				}
				for j, aj := range a[:f.da] {
					e += row[ds+j] * aj
				}
				next[i] = f.tab.Quantile(e, rng.Float64())
			}
			x, next = next, x
			v += f.bumps.At(x)
		}
		total += v
	}
	return total
}
