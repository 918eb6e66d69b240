package env

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// LQ is a linear-quadratic problem (env.kind lq): the linear dynamics
//
//	s' = A s + B a + σ ε,  ε ~ N(0, I_{d_s}),
//
// the reward r(s, a) = −(sᵀQs + aᵀRa), actions in a box and never a
// terminal state. Matrices are row-major: A and Q d_s × d_s, B d_s × d_a, R
// d_a × d_a. Its optimal controller is in closed form (package agent's lqr
// agent) as long as the box does not bind.
type LQ struct {
	DS, DA     int
	A, B, Q, R []float64
	Sigma      float64 // σ, the noise's standard deviation per coordinate
}

// LinearQuadratic is implemented by the Dynamics of env.kind lq: the
// problem whose optimum the lqr agent plays.
type LinearQuadratic interface{ LQ() *LQ }

func flatten(m [][]float64) []float64 {
	var out []float64
	for _, r := range m {
		out = append(out, r...)
	}
	return out
}

func newLQ(c *config.Config) (*MDP, error) {
	l := c.Env.LQ
	ds, da := len(l.A), c.Env.ActionDim
	lq := &LQ{DS: ds, DA: da, A: flatten(l.A), B: flatten(l.B), Q: flatten(l.Q), R: flatten(l.R), Sigma: l.NoiseStd}
	def := make([]float64, ds)
	in := make([]float64, ds+da)
	for i := range def {
		def[i] = 1 // Gaussian scales: with noise, its σ; without, 1 (score matching is then ridge regression with λ)
		if l.NoiseStd > 0 {
			def[i] = l.NoiseStd
		}
		in[i] = max(math.Abs(c.Env.InitLow), math.Abs(c.Env.InitHigh), 1e-3)
	}
	for j := range da {
		in[ds+j] = max((c.Env.ActionHigh[j]-c.Env.ActionLow[j])/2, 1e-3)
	}
	spec, err := learnerSpec(c, def, da, in)
	if err != nil {
		return nil, err
	}
	return &MDP{
		Dim:      ds,
		Task:     lqTask{lq},
		Dynamics: lq,
		Model:    spec,
		Init:     uniformInit(c.Env.InitLow, c.Env.InitHigh),
	}, nil
}

// LQ returns the problem itself.
func (l *LQ) LQ() *LQ { return l }

// mean writes A s + B a into out.
func (l *LQ) mean(s, a, out []float64) {
	for i := range l.DS {
		var v float64
		for j, x := range s[:l.DS] {
			v += l.A[i*l.DS+j] * x
		}
		for j, u := range a[:l.DA] {
			v += l.B[i*l.DA+j] * u
		}
		out[i] = v
	}
}

func (l *LQ) NewSimulator() Simulator { return lqSim{l} }
func (l *LQ) NewMean() Simulator      { return lqMean{l} }

// lqSim draws s' = A s + B a + σ ε (no draw when σ = 0).
type lqSim struct{ *LQ }

func (l lqSim) Step(s, a []float64, rng *rand.Rand, out []float64) {
	l.mean(s, a, out)
	if l.Sigma > 0 {
		for i := range out[:l.DS] {
			out[i] += l.Sigma * rng.NormFloat64()
		}
	}
}

// lqMean is the noise-free step A s + B a.
type lqMean struct{ *LQ }

func (l lqMean) Step(s, a []float64, _ *rand.Rand, out []float64) { l.mean(s, a, out) }

// Deterministic reports that the mean step draws nothing.
func (lqMean) Deterministic() bool { return true }

// Quad returns xᵀ M x for the n × n row-major M.
func Quad(m []float64, x []float64) float64 {
	n := len(x)
	var v float64
	for i := range n {
		var r float64
		for j := range n {
			r += m[i*n+j] * x[j]
		}
		v += x[i] * r
	}
	return v
}

// lqTask is r(s, a) = −(sᵀQs + aᵀRa).
type lqTask struct{ *LQ }

func (t lqTask) Reward(s, a []float64) float64 {
	return -(Quad(t.Q, s[:t.DS]) + Quad(t.R, a[:t.DA]))
}
func (lqTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (lqTask) Terminates() bool                   { return false }
