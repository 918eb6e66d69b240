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
// calls no interface per transition: φ = [x, a] kept in place, each η_i
// by the kernel Model.Eta uses for that d_φ (expfam.Dot, inlined, below
// expfam.LongRow, expfam.Dot4 from it on), one uniform and one table lookup
// per coordinate, and the bumps of a batch of rollouts' states together in
// one Bumps.Rewards call (their exponentials in vector lanes).
//
// It draws the coordinates itself rather than through
// (*expfam.Product).Sample, which would also be a call without an
// interface: Sample takes all of η at once, so η would go through a buffer
// and each transition would make one more call that cannot be inlined;
// measured, that cost 10–30% per transition. The draw is the same
// expression, p.T.Quantile(η_i, rng.Float64()), coordinate by coordinate.
type fastModel struct {
	w      []float64 // W, d_s × (d_s + d_a), row-major
	ds, da int
	tab    *expfam.Table
	bumps  *env.Bumps
}

// fastPath returns the specialised loop for sim under the rollouts' task, or
// ok = false when sim, its model or the task is of another kind. It sizes
// the rollouts' two φ scratch vectors for the model on first use.
func (r *Rollouts) fastPath(sim Simulator) (f fastModel, ok bool) {
	if r.ends || r.batch == nil {
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
	if len(r.phi) != lin.Dim() {
		r.phi, r.phiNext = make([]float64, lin.Dim()), make([]float64, lin.Dim())
	}
	return fastModel{w: st.M.W, ds: lin.DS, da: lin.DA, tab: p.T, bumps: b}, true
}

// value is Rollouts.Value's loop for this model: the sum over n rollouts of
// r0 + Σ_{t=1}^{τ−1} r(x_t), the rewards added in t's order. cur and nxt
// are scratch of length d_φ: φ_t = [x_t, a_t] is kept in cur, and x_{t+1}
// is drawn into nxt[:d_s]. xs and rw hold the states of bn rollouts
// (bn·(τ−1)·d_s and bn·(τ−1)), scored in one Bumps.Rewards call when bn
// rollouts (or the last) are done.
func (f *fastModel) value(s []float64, act [][]float64, n, tau, bn int, r0 float64, rng *rand.Rand, cur, nxt, xs, rw []float64) float64 {
	ds, dphi := f.ds, f.ds+f.da
	tab := f.tab
	long := dphi >= expfam.LongRow
	m := tau - 1 // states per rollout after s
	var total float64
	for k0 := 0; k0 < n; k0 += bn {
		nb := min(bn, n-k0)
		xs, rw := xs[:nb*m*ds], rw[:nb*m]
		for k := range nb {
			copy(cur[:ds], s)
			for t := 1; t < tau; t++ {
				for j, aj := range act[t-1][:f.da] {
					cur[ds+j] = aj
				}
				x := xs[(k*m+t-1)*ds:][:ds] // x_t, kept for the rewards
				for i := range x {
					row := f.w[i*dphi : (i+1)*dphi]
					var e float64
					if long {
						e = expfam.Dot4(row, cur)
					} else {
						e = expfam.Dot(row, cur)
					}
					q := tab.Quantile(e, rng.Float64())
					nxt[i], x[i] = q, q
				}
				cur, nxt = nxt, cur
			}
		}
		f.bumps.Rewards(xs, nil, rw)
		for k := range nb {
			v := r0
			for _, r := range rw[k*m : (k+1)*m] {
				v += r
			}
			total += v
		}
	}
	return total
}
