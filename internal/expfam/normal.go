package expfam

import (
	"math"
	"math/rand/v2"
)

// The standard normal truncated to [a, ∞), in a form that stays accurate
// however far a lies in the tail. Everything is expressed through the Mills
// ratio
//
//	R(a) = Φ(−a)/φ(a) = √(2π) e^{a²/2} Φ(−a),
//
// which is the mass of the piece exp(−y²/2 − a y) on y ≥ 0:
// ∫_0^∞ e^{−y²/2 − a y} dy = R(a). For a ≥ millsCFMin R is the continued
// fraction R(a) = 1/(a + 1/(a + 2/(a + 3/(a + …)))), whose tails also give
// the truncated moments without cancellation:
//
//	t(a) = E[Z | Z ≥ a] − a = 1/R(a) − a = 1/(a + 2/(a + 3/(a + …)))
//	v(a) = Var[Z | Z ≥ a]    = 1 − (a + t) t = t (u − t),  u = 2/(a + 3/(a + …)).
//
// Below millsCFMin the same quantities come from math.Erfc directly.

// millsCFMin is where the continued fraction takes over from erfc. Below it
// the erfc-based t and v lose digits to cancellation as a grows: against a
// 60-digit mpmath evaluation, v is off by 8e-14 (relative) just below 3
// (and would be by 3e-12 at 4.9); from millsCFMin on the fraction is within
// 3e-16, and log R and t are within 6e-15 everywhere.
const millsCFMin = 3

// millsCFTerms is the depth of the backward continued-fraction evaluation at
// a ≥ millsCFMin: 12 + 900/a² terms, which measured against 2000 terms
// reaches full double precision with a margin (needed: 64 at a = 3, 32 at
// a = 5, 16 at a = 10, 12 at a = 20; here 112, 48, 21 and 14).
func millsCFTerms(a float64) int { return 12 + int(900/(a*a)) }

// millsCF evaluates the continued fraction at a ≥ millsCFMin backwards and
// returns f1 = 1/R(a), f2 and f3, where f_k = a + k/f_{k+1}, so that
// t = 1/f2 and u = 2/f3.
func millsCF(a float64) (f1, f2, f3 float64) {
	f := a
	for k := millsCFTerms(a); k >= 4; k-- {
		f = a + float64(k)/f
	}
	f3 = a + 3/f
	f2 = a + 2/f3
	f1 = a + 1/f2
	return f1, f2, f3
}

// mills is the Mills ratio at one point a, evaluated once for all the
// quantities derived from it (log R, R, t and v): the continued fraction
// when a ≥ millsCFMin, else erfc(a/√2), or erfc(−a/√2) when a < 0 (log R
// and R need that one, accurate where erfc(a/√2) is near 2; t and v need
// erfc(a/√2) and evaluate it themselves).
type mills struct {
	a          float64
	f1, f2, f3 float64 // the continued fraction, for a ≥ millsCFMin
	ec         float64 // erfc(|a|/√2), for a < millsCFMin
}

// set evaluates the Mills ratio at a. (It fills m in place: returning a
// mills by value costs more than an erfc, in copies that defeat the
// processor's store-to-load forwarding.)
func (m *mills) set(a float64) {
	m.a = a
	switch {
	case a >= millsCFMin:
		m.f1, m.f2, m.f3 = millsCF(a)
	case a >= 0:
		m.ec = math.Erfc(a / math.Sqrt2)
	default:
		m.ec = math.Erfc(-a / math.Sqrt2)
	}
}

// logR returns log R(a), for any finite a.
func (m *mills) logR() float64 {
	a := m.a
	switch {
	case a >= millsCFMin:
		return -math.Log(m.f1)
	case a >= 0:
		return 0.5*math.Log(2*math.Pi) + 0.5*a*a + math.Log(0.5*m.ec)
	}
	// a < 0: Φ(−a) = 1 − Φ(a) ∈ [1/2, 1).
	return 0.5*math.Log(2*math.Pi) + 0.5*a*a + math.Log1p(-0.5*m.ec)
}

// millsDirectMin is the smallest a for which ratio evaluates R(a) without
// logarithms: e^{a²/2} stays finite down to a ≈ −37.6.
const millsDirectMin = -30

// ratio returns R(a) for a ≥ millsDirectMin, without the logarithms of
// logR (the sampler's hot path).
func (m *mills) ratio() float64 {
	a := m.a
	switch {
	case a >= millsCFMin:
		return 1 / m.f1
	case a >= 0:
		return math.Sqrt(math.Pi/2) * math.Exp(0.5*a*a) * m.ec
	}
	return math.Sqrt(2*math.Pi) * math.Exp(0.5*a*a) * (1 - 0.5*m.ec)
}

// moments returns t = E[Z | Z ≥ a] − a and v = Var[Z | Z ≥ a] for a
// standard normal Z, for any finite a.
func (m *mills) moments() (t, v float64) {
	a := m.a
	if a >= millsCFMin {
		t = 1 / m.f2
		return t, t * (2/m.f3 - t)
	}
	ec := m.ec
	if !(a >= 0) {
		ec = math.Erfc(a / math.Sqrt2)
	}
	// λ = 1/R(a) = φ(a)/Φ(−a), the hazard; for a < 0 it is small.
	lambda := math.Exp(-0.5*a*a) / (math.Sqrt(2*math.Pi) * 0.5 * ec)
	t = lambda - a
	return t, 1 - lambda*t
}

// logMills returns log R(a) for any finite a.
func logMills(a float64) float64 {
	var m mills
	m.set(a)
	return m.logR()
}

// millsRatio returns R(a) for a ≥ millsDirectMin.
func millsRatio(a float64) float64 {
	var m mills
	m.set(a)
	return m.ratio()
}

// truncMoments returns t = E[Z | Z ≥ a] − a and v = Var[Z | Z ≥ a] for a
// standard normal Z, for any finite a.
func truncMoments(a float64) (t, v float64) {
	var m mills
	m.set(a)
	return m.moments()
}

// truncExcess draws Y − a for Y ~ N(0, 1) conditioned on Y ≥ a, exactly: by
// rejection from N(0, 1) when a ≤ 0.4 (acceptance Φ(−a) ≥ 0.34), otherwise
// by Robert's (1995) exponential proposal with the optimal rate
// λ = (a + √(a² + 4))/2 (acceptance ≥ 0.76, → 1 as a grows). Returning the
// excess Y − a keeps full relative precision when a is large. For a NaN or
// +∞ a there is no such distribution, and it returns NaN.
func truncExcess(a float64, rng *rand.Rand) float64 {
	if a <= 0.4 {
		for {
			if z := rng.NormFloat64(); z >= a {
				return z - a
			}
		}
	}
	if !(a < math.Inf(1)) {
		return math.NaN()
	}
	lambda := 0.5 * (a + math.Sqrt(a*a+4))
	if a > 1e150 {
		// a² would overflow (from a ≈ 1.34e154) and make λ infinite, so that
		// nothing is ever accepted; √(a² + 4) = a to double precision long
		// before that (from a ≈ 1e8).
		lambda = a
	}
	for {
		e := rng.ExpFloat64() / lambda // Y − a
		d := e + a - lambda
		if rng.Float64() <= math.Exp(-0.5*d*d) {
			return e
		}
	}
}

// logAddExp returns log(e^x + e^y) without overflow.
func logAddExp(x, y float64) float64 {
	if x < y {
		x, y = y, x
	}
	if math.IsInf(x, -1) {
		return x
	}
	return x + math.Log1p(math.Exp(y-x))
}
