package expfam

import (
	"fmt"
	"math"
	"strings"
)

// Weight is the weight h of generalised score matching on one coordinate
// (Hyvärinen 2007; Yu, Drton & Shojaie 2019; Liu, Kanamori & Williams
// 2019): a function h(x) >= 0, absolutely continuous, that vanishes at the
// finite ends of the coordinate's support and at the kinks of its
// statistic, so that the boundary terms of the integration by parts and the
// δ terms of ψ” drop out of the score-matching objective (see package
// estimator). h(x) p(x) ψ'(x) must tend to 0 at the ends of the support.
type Weight interface {
	// String names the weight and its parameters (reported by smrl
	// estimate).
	String() string
	// At returns h(x) and h'(x) (h' = 0 at a point where h is not
	// differentiable, a null set).
	At(x float64) (h, dh float64)
}

// Supported is a Coord whose density lives on an interval (Lo, Hi) other
// than the real line; an infinite end is ±Inf. Data outside the open
// interval have density 0 and are invalid input to the estimators.
type Supported interface {
	Support() (lo, hi float64)
}

// Weighted is a Coord with a default score-matching weight: the one smrl
// uses unless the config says otherwise (DefaultWeight of package expfam).
type Weighted interface {
	DefaultWeight() Weight
}

// DefaultWeight returns c's default score-matching weight: its own
// (Weighted), else nil, which stands for h ≡ 1 (plain score matching).
func DefaultWeight(c Coord) Weight {
	if w, ok := c.(Weighted); ok {
		return w.DefaultWeight()
	}
	return nil
}

// DefaultWeights returns the default weight of every coordinate of a
// product of Coords (DefaultWeight: vanishing at the kinks of ψ and at the
// ends of the support), or nil for plain score matching when no coordinate
// has one or fam is not such a product.
func DefaultWeights(fam Family) []Weight {
	cs, ok := fam.(*Coords)
	if !ok {
		return nil
	}
	w := make([]Weight, len(cs.C))
	set := false
	for i, c := range cs.C {
		w[i] = DefaultWeight(c)
		set = set || w[i] != nil
	}
	if !set {
		return nil
	}
	return w
}

// SupportOf returns the support of c, (−Inf, +Inf) unless c is Supported.
func SupportOf(c Coord) (lo, hi float64) {
	if s, ok := c.(Supported); ok {
		return s.Support()
	}
	return math.Inf(-1), math.Inf(1)
}

// DistWeight is h(x) = min(d(x)/C, 1)^P, where d(x) is the distance from x
// to the nearest of the points Points (the kinks of ψ) and the finite ends
// of (Lo, Hi): 0 there, rising like (d/C)^P, and 1 from distance C on. Its
// derivative is h'(x) = (P/C) min(d/C, 1)^{P−1} d'(x) for d < C (d' = ±1)
// and 0 beyond. P >= 1 and C > 0.
//
// P = 1 is the capped distance of genscore and Liu et al. for a statistic
// with bounded ψ' (the exponential and truncated-Gaussian families, the
// ReLU kink); P = 2 keeps h ψ'ψ'ᵀ and h ψ” bounded where ψ' grows like 1/d
// at the boundary (the log statistics of the beta and gamma families,
// ψ = log x), as Hyvärinen's h(x) = x² for non-negative data does.
type DistWeight struct {
	Points []float64
	Lo, Hi float64
	C, P   float64
}

// NewDistWeight returns the weight min(d(x)/c, 1)^p for the kinks points and
// the support (lo, hi); it fails for c <= 0, p < 1 or non-finite entries.
func NewDistWeight(points []float64, lo, hi, c, p float64) (*DistWeight, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, fmt.Errorf("score-matching weight: the cap C must be a finite number > 0, got %v", c)
	}
	if !(p >= 1) || math.IsInf(p, 0) {
		return nil, fmt.Errorf("score-matching weight: the power P must be a finite number >= 1, got %v", p)
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || !(lo < hi) {
		return nil, fmt.Errorf("score-matching weight: the support (%v, %v) is empty", lo, hi)
	}
	for _, x := range points {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("score-matching weight: kink %v is not finite", x)
		}
	}
	return &DistWeight{Points: append([]float64(nil), points...), Lo: lo, Hi: hi, C: c, P: p}, nil
}

// minus writes x − c with c's sign folded into the operator: x − 1, x + 1,
// and x for c = 0.
func minus(c float64) string {
	switch {
	case c == 0:
		return "x"
	case c < 0:
		return fmt.Sprintf("x + %g", -c)
	default:
		return fmt.Sprintf("x − %g", c)
	}
}

func (w *DistWeight) String() string {
	var d []string
	for _, x := range w.Points {
		d = append(d, "|"+minus(x)+"|")
	}
	if !math.IsInf(w.Lo, -1) {
		d = append(d, minus(w.Lo))
	}
	if !math.IsInf(w.Hi, 1) {
		d = append(d, fmt.Sprintf("%g − x", w.Hi))
	}
	dist := strings.Join(d, ", ")
	switch {
	case len(d) > 1:
		dist = "min(" + dist + ")"
	case strings.Contains(dist, " ") && !strings.HasPrefix(dist, "|"):
		dist = "(" + dist + ")"
	}
	if w.P == 1 {
		return fmt.Sprintf("h(x) = min(%s/%g, 1)", dist, w.C)
	}
	return fmt.Sprintf("h(x) = min(%s/%g, 1)^%g", dist, w.C, w.P)
}

// At returns h(x) and h'(x); outside the support both are 0.
func (w *DistWeight) At(x float64) (h, dh float64) {
	if !(x > w.Lo && x < w.Hi) {
		return 0, 0
	}
	d, sign := w.C, 0.0 // distances from C on leave h = 1
	for _, p := range w.Points {
		if a := math.Abs(x - p); a < d {
			d = a
			switch {
			case x > p:
				sign = 1
			case x < p:
				sign = -1
			default:
				sign = 0
			}
		}
	}
	if a := x - w.Lo; a < d {
		d, sign = a, 1
	}
	if a := w.Hi - x; a < d {
		d, sign = a, -1
	}
	if d >= w.C {
		return 1, 0
	}
	if d == 0 {
		return 0, 0
	}
	u := d / w.C
	switch w.P {
	case 1:
		return u, sign / w.C
	case 2:
		return u * u, 2 * u * sign / w.C
	}
	h = math.Pow(u, w.P)
	return h, w.P * h / u * sign / w.C
}

// InSupport reports whether x lies in the support of d: inside (lo, hi)
// for every Supported coordinate of a Coords product, always otherwise.
func InSupport(d Distribution, x []float64) bool {
	cs, ok := d.(*Coords)
	if !ok {
		return true
	}
	for i, c := range cs.C {
		if s, ok := c.(Supported); ok {
			if lo, hi := s.Support(); !(x[i] > lo && x[i] < hi) {
				return false
			}
		}
	}
	return true
}
