package agent

import (
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/linalg"
)

// batchMinFeatures is the number of features from which a learned Gaussian
// model moved to its mean (mean rollouts) steps the K sequences of a
// decision together (gaussBatch): the features of the K states in one
// block and η = W φ of all of them as one matrix product, W Φᵀ, on
// internal/linalg's kernel, instead of one pass over W per state. Below it
// the per-state loops of rollout_gauss.go run (the RFF kernel that sums η
// in its pass over the features), and keep their bits: the pendulum's 200
// features, CartPole's linear ones and the Acrobot's 1200 (the per-state
// kernel sums η in Dot4's order, the batch by fused multiply-adds: moving
// the threshold would change their bits). With AVX-512 on random Fourier
// features the batch runs eight states per register (stepLanes): at
// D = 2000 the decision takes about half the time of the per-state kernel
// (docs/performance.md, BenchmarkScaleStep).
const batchMinFeatures = 1500

// batchSim is a simulator that draws nothing and steps a batch of states
// in one call: StepBatch(xs, acts, out) writes Step(x_k, a_k, ·, out_k) for
// the states x_k laid end to end in xs, bit for bit.
type batchSim interface {
	Simulator
	StepBatch(xs []float64, acts [][]float64, out []float64)
}

// gaussBatch is the mean of a Gaussian model (expfam.Gaussian, or a
// product of GaussCoord) on features of at least batchMinFeatures: E[s'|s,
// a] = η = W φ(s, a) (+ s for a model of s' − s). Step is StepBatch of one
// state, and a row of linalg.MulABt has the same bits alone or in a batch,
// so Rollouts.Values (all K sequences at once) and K Value calls agree bit
// for bit. The joint and kernel families, built elsewhere, plug in by
// implementing batchSim.
type gaussBatch struct {
	m     *expfam.Model
	ds    int
	delta bool
	phi   []float64 // K × d_phi
	eta   []float64 // d_s × K: ηᵀ
	one   [][]float64

	// The lanes' path (stepLanes): two groups of eight states' inputs
	// transposed, their features (expfam.RFF.PhiBatch8's layout), their η
	// (d_s × 16) and one state's features for a lane the kernel declines.
	xt, phi8, eta8, row []float64
}

// newGaussBatch returns the batched mean stepper of m, or nil when m is
// not a Gaussian model on at least batchMinFeatures features.
func newGaussBatch(m *expfam.Model, delta bool) *gaussBatch {
	if m.Feat.Dim() < batchMinFeatures {
		return nil
	}
	ds := m.Dist.StateDim()
	switch d := m.Dist.(type) {
	case *expfam.Gaussian:
	case *expfam.Coords:
		for _, c := range d.C {
			if _, ok := c.(*expfam.GaussCoord); !ok {
				return nil
			}
		}
	default:
		return nil
	}
	if m.Dist.StatDim() != ds {
		return nil
	}
	return &gaussBatch{m: m, ds: ds, delta: delta}
}

func (g *gaussBatch) Deterministic() bool { return true }

// Step writes the mean next state of s under action a into out.
func (g *gaussBatch) Step(s, a []float64, _ *rand.Rand, out []float64) {
	if g.one == nil {
		g.one = make([][]float64, 1)
	}
	g.one[0] = a
	g.StepBatch(s[:g.ds], g.one, out)
}

// StepBatch writes the mean next state of every state of xs (len(acts)
// states laid end to end) into out.
func (g *gaussBatch) StepBatch(xs []float64, acts [][]float64, out []float64) {
	if rff, ok := g.m.Feat.(*expfam.RFF); ok && g.stepLanes(rff, xs, acts, out) {
		return
	}
	g.stepRows(xs, acts, out)
}

// stepRows is StepBatch by the general path: Phi of each state into the
// rows of Φ, then ηᵀ = W Φᵀ by linalg.MulABt.
func (g *gaussBatch) stepRows(xs []float64, acts [][]float64, out []float64) {
	k, ds, dphi := len(acts), g.ds, g.m.Feat.Dim()
	if len(g.phi) < k*dphi {
		g.phi, g.eta = make([]float64, k*dphi), make([]float64, k*ds)
	}
	for j, a := range acts {
		g.m.Feat.Phi(xs[j*ds:(j+1)*ds], a, g.phi[j*dphi:(j+1)*dphi])
	}
	// ηᵀ = W Φᵀ (d_s × K): the K states are the product's long side.
	linalg.MulABt(ds, k, dphi, g.m.W, dphi, g.phi, dphi, g.eta, k)
	for j := range k {
		for i := range ds {
			e := g.eta[i*k+j]
			if g.delta {
				e += xs[j*ds+i]
			}
			out[j*ds+i] = e
		}
	}
}

