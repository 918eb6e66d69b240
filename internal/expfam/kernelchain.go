package expfam

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// KernelChain is the kernel family of model.family: kernel as a
// learner's planning model (the sm agent binds it at its refits): the
// autoregressive graph of estimator.KernelGraphFit, one 1-D kernel family
// per coordinate i of s' (or s' − s) given (s, a, s'_<i), each a
// KernelGrid with its own m centres, bandwidth σ_i and base scale b_i:
//
//	P(s' | s, a) = Π_i P_i(s'_i | s, a, s'_<i),
//	P_i(x | ·) ∝ exp(−x²/(2b_i²) + <psi_i(x), η_i + A_i s'_<i>),   η_i = W_i^φ φ(s, a).
//
// The fitted W_i of the autoregressive graph is m×(d_phi + i) on the
// inputs [φ; s'_<i]; the chain splits it into its first d_phi columns,
// W_i^φ, which are the rows i·m … (i+1)·m − 1 of the model's W (so η =
// W φ of an expfam.Model is (η_0; …; η_{d−1}), d·m numbers, StatDim), and
// its last i columns A_i (m×i), held here. For d = 1 (either graph) A_0
// is empty and the chain is the one family P(s' | s, a) ∝ q(s')
// exp(<psi(s'), W φ>).
//
// Mean and Sample run the coordinates in order, feeding the mean (Mean)
// or the draw (Sample) of s'_<i into coordinate i's parameter, each by
// KernelGrid's fixed grid rule (no allocation; the G·m multiply-adds of
// the rule plus m·i for A_i s'_<i per coordinate). Mean is so the
// plug-in mean of the chain, exact for coordinate 0 (up to the grid
// rule) and, for i > 0, the mean of P_i at the earlier coordinates'
// means (the rollouts' mean rule: a sequence moves to one state per
// step), not E[s'_i] under the chain, which would integrate over s'_<i.
//
// Before Bind the grids carry evenly spread centres and A_i = 0; with W
// = 0 the model is the base measure alone, N(0, b_i²) per coordinate.
// The chain is bound in place between episodes by its one owner, never
// while a rollout runs.
type KernelChain struct {
	grids []*KernelGrid
	prev  [][]float64 // prev[i]: A_i, m×i row-major (nil before a Bind)
	m     int
}

// ErrKernelChainScore is the panic of KernelChain.ScoreTerms: the chain
// is no exponential family of η alone in s' (Z_i depends on s'_<i), so it
// has no score terms of the generic score matching; the sm agent fits it
// by estimator.FitKernelSpec instead.
var ErrKernelChainScore = errors.New("the autoregressive kernel chain has no generic score terms: fit it with estimator.FitKernelSpec")

// ErrKernelChainZ is LogPartition's error for d > 1: Z_i(η_i + A_i
// s'_<i) depends on s'_<i, so log Z is no function of η alone
// (LogDensity normalises each conditional at the point).
var ErrKernelChainZ = errors.New("the autoregressive kernel chain's normaliser depends on s'_<i: use LogDensity")

// NewKernelChain returns the unbound chain of d coordinates of m centres
// each, coordinate i of base scale base[i] before its first Bind.
func NewKernelChain(m int, base []float64) (*KernelChain, error) {
	if len(base) == 0 {
		return nil, fmt.Errorf("dim: %w: a chain needs at least one coordinate", ErrKernelFamily)
	}
	c := &KernelChain{m: m, prev: make([][]float64, len(base))}
	for i, b := range base {
		g, err := NewKernelGrid(m, b)
		if err != nil {
			return nil, fmt.Errorf("coordinate %d: %w", i, err)
		}
		c.grids = append(c.grids, g)
	}
	return c, nil
}

// Bind sets coordinate i's family (f: 1-D, m centres; its grid rule is
// rebuilt) and A_i (m×i, the weights of s'_<i; copied). On a refusal the
// coordinate is unchanged; the grid's refusal (KernelGrid.Bind) is
// returned as it is, naming its key, for the caller to place.
func (c *KernelChain) Bind(i int, f *Kernel, a []float64) error {
	if f.D != 1 || f.M != c.m {
		return fmt.Errorf("coordinate %d: %w: a family of dim %d with %d centres, want dim 1 and %d", i, ErrKernelCentres, f.D, f.M, c.m)
	}
	if len(a) != c.m*i {
		return fmt.Errorf("coordinate %d: %w: %d weights of the earlier coordinates, want m·i = %d", i, ErrKernelFamily, len(a), c.m*i)
	}
	if err := c.grids[i].Bind(f.Z, f.Sigma, f.Base); err != nil {
		return err
	}
	c.prev[i] = append(c.prev[i][:0], a...)
	return nil
}

