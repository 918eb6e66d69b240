package agent

import (
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// gaussModel is the rollout loop specialised for Gaussian transition models
// (expfam.Gaussian, or an expfam.Coords of expfam.GaussCoord), drawn
// (expfam.Stepper) or moved to their mean (expfam.MeanStepper), of s' or of
// s' − s (deltaSim), under any task, terminating or not: CartPole's sm and
// lds models on [s, a] or [s, a, 1], the pendulum's on random Fourier
// features. It does the generic loop's arithmetic in the generic loop's
// order, so its values are bit-identical (tested), without the chain of
// interface calls per transition (Simulator.Step, Features.Phi,
// Distribution.Sample or Mean, Coord.Sample per coordinate):
//
//	x'_i = η_i + σ_i·N(0, 1)  (drawn; η_i for the mean) [+ x_i for s' − s],
//
// η_i = W_i·φ by the kernel Model.Eta uses (expfam.Dot below
// expfam.LongRow features, expfam.Dot4 from it on) with φ = [x, a] or
// [x, a, 1] kept in place, and by Model.Eta itself for other features
// (random Fourier features: its vector kernels). The deviates N(0, 1) come
// from the stream's PCG directly when the rollouts know it (source), and a
// Survival task's states are scored by its closed form; other tasks'
// reward and terminal test are interface calls.
type gaussModel struct {
	m      *expfam.Model
	ds, da int
	dphi   int  // d_φ of the inline features; 0: other features, through Model.Eta
	affine bool // φ = [x, a, 1]
	mean   bool // move to the mean: draw nothing
	delta  bool // the model is of s' − s
	sigma  []float64
}

// gaussPath returns the specialised loop for sim, or ok = false when sim or
// its model is of another kind. It sizes the rollouts' scratch on first use
// and allocates nothing after.
func (r *Rollouts) gaussPath(sim Simulator) (g gaussModel, ok bool) {
	if d, isDelta := sim.(deltaSim); isDelta {
		sim, g.delta = d.Simulator, true
	}
	switch st := sim.(type) {
	case *expfam.Stepper:
		g.m = st.M
	case *expfam.MeanStepper:
		g.m, g.mean = st.M, true
	default:
		return g, false
	}
	ds := len(r.x)
	if len(r.gsig) != ds {
		r.gsig = make([]float64, ds)
	}
	switch d := g.m.Dist.(type) {
	case *expfam.Gaussian:
		if d.D != ds {
			return g, false
		}
		for i := range r.gsig {
			r.gsig[i] = d.Sigma
		}
	case *expfam.Coords:
		if len(d.C) != ds {
			return g, false
		}
		for i, c := range d.C {
			gc, isGauss := c.(*expfam.GaussCoord)
			if !isGauss {
				return g, false
			}
			r.gsig[i] = gc.Sigma
		}
	default:
		return g, false
	}
	g.sigma, g.ds = r.gsig, ds
	switch f := g.m.Feat.(type) {
	case expfam.Linear:
		if f.DS != ds {
			return g, false
		}
		g.da, g.dphi = f.DA, f.Dim()
	case expfam.Affine:
		if f.DS != ds {
			return g, false
		}
		g.da, g.dphi, g.affine = f.DA, f.Dim(), true
	default:
		if g.m.Feat.StateDim() != ds {
			return g, false
		}
		g.da = g.m.Feat.ActionDim()
	}
	if len(r.gcur) != max(g.dphi, ds+g.da) {
		n := max(g.dphi, ds+g.da)
		r.gcur, r.gnxt = make([]float64, n), make([]float64, n)
	}
	if len(r.gphi) != g.m.Feat.Dim() || len(r.geta) != ds {
		r.gphi, r.geta = make([]float64, g.m.Feat.Dim()), make([]float64, ds)
	}
	if len(r.gz) != ds {
		r.gz = make([]float64, ds)
	}
	return g, true
}

// value is Rollouts.Value's loop for this model: the sum over n rollouts of
// r0 + Σ_t (what x_t scores: Rollouts.score, as in the generic loop, or
// the task's closed form Rollouts.surv, or the states of a batch of
// rollouts in one call of an env.BatchRewarder, Rollouts.batchScore), plus
// a shaped task's potential Φ at the rollout's last state. A transition's
// d_s deviates are drawn first, in the order of the coordinates, as the
// generic loop draws them: from rng's PCG directly when the rollouts know
// it (Rollouts.source).
func (g *gaussModel) value(r *Rollouts, s []float64, act [][]float64, n int, r0 float64, rng *rand.Rand) float64 {
	// Locals, not fields: the compiler reloads a field after every store
	// into the state vectors.
	ds, da, dphi := g.ds, g.da, g.dphi
	w, sigma := g.m.W, g.sigma[:ds]
	affine, mean, delta := g.affine, g.mean, g.delta
	cur, nxt := r.gcur, r.gnxt
	last, tau, shaped, surv := len(act)-1, r.Tau, r.shaped, r.surv
	long := dphi >= expfam.LongRow
	m := tau - 1            // states per rollout after s
	batch := r.batch != nil // no state stops a rollout
	z := r.gz[:ds]
	src, bound := r.source(rng)
	var total float64
	for k := 0; k < n; k++ {
		copy(cur[:ds], s)
		v := r0
		var kb int // the rollout's place in its batch
		if batch {
			kb = k % r.bn
		}
		for t := 1; t < tau; t++ {
			a := act[t-1][:da]
			if !mean {
				if bound {
					src.normals(z)
				} else {
					for i := range z {
						z[i] = rng.NormFloat64()
					}
				}
			}
			if dphi > 0 {
				for j, aj := range a { // a loop, not copy: no call for d_a of 1 or 2
					cur[ds+j] = aj
				}
				if affine {
					cur[ds+da] = 1
				}
				linearStep(w, cur[:dphi], sigma, z, nxt[:ds], long, mean, delta)
			} else {
				eta := r.geta
				g.m.Eta(cur[:ds], a, r.gphi, eta)
				for i := range ds {
					nxt[i] = nextCoord(eta[i], sigma[i], z[i], cur[i], mean, delta)
				}
			}
			cur, nxt = nxt, cur
			if batch {
				x := r.bx[(kb*m+t-1)*ds:][:ds]
				for i := range x { // a loop, not copy: no call for a few coordinates
					x[i] = cur[i]
				}
				r.bacts[kb*m+t-1] = act[min(t, last)]
				continue
			}
			var rw float64
			var stop bool
			if surv != nil {
				rw, stop = surv.Score(cur[:ds])
			} else {
				rw, stop = r.score(cur[:ds], act[min(t, last)])
			}
			v += rw
			if stop {
				break
			}
		}
		if batch {
			// Scored with the other rollouts of its batch, when that is
			// full or this is the last.
			if nb := kb + 1; nb == r.bn || k == n-1 {
				total = r.batchScore(total, r0, nb, m)
			}
			continue
		}
		if shaped != nil {
			v += shaped.Potential(cur[:ds])
		}
		total += v
	}
	return total
}

// linearStep writes the next state of a model on features φ kept in place
// (φ = [x, a] or [x, a, 1], so x = φ[:d_s]) into out (d_s entries):
//
//	out_i = W_i·φ [+ σ_i z_i unless mean] [+ x_i for s' − s],
//
// W_i·φ by expfam.Dot4 for long rows, else expfam.Dot, as Model.Eta. It
// is a function of its own, not part of the rollout loop, so that its
// few variables stay in registers.
func linearStep(w, phi, sigma, z, out []float64, long, mean, delta bool) {
	dphi := len(phi)
	sigma, z = sigma[:len(out)], z[:len(out)]
	if long {
		for i := range out {
			out[i] = expfam.Dot4(w[i*dphi:(i+1)*dphi], phi)
		}
	} else {
		// No call in this loop: its variables stay in registers.
		for i, off := 0, 0; i < len(out); i, off = i+1, off+dphi {
			out[i] = expfam.Dot(w[off:off+dphi:off+dphi], phi)
		}
	}
	for i := range out {
		out[i] = nextCoord(out[i], sigma[i], z[i], phi[i], mean, delta)
	}
}

// nextCoord is one coordinate of the next state from its mean η_i:
// η_i [+ σ_i z_i unless mean] [+ x_i for s' − s], in this order.
func nextCoord(eta, sigma, z, x float64, mean, delta bool) float64 {
	if !mean {
		eta = eta + sigma*z
	}
	if delta {
		eta += x
	}
	return eta
}