// stepLanes is StepBatch on random Fourier features with AVX-512: eight
// states at a time in the lanes of a register, their features by
// RFF.PhiBatch8 (RFF.PhiBatch16 for sixteen: one pass over the
// frequencies) and η = W φ by linalg.MulABtPanel8x2 (sixteen states per
// pass over W), neither of which packs or transposes W or the features.
// The bits are those of the general path (Phi of each state, then MulABt,
// stepRows): both kernels are tested to give them. It returns false,
// having written nothing, when the kernel is off or the features are not
// of (s, a) with this model's s; a group of eight with an input outside
// the cosine's range gets Phi per state instead.
func (g *gaussBatch) stepLanes(f *expfam.RFF, xs []float64, acts [][]float64, out []float64) bool {
	ds, dphi := g.ds, f.Dim()
	if f.DS != ds || !expfam.HasPhiBatch8() {
		return false
	}
	if len(g.phi8) != 2*f.Batch8Len() || len(g.eta8) != 16*ds || len(g.xt) != 16*(ds+f.DA) {
		g.xt = make([]float64, 16*(ds+f.DA))
		g.phi8, g.eta8 = make([]float64, 2*f.Batch8Len()), make([]float64, 16*ds)
	}
	half := f.Batch8Len()
	for j0 := 0; j0 < len(acts); j0 += 16 {
		n := min(16, len(acts)-j0)
		if n <= 8 {
			g.lanes(f, xs, acts, j0, n, g.phi8[:half])
			linalg.MulABtPanel8(ds, dphi, g.m.W, dphi, g.phi8[:half], g.eta8[:8*ds])
		} else {
			g.lanes16(f, xs, acts, j0, n, g.phi8[:half], g.phi8[half:])
			linalg.MulABtPanel8x2(ds, dphi, g.m.W, dphi, g.phi8[:half], g.phi8[half:], g.eta8[:8*ds], g.eta8[8*ds:])
		}
		for l := range n {
			j, e8 := j0+l, g.eta8[(l/8)*8*ds:]
			for i := range ds {
				e := e8[8*i+l%8]
				if g.delta {
					e += xs[j*ds+i]
				}
				out[j*ds+i] = e
			}
		}
	}
	return true
}

// lanes16 writes into phi0 and phi1 the features of the 8 < n ≤ 16 states
// from j0, eight and n − 8, as two calls of lanes would: by
// RFF.PhiBatch16 (one pass over the frequencies) when it takes both
// groups, by lanes otherwise.
func (g *gaussBatch) lanes16(f *expfam.RFF, xs []float64, acts [][]float64, j0, n int, phi0, phi1 []float64) {
	m := 8 * (g.ds + f.DA)
	g.transpose(f, xs, acts, j0, 8, g.xt[:m])
	g.transpose(f, xs, acts, j0+8, n-8, g.xt[m:])
	if f.PhiBatch16(g.xt[:m], g.xt[m:], phi0, phi1) {
		return
	}
	g.lanes(f, xs, acts, j0, 8, phi0)
	g.lanes(f, xs, acts, j0+8, n-8, phi1)
}

// transpose writes the n ≤ 8 inputs (s, a) from j0 into xt in
// RFF.PhiBatch8's layout, xt[8i+l] = x_l[i] (a short group repeats its
// last state).
func (g *gaussBatch) transpose(f *expfam.RFF, xs []float64, acts [][]float64, j0, n int, xt []float64) {
	ds, da := g.ds, f.DA
	for l := range 8 {
		j := j0 + min(l, n-1)
		for i, v := range xs[j*ds : (j+1)*ds] {
			xt[8*i+l] = v
		}
		for i, v := range acts[j][:da] {
			xt[8*(ds+i)+l] = v
		}
	}
}

// lanes writes into phi8 the features of the n ≤ 8 states from j0, in
// RFF.PhiBatch8's layout (a short group repeats its last state), by the
// kernel or, where it declines, by Phi of each state.
func (g *gaussBatch) lanes(f *expfam.RFF, xs []float64, acts [][]float64, j0, n int, phi8 []float64) {
	ds := g.ds
	xt := g.xt[:8*(ds+f.DA)]
	g.transpose(f, xs, acts, j0, n, xt)
	if f.PhiBatch8(xt, phi8) {
		return
	}
	if len(g.row) != f.Dim() {
		g.row = make([]float64, f.Dim())
	}
	for l := range n {
		j := j0 + l
		f.Phi(xs[j*ds:(j+1)*ds], acts[j], g.row)
		for k, v := range g.row {
			phi8[8*k+l] = v
		}
	}
}

// scoredBatch is a batchSim with the rollouts' task: the
// env.BatchRewardStepper that Rollouts.Values steps, its rewards those of
// the task's batch call (Rollouts.batch), which equal its Reward calls.
type scoredBatch struct {
	batchSim
	r *Rollouts
}

func (s scoredBatch) Scores(env.Task) bool { return true }

func (s scoredBatch) StepReward(x, a, out []float64) float64 {
	s.batchSim.Step(x, a, nil, out)
	return s.r.Task.Reward(x, a)
}

func (s scoredBatch) StepRewards(xs []float64, acts [][]float64, out, rw []float64) {
	s.batchSim.StepBatch(xs, acts, out)
	s.r.rewards(xs, acts, rw)
}