// Grid returns coordinate i's grid family.
func (c *KernelChain) Grid(i int) *KernelGrid { return c.grids[i] }

// Prev returns A_i (m×i; empty before a Bind and for i = 0).
func (c *KernelChain) Prev(i int) []float64 { return c.prev[i] }

func (c *KernelChain) String() string {
	return fmt.Sprintf("kernel chain(dim=%d, centres=%d per coordinate)", len(c.grids), c.m)
}

// StateDim is d.
func (c *KernelChain) StateDim() int { return len(c.grids) }

// StatDim is d·m: η_i of every coordinate.
func (c *KernelChain) StatDim() int { return len(c.grids) * c.m }

// Psi writes (psi_0(x_0); …; psi_{d−1}(x_{d−1})).
func (c *KernelChain) Psi(x, out []float64) {
	for i, g := range c.grids {
		g.Psi(x[i], out[i*c.m:(i+1)*c.m])
	}
}

// LogBase returns the part of log P(x | η) that does not involve η nor
// a normaliser: Σ_i −x_i²/(2b_i²) + <psi_i(x_i), A_i x_<i>.
func (c *KernelChain) LogBase(x []float64) float64 {
	var l float64
	for i, g := range c.grids {
		l += g.LogQ(x[i])
		a := c.prev[i]
		if len(a) == 0 {
			continue
		}
		f := g.Fam
		for k := range c.m {
			var e float64
			for j, v := range a[k*i : (k+1)*i] {
				e += v * x[j]
			}
			r := x[i] - f.Z[k]
			l += math.Exp(-r*r/(2*f.Sigma*f.Sigma)) * e
		}
	}
	return l
}

// ScoreTerms panics (ErrKernelChainScore): see the type's doc.
func (c *KernelChain) ScoreTerms(x, jac, xi []float64) { panic(ErrKernelChainScore) }

// Mean writes the chain's mean rule (see the type): out[i] = E_i[x |
// η_i + A_i out[:i]] by coordinate i's grid rule, in order.
func (c *KernelChain) Mean(eta, out []float64) {
	for i, g := range c.grids {
		out[i] = g.MeanGiven(eta[i*c.m:(i+1)*c.m], c.prev[i], c.earlier(i, out))
	}
}

// earlier returns x_<i when coordinate i depends on it (A_i bound), else
// nothing.
func (c *KernelChain) earlier(i int, x []float64) []float64 {
	if len(c.prev[i]) == 0 {
		return nil
	}
	return x[:i]
}

// Sample draws s' from the chain: coordinate i from its grid rule at η_i
// + A_i s'_<i, the earlier coordinates drawn first.
func (c *KernelChain) Sample(eta []float64, rng *rand.Rand, out []float64) {
	for i, g := range c.grids {
		out[i] = g.SampleGiven(eta[i*c.m:(i+1)*c.m], c.prev[i], c.earlier(i, out), rng)
	}
}

// LogPartition returns log Z(η) for d = 1 (Kernel's quadrature, exact);
// for d > 1 it fails (ErrKernelChainZ).
func (c *KernelChain) LogPartition(eta []float64) (float64, error) {
	if len(c.grids) > 1 {
		return 0, ErrKernelChainZ
	}
	return c.grids[0].LogPartition(eta)
}

// LogDensity returns log P(x | η) = Σ_i log P_i(x_i | η_i + A_i x_<i),
// each conditional normalised by Kernel's quadrature (exact).
func (c *KernelChain) LogDensity(x, eta []float64) (float64, error) {
	e := make([]float64, c.m)
	psi := make([]float64, c.m)
	var l float64
	for i, g := range c.grids {
		a := c.prev[i]
		for k := range c.m {
			e[k] = eta[i*c.m+k]
			if len(a) > 0 {
				for j, v := range a[k*i : (k+1)*i] {
					e[k] += v * x[j]
				}
			}
		}
		lz, err := g.LogPartition(e)
		if err != nil {
			return 0, fmt.Errorf("coordinate %d: %w", i, err)
		}
		g.Psi(x[i], psi)
		l += g.LogQ(x[i]) + Dot(psi, e) - lz
	}
	return l, nil
}
