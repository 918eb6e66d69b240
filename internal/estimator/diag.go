package estimator

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Conditioning describes how well a fit's data determine Ŵ: the spectrum
// of the regularised normal matrix V + λI the estimate solves with (the
// observed information, the negative Hessian of the log-likelihood at Ŵ,
// for MLE).
type Conditioning struct {
	// Cond is the 2-norm condition number λ_max/λ_min of V + λI. V + λI is
	// block diagonal, so its eigenvalues are those of its blocks, and the
	// extremes are taken over all of them. Row scales (the LDS fit's
	// 1/σ²) are not applied: it is the spectrum of V + λI, not of P.
	Cond float64
	// MinEig is the smallest eigenvalue of V itself (without λ):
	// λ_min(V + λI) − λ. Rounding can leave it slightly below zero when V
	// is singular.
	MinEig float64
}

// epsilon is the float64 machine epsilon, 2⁻⁵².
const epsilon = 0x1p-52

// Conditioning returns the spectrum summary of f's V + λI, computed from
// each distinct factorisation V_b + λI = UᵀU (rebuilt as UᵀU, then its
// eigenvalues by gonum's EigenSym, without eigenvectors): O(b³) per
// distinct block, the cost of one more factorisation or so. Eigenvalues
// of a matrix of condition κ carry an absolute error of about
// ε·λ_max, so a Cond above ~1e15 only says "numerically singular"; Cond
// is capped at 1/ε ≈ 4.5e15. ok is
// false when an eigen decomposition fails.
func (f *Fit) Conditioning() (c Conditioning, ok bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	seen := map[*factorised]bool{}
	var sym mat.SymDense
	var eig mat.EigenSym
	for _, b := range f.blocks {
		if seen[b.f] {
			continue
		}
		seen[b.f] = true
		sym.Reset()
		b.f.c.ToSym(&sym)
		if !eig.Factorize(&sym, false) {
			return Conditioning{}, false
		}
		v := eig.Values(nil) // ascending
		lo, hi = math.Min(lo, v[0]), math.Max(hi, v[len(v)-1])
	}
	if len(seen) == 0 {
		return Conditioning{}, false
	}
	// A computed λ_min of a numerically singular matrix can be ≤ 0: cap
	// the condition number at 1/ε, where it means "singular".
	lo = math.Max(lo, hi*epsilon)
	return Conditioning{Cond: hi / lo, MinEig: lo - f.Lambda}, true
}
