package mcmc

import (
	"errors"
	"fmt"
	"math"
)

// ESS returns the effective sample size of a scalar quantity drawn by
// m chains of n draws each (chains[c][i], every chain of the same length
// n >= 4), Stan's multi-chain estimator without FFT:
//
//	ρ̂_t = 1 − (W − (1/m) Σ_c γ̂_{t,c}) / var⁺,   var⁺ = (n−1)/n W + B/n,
//
// with γ̂_{t,c} = (1/n) Σ_{i<n−t} (x_{c,i} − x̄_c)(x_{c,i+t} − x̄_c) the
// autocovariance of chain c, W the mean within-chain variance and B/n the
// variance of the chain means (0 for one chain). The sum is truncated by
// Geyer's initial monotone sequence: the pair sums P_k = ρ̂_{2k} + ρ̂_{2k+1}
// are added while positive, each capped at the one before, and
//
//	ESS = m n / τ̂,   τ̂ = −1 + 2 Σ_k P_k   (τ̂ at least 1/log10(mn)).
//
// Autocovariances are computed lag by lag only up to the truncation, so the
// cost is O(m n K) for a truncation lag K. ESS is NaN when every draw is
// the same (no variance) or the chains' lengths differ.
func ESS(chains [][]float64) float64 {
	m := len(chains)
	if m == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	for _, ch := range chains {
		if len(ch) != n {
			return math.NaN()
		}
	}
	if n < 4 {
		return math.NaN()
	}
	means := make([]float64, m)
	var w float64
	for c, ch := range chains {
		means[c] = mean(ch)
		w += autocov(ch, means[c], 0) * float64(n) / float64(n-1)
	}
	w /= float64(m)
	varPlus := w * float64(n-1) / float64(n)
	if m > 1 {
		varPlus += variance(means)
	}
	if !(varPlus > 0) || !(w > 0) {
		return math.NaN()
	}
	rho := func(t int) float64 {
		var g float64
		for c, ch := range chains {
			g += autocov(ch, means[c], t)
		}
		return 1 - (w-g/float64(m))/varPlus
	}
	var sum float64
	prev := math.Inf(1)
	for k := 0; 2*k+1 < n; k++ {
		p := rho(2*k) + rho(2*k+1)
		if !(p > 0) {
			break
		}
		p = min(p, prev)
		prev = p
		sum += p
	}
	total := float64(m * n)
	tau := max(-1+2*sum, 1/math.Log10(total))
	return total / tau
}

// autocov is (1/n) Σ_{i<n−t} (x_i − mu)(x_{i+t} − mu).
func autocov(x []float64, mu float64, t int) float64 {
	var s float64
	for i := 0; i+t < len(x); i++ {
		s += (x[i] - mu) * (x[i+t] - mu)
	}
	return s / float64(len(x))
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// variance is the unbiased sample variance.
func variance(x []float64) float64 {
	mu := mean(x)
	var s float64
	for _, v := range x {
		s += (v - mu) * (v - mu)
	}
	return s / float64(len(x)-1)
}

// SplitRhat returns the split potential scale reduction factor of a
// scalar quantity drawn by chains of equal length n >= 4 (Gelman et al.,
// BDA3 §11.4): each chain is cut into halves of ⌊n/2⌋ (the middle draw of
// an odd chain dropped), and over the 2m halves of length h
//
//	R̂ = √(var⁺ / W),   var⁺ = (h−1)/h W + B/h,
//
// W the mean within-half variance and B/h the variance of the half means.
// Values near 1 say the halves agree; above about 1.01–1.1 they do not
// (unmixed chains or a trend). NaN when the lengths differ or W = 0.
func SplitRhat(chains [][]float64) float64 {
	if len(chains) == 0 {
		return math.NaN()
	}
	n := len(chains[0])
	h := n / 2
	if h < 2 {
		return math.NaN()
	}
	halves := make([][]float64, 0, 2*len(chains))
	for _, ch := range chains {
		if len(ch) != n {
			return math.NaN()
		}
		halves = append(halves, ch[:h], ch[n-h:])
	}
	means := make([]float64, len(halves))
	var w float64
	for j, x := range halves {
		means[j] = mean(x)
		w += variance(x)
	}
	w /= float64(len(halves))
	if !(w > 0) {
		return math.NaN()
	}
	varPlus := w*float64(h-1)/float64(h) + variance(means)
	return math.Sqrt(varPlus / w)
}

// Coordinate returns coordinate i of draws stored row-major with d
// coordinates per draw, as a new slice.
func Coordinate(draws []float64, d, i int) []float64 {
	out := make([]float64, len(draws)/d)
	for r := range out {
		out[r] = draws[r*d+i]
	}
	return out
}

// PerCoordinate applies a diagnostic (ESS or SplitRhat) to each of the d
// coordinates of chains of draws (chains[c] row-major, d per draw).
func PerCoordinate(chains [][]float64, d int, diag func([][]float64) float64) []float64 {
	out := make([]float64, d)
	cs := make([][]float64, len(chains))
	for i := range out {
		for c, ch := range chains {
			cs[c] = Coordinate(ch, d, i)
		}
		out[i] = diag(cs)
	}
	return out
}

// ErrThin is returned by ThinToESS when no thinning up to its bound makes
// the draws effectively independent.
var ErrThin = errors.New("no thinning reaches the required effective sample size")

// ThinToESS draws n states of c (after its warm-up) into out (n×d)
// thinned by the smallest factor k of 1, 2, 4, …, maxThin for which the
// effective sample size of every coordinate of the n thinned draws is at
// least n/2; each try continues the chain. It returns k and the
// per-coordinate ESS of the draws kept. It fails with ErrThin (keeping the
// last try in out) when even maxThin does not reach n/2.
func ThinToESS(c *Chain, n, maxThin int, out []float64) (int, []float64, error) {
	if n < 4 {
		return 0, nil, fmt.Errorf("%w: %d draws are too few to estimate their effective sample size (at least 4)", ErrSettings, n)
	}
	for k := 1; ; k *= 2 {
		if err := c.Sample(n, k, out); err != nil {
			return k, nil, err
		}
		ess := PerCoordinate([][]float64{out[:n*c.d]}, c.d, ESS)
		lowest := math.Inf(1)
		for _, e := range ess {
			lowest = min(lowest, e)
		}
		if lowest >= float64(n)/2 {
			return k, ess, nil
		}
		if 2*k > maxThin {
			return k, ess, fmt.Errorf("%w: %d draws thinned by %d have ESS %.1f < %d/2", ErrThin, n, k, lowest, n)
		}
	}
}
