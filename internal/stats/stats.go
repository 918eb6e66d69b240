// Package stats holds the statistics shared across smrl: the least-squares
// fits of the tables and the figures (so that a slope printed in
// summary.csv and one drawn in a figure are the same number), and the
// Kolmogorov–Smirnov statistic of the sampler tests.
package stats

import (
	"math"
	"slices"
)

// LineFit fits y = a + b x by least squares. ok is false with fewer than two
// points or no spread in x.
func LineFit(xs, ys []float64) (a, b float64, ok bool) {
	var n, sx, sy, sxx, sxy float64
	for i, x := range xs {
		y := ys[i]
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if n < 2 || !(den > 0) {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b, true
}

// RegretFit fits log R = a + b log k by least squares over the points with
// k > K/2 (K the largest k) and a finite R > 0: the growth rate of
// cumulative regret R over episodes k in the second half of a run (√K
// growth is b = 0.5, linear growth b = 1). It returns the fitted range of k;
// ok is false with fewer than two such points. |b| < 1e-12 is reported as 0
// (flat regret: rounding error, not a slope).
func RegretFit(episodes, regret []float64) (a, b, kLo, kHi float64, ok bool) {
	var kmax float64
	for _, k := range episodes {
		kmax = max(kmax, k)
	}
	var xs, ys []float64
	kLo, kHi = math.Inf(1), math.Inf(-1)
	for i, k := range episodes {
		r := regret[i]
		if !(k > kmax/2) || !(r > 0) || math.IsInf(r, 0) {
			continue
		}
		xs, ys = append(xs, math.Log(k)), append(ys, math.Log(r))
		kLo, kHi = min(kLo, k), max(kHi, k)
	}
	a, b, ok = LineFit(xs, ys)
	if !ok {
		return 0, 0, 0, 0, false
	}
	if math.Abs(b) < 1e-12 {
		b = 0
	}
	return a, b, kLo, kHi, true
}

// KS returns the one-sample Kolmogorov–Smirnov statistic sup_x |F_n(x) −
// F(x)| of the draws xs against the CDF cdf; xs is sorted in place. Its 1%
// critical value for n draws is about 1.628/√n.
func KS(xs []float64, cdf func(float64) float64) float64 {
	slices.Sort(xs)
	n := float64(len(xs))
	var d float64
	for i, x := range xs {
		f := cdf(x)
		d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return d
}
