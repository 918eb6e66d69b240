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
// features, CartPole's linear ones and the Acrobot's 1200. Measured at
// D = 2000 (docs/performance.md, BenchmarkScaleStep) the batch is not
// clearly faster: the cosines of the features, not η, dominate.
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
