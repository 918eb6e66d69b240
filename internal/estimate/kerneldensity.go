package estimate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// The density figure of a kernel family bound to data (smrl estimate
// --plot): no true density is known there (the family is data-bound
// because no true W exists: env.family.kind kernel has none, and a
// physical environment's step has no density), so each panel draws, at
// the (s, a) of one transition of the fitted data, the learned density of
// s'_0 (of s'_0 − s_0 with model.target delta) beside the histogram of the
// targets of the KernelNear transitions nearest to that (s, a), an
// empirical view of the conditional law there.

// KernelPanels is the number of (s, a) points of the figure: the
// transitions at the quantiles (2k+1)/(2·KernelPanels), k = 0…5, of the
// first state coordinate s_0 (the lower one of a tie in rank).
const KernelPanels = 6

// KernelDensityPoints is the number of points of s' each curve is drawn at.
const KernelDensityPoints = 300

// KernelPanel is one (s, a) of the figure.
type KernelPanel struct {
	S, A []float64
	// X and Density are the learned density's curve.
	X, Density []float64
	// Near are the targets (coordinate 0) of the transitions nearest to
	// (S, A) in the Euclidean distance of (s, a), each coordinate divided
	// by its standard deviation over the data.
	Near []float64
}

// kernelPlotInputs are what a kernel fit keeps for its figure.
type kernelPlotInputs struct {
	fit        *estimator.KernelGraphFit
	phi, next  []float64 // n×d_phi, n×d
	s, a       []float64 // n×d_s, n×d_a
	ds, da, dn int       // d_s, d_a, d of the targets
	delta      bool
}

// KernelNear is how many nearest transitions each panel's histogram holds:
// n/20, at least 30 (all of them for n < 30).
func KernelNear(n int) int { return min(n, max(30, n/20)) }

// KernelPlot reports, before any fit, whether c's model is the kernel
// family bound to the data, whose --plot figure is KernelDensities rather
// than the density grid of a W, and refuses one whose fitted density has
// no 1-D figure: the joint graph of d > 1. A config env.New refuses is
// left to the caller's own check.
func KernelPlot(c *config.Config) (bool, error) {
	m, err := env.New(c)
	if err != nil {
		return false, nil
	}
	spec := KernelSpecOf(m)
	if spec == nil {
		return false, nil
	}
	if spec.D > 1 && spec.Graph == expfam.KernelJoint {
		return true, errs.Invalid(fmt.Errorf("--plot: the joint kernel graph of d = %d has no 1-D density to draw; fit graph: autoregressive, whose first factor P(s'_0 | s, a) --plot draws", spec.D))
	}
	return true, nil
}

// KernelDensities returns the panels of the kernel fit of r (smrl
// estimate --plot), and whether the targets are s' − s; an error when r
// holds no kernel fit.
func (r *Result) KernelDensities() ([]KernelPanel, bool, error) {
	in := r.kernelPlot
	if in == nil {
		return nil, false, fmt.Errorf("no kernel fit to draw")
	}
	n := len(in.s) / in.ds
	order := make([]int, n)
	for t := range order {
		order[t] = t
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return cmp.Compare(in.s[i*in.ds], in.s[j*in.ds])
	})
	lo, hi := targetRange(in.next, in.dn)
	xs := make([]float64, KernelDensityPoints)
	for i := range xs {
		xs[i] = lo + (hi-lo)*float64(i)/float64(len(xs)-1)
	}
	scale := inputScales(in)
	dphi := in.fit.DPhi
	var out []KernelPanel
	for k := range KernelPanels {
		t := order[(2*k+1)*n/(2*KernelPanels)]
		p := KernelPanel{S: in.s[t*in.ds : (t+1)*in.ds], A: in.a[t*in.da : (t+1)*in.da], X: xs, Density: make([]float64, len(xs))}
		if err := in.fit.FirstDensity(in.phi[t*dphi:(t+1)*dphi], xs, p.Density); err != nil {
			return nil, false, errs.Invalid(fmt.Errorf("--plot: %w", err))
		}
		p.Near = nearestTargets(in, scale, t, KernelNear(n))
		out = append(out, p)
	}
	return out, in.delta, nil
}

// targetRange is the range of coordinate 0 of the targets, widened by a
// tenth of its span on each side.
func targetRange(next []float64, d int) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for t := 0; t < len(next); t += d {
		lo, hi = math.Min(lo, next[t]), math.Max(hi, next[t])
	}
	pad := 0.1 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	return lo - pad, hi + pad
}

// inputScales are the standard deviations of the coordinates of (s, a)
// (1 for a constant one).
func inputScales(in *kernelPlotInputs) []float64 {
	n := len(in.s) / in.ds
	col := make([]float64, n)
	var out []float64
	for _, m := range []struct {
		x []float64
		d int
	}{{in.s, in.ds}, {in.a, in.da}} {
		for j := range m.d {
			for t := range n {
				col[t] = m.x[t*m.d+j]
			}
			sd := estimator.StdOf(col, 1)
			if !(sd > 0) {
				sd = 1
			}
			out = append(out, sd)
		}
	}
	return out
}

// nearestTargets returns coordinate 0 of the targets of the k transitions
// nearest to transition t in (s, a), scaled by scale (ties by index).
func nearestTargets(in *kernelPlotInputs, scale []float64, t, k int) []float64 {
	n := len(in.s) / in.ds
	dist := make([]float64, n)
	for u := range n {
		var d2 float64
		for j := range in.ds {
			v := (in.s[u*in.ds+j] - in.s[t*in.ds+j]) / scale[j]
			d2 += v * v
		}
		for j := range in.da {
			v := (in.a[u*in.da+j] - in.a[t*in.da+j]) / scale[in.ds+j]
			d2 += v * v
		}
		dist[u] = d2
	}
	idx := make([]int, n)
	for u := range idx {
		idx[u] = u
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(dist[i], dist[j]) })
	out := make([]float64, k)
	for i, u := range idx[:k] {
		out[i] = in.next[u*in.dn]
	}
	return out
}
