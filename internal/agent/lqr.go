package agent

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"gonum.org/v1/gonum/mat"
)

// Controller is an agent that acts without a planner (the lqr agent): it
// writes the action to play at step h (from 0) of an episode at state s
// into out.
type Controller interface {
	Control(s []float64, h int, out []float64)
}

// lqr plays the optimal controller of a known linear-quadratic problem
// (env.LQ) over the episode's H steps: with k = H − h steps to go,
//
//	a = −K_k s,  K_k = (R + BᵀP_{k−1}B)⁻¹ BᵀP_{k−1}A,
//	P_k = Q + AᵀP_{k−1}(A − B K_k),  P_0 = 0,
//
// the finite-horizon Riccati recursion (the last action, k = 1, is a = 0:
// nothing follows it). sᵀP_k s is the least cost −Σ r over k steps from s,
// plus σ² Σ_{j<k} tr P_j in expectation with noise σ (certainty
// equivalence: the noise does not change the gains). It is optimal among
// all policies while −K_k s stays in the box; where the box binds the
// action is clamped to it, which is then only a feasible policy, not the
// constrained optimum.
type lqr struct {
	lq  *env.LQ
	box *env.Box
	k   [][]float64 // K_k, k = 1…H (k[0] = K_1), each d_a × d_s
	hor int
}

// RiccatiGains returns the finite-horizon gains K_k and cost matrices P_k
// (row-major) for k = 1…n steps to go, k-th at index k−1. It fails when
// R + BᵀP B is not positive definite.
func RiccatiGains(l *env.LQ, n int) (gains, costs [][]float64, err error) {
	ds, da := l.DS, l.DA
	a := mat.NewDense(ds, ds, l.A)
	b := mat.NewDense(ds, da, l.B)
	q := mat.NewDense(ds, ds, l.Q)
	r := mat.NewDense(da, da, l.R)
	p := mat.NewDense(ds, ds, nil) // P_0 = 0
	var pb, btpb, btpa, pa mat.Dense
	for k := 1; k <= n; k++ {
		pb.Mul(p, b)
		btpb.Mul(b.T(), &pb)
		btpb.Add(&btpb, r)
		sym := mat.NewSymDense(da, nil)
		for i := range da {
			for j := i; j < da; j++ {
				sym.SetSym(i, j, (btpb.At(i, j)+btpb.At(j, i))/2)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			return nil, nil, fmt.Errorf("lqr: R + BᵀP B is not positive definite at %d steps to go", k)
		}
		pa.Mul(p, a)
		btpa.Mul(b.T(), &pa)
		var kk mat.Dense
		if err := ch.SolveTo(&kk, &btpa); err != nil {
			return nil, nil, fmt.Errorf("lqr: %w", err)
		}
		// P_k = Q + Aᵀ P (A − B K).
		var abk, next mat.Dense
		abk.Mul(b, &kk)
		abk.Sub(a, &abk)
		next.Mul(p, &abk)
		next.Mul(a.T(), &next)
		next.Add(&next, q)
		// Keep P symmetric against rounding.
		for i := range ds {
			for j := i + 1; j < ds; j++ {
				m := (next.At(i, j) + next.At(j, i)) / 2
				next.Set(i, j, m)
				next.Set(j, i, m)
			}
		}
		p = &next
		gains = append(gains, append([]float64(nil), kk.RawMatrix().Data...))
		costs = append(costs, append([]float64(nil), next.RawMatrix().Data...))
	}
	return gains, costs, nil
}

func newLQR(truth env.Dynamics, box *env.Box, horizon int) (*lqr, error) {
	lq, ok := truth.(env.LinearQuadratic)
	if !ok {
		return nil, fmt.Errorf("agent lqr: needs env.kind lq (a known linear-quadratic problem)")
	}
	if box == nil {
		return nil, fmt.Errorf("agent lqr: needs box actions")
	}
	l := lq.LQ()
	k, _, err := RiccatiGains(l, max(horizon, 1))
	if err != nil {
		return nil, err
	}
	return &lqr{lq: l, box: box, k: k, hor: horizon}, nil
}

// Control writes a = clamp(−K_{H−h} s) into out (K_1 beyond the horizon).
func (c *lqr) Control(s []float64, h int, out []float64) {
	ds, da := c.lq.DS, c.lq.DA
	k := c.k[min(max(c.hor-h, 1), len(c.k))-1]
	for i := range da {
		var v float64
		for j := range ds {
			v -= k[i*ds+j] * s[j]
		}
		out[i] = min(max(v, c.box.Low[i]), c.box.High[i])
	}
}

// The lqr agent (config key agents): it reads env.lq through the
// environment and needs env.kind lq. It fits nothing, so it ignores λ and
// lambda: cv.
func init() {
	RegisterAgent(AgentKind{Build: newLQRAgent, Part: config.Part{Name: "lqr", LambdaCV: true,
		Doc: "plays the exact finite-horizon Riccati controller of env.kind lq (clamped to the box)",
		Validate: func(c *config.Config, bad config.Bad) {
			if c.Env.Kind != "lq" {
				bad("agents", "lqr plays the Riccati controller of env.lq and needs env.kind: lq, got %s", c.Env.Kind)
			}
		}}})
}

// newLQRAgent plays the Riccati controller of a linear-quadratic truth
// over c.Horizon steps; it plans nothing.
func newLQRAgent(name string, _ env.ModelSpec, truth env.Dynamics, c Config) (*Agent, error) {
	ctrl, err := newLQR(truth, c.Box, c.Horizon)
	if err != nil {
		return nil, err
	}
	return &Agent{Name: name, Ctrl: ctrl, base: name, Beta: math.NaN(), Accept: math.NaN()}, nil
}
