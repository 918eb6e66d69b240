package expfam

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/smrl-dev/smrl/internal/vmath"
)

// ErrNotNormalisable is returned when ∫ q(x) exp(η ψ(x)) dx does not appear
// to be finite: the log-density is still within 40 nats of its maximum at
// |x| = 1024.
var ErrNotNormalisable = errors.New("density is not normalisable")

// logTail is how far below its maximum the log-density must fall for a point
// to count as outside the support: e^{-40} ≈ 4e-18 relative to the mode.
const logTail = 40

// skipLog is how far below lmax the log-density must be at both edges of a
// panel for NewCDF to skip the panel's nodes. math.Exp is exactly 0 below
// −745.14, and within a panel the log-density can rise above the larger of
// its edge values by at most curv·width²/8 ≤ 1/32 nats (panels are at most
// 0.5/√curv wide; log q is concave or C¹ at its kink): a margin of 255
// nats. So every skipped node would add exactly +0 (w·ψ may be −0, and
// s + (−0) = s for s ≠ 0, +0 + (−0) = +0), and the CDF is bit-identical to
// evaluating every node (TestCDFSkipBitIdentical).
const skipLog = -1000

// quadSkip enables the skip and densSlope's shortcut; tests turn both off
// for the reference.
var quadSkip = true

// 5-point Gauss–Legendre nodes and weights on [−1, 1].
var (
	glNodes   = [5]float64{-0.9061798459386640, -0.5384693101056831, 0, 0.5384693101056831, 0.9061798459386640}
	glWeights = [5]float64{0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665, 0.2369268850561891}
)

// CDF is the distribution of one scalar family at one natural parameter η,
// computed by composite 5-point Gauss–Legendre quadrature in log space.
//
// The support [lo, hi] is where log q(x) + η ψ(x) lies within 40 nats of its
// maximum; panels are at most 0.05 wide and at most half the width of the
// sharpest peak (estimated from the curvature of the log-density), and begin
// at the kink of q. Between panel edges the CDF is the cubic Hermite
// quintic Hermite interpolant of the exact edge values, densities and
// density derivatives (one-sided at the kink), so its error is O(h⁶) and it
// is continuous and exact at every edge.
type CDF struct {
	Eta            float64
	LogZ           float64 // log ∫ q(x) exp(η ψ(x)) dx, q as given by LogQ
	Mean, Variance float64 // of ψ(X)
	MeanX          float64 // E[X]
	CovXPsi        float64 // Cov(X, ψ(X)) = dE[X]/dη
	edges          []float64
	cdf            []float64 // normalised CDF at edges; cdf[0] = 0, cdf[last] = 1
	dens           []float64 // normalised density at edges
	dl, dr         []float64 // density derivative at each panel's left and right end
}

// NewCDF integrates f at η. It fails with ErrNotNormalisable when the density
// does not decay, and when η is not finite.
func NewCDF(f Scalar, eta float64) (*CDF, error) {
	if math.IsNaN(eta) || math.IsInf(eta, 0) {
		return nil, fmt.Errorf("%v at η = %v: %w", f, eta, ErrNotNormalisable)
	}
	lo, hi, lmax, curv, err := support(f, eta)
	if err != nil {
		return nil, err
	}
	width := 0.05
	if w := 0.5 / math.Sqrt(curv); w < width {
		width = w
	}
	edges, err := panelEdges(f, lo, hi, width)
	if err != nil {
		return nil, fmt.Errorf("%v at η = %g: %w", f, eta, err)
	}
	m := len(edges) - 1
	c := &CDF{Eta: eta, edges: edges, cdf: make([]float64, m+1), dens: make([]float64, m+1),
		dl: make([]float64, m), dr: make([]float64, m)}
	// The log-density at the edges, relative to lmax: first, so that the
	// quadrature can skip the panels where it is far below exp's underflow.
	// Where log q <= 0 (logQNonPositive), the computed log q + η ψ − lmax is
	// at most η ψ − lmax (rounding is monotone), so an edge where that is
	// below skipLog needs no log q: its stand-in value is below skipLog too,
	// and its exp, like the true one's, is exactly 0.
	nonPos := false
	if n, ok := f.(logQNonPositive); ok && quadSkip {
		nonPos = n.logQNonPositive()
	}
	le := make([]float64, m+1)
	for p := range edges {
		x := edges[p]
		psi := f.Psi(x)
		if u := eta*psi - lmax; nonPos && u < skipLog {
			le[p] = u
			continue
		}
		le[p] = f.LogQ(x) + eta*psi - lmax
	}
	q := c.integrate(f, eta, lmax, le, nonPos)
	total := q.total
	vmath.Exps(c.dens, le) // math.Exp(le[p]), to the bit
	for p := range edges {
		c.dens[p] /= total
		c.cdf[p] /= total
	}
	c.cdf[m] = 1
	// p'(x) = p(x)·(d log q(x) + η ψ'(x)), one-sided inside each panel so the
	// kink of q is handled.
	bq, _ := f.(dLogQBounder)
	if !quadSkip {
		bq = nil
	}
	for p := 0; p < m; p++ {
		a, b := edges[p], edges[p+1]
		eps := 1e-9 * (b - a)
		c.dl[p] = densSlope(f, bq, c.dens[p], a+eps, eta*f.DPsi(a))
		c.dr[p] = densSlope(f, bq, c.dens[p+1], b-eps, eta*f.DPsi(b))
	}
	c.LogZ = lmax + math.Log(total)
	c.Mean = q.s1 / total
	c.Variance = math.Max(q.s2/total-c.Mean*c.Mean, 0)
	c.MeanX = q.sx / total
	c.CovXPsi = q.sxpsi/total - c.MeanX*c.Mean
	return c, nil
}

// quadPanels is how many panels' Gauss–Legendre nodes integrate
// exponentiates in one vmath.Exps call (on the stack: 40 nodes).
const quadPanels = 8

// quadSums are the composite rule's sums over every node x with weight
// w = w_k·h·exp(log q(x) + η ψ(x) − lmax): Σ w, Σ w ψ, Σ w ψ², Σ w x, Σ w x ψ.
type quadSums struct{ total, s1, s2, sx, sxpsi float64 }

// integrate runs the composite 5-point Gauss–Legendre rule over c's panels
// and writes the unnormalised CDF at each edge (c.cdf[p+1] = the mass of
// panels 0..p). le holds the log-density at the edges relative to lmax.
//
// The rule is evaluated a chunk of quadPanels panels at a time: first each
// node's exponent, exactly as the one-node expression computes it, then
// their exps by vmath.Exps (math.Exp's bits), then the sums, node by node
// in the order of the panels and nodes. So every sum is bit-identical to
// evaluating math.Exp node by node (TestIntegrateIsScalar). A panel whose
// edges both lie below skipLog, and a node whose η ψ − lmax does when
// log q ≤ 0, add nothing (see skipLog: their terms would be exactly +0).
func (c *CDF) integrate(f Scalar, eta, lmax float64, le []float64, nonPos bool) (q quadSums) {
	var arg, xs, ps [quadPanels * 5]float64
	var keep [quadPanels * 5]bool
	var skip [quadPanels]bool
	m := len(c.edges) - 1
	for p0 := 0; p0 < m; p0 += quadPanels {
		p1 := min(p0+quadPanels, m)
		n := 0 // nodes of the chunk that are evaluated: a prefix of arg
		for p := p0; p < p1; p++ {
			j := (p - p0) * 5
			skip[p-p0] = quadSkip && le[p] < skipLog && le[p+1] < skipLog
			if skip[p-p0] {
				clear(keep[j : j+5])
				continue
			}
			a, b := c.edges[p], c.edges[p+1]
			mid, half := 0.5*(a+b), 0.5*(b-a)
			for k, t := range glNodes {
				x := mid + half*t
				psi := f.Psi(x)
				xs[j+k], ps[j+k] = x, psi
				keep[j+k] = !(nonPos && eta*psi-lmax < skipLog)
			}
			n = j + 5
		}
		c.nodeArgs(f, eta, lmax, xs[:n], ps[:n], keep[:n], arg[:n])
		vmath.Exps(arg[:n], arg[:n])
		for p := p0; p < p1; p++ {
			if skip[p-p0] {
				// Every node's exp underflows to exactly 0 (see skipLog), so
				// skipping the panel adds the same +0 to every sum.
				c.cdf[p+1] = q.total
				continue
			}
			j := (p - p0) * 5
			half := 0.5 * (c.edges[p+1] - c.edges[p])
			var mass float64
			for k := range glNodes {
				if !keep[j+k] {
					continue // its exp is exactly 0, as at the edges
				}
				x, psi := xs[j+k], ps[j+k]
				w := glWeights[k] * half * arg[j+k]
				mass += w
				q.s1 += w * psi
				q.s2 += w * psi * psi
				q.sx += w * x
				q.sxpsi += w * x * psi
			}
			q.total += mass
			c.cdf[p+1] = q.total
		}
	}
	return q
}

// nodeArgs writes arg[i] = log q(x_i) + η ψ_i − lmax for the nodes kept,
// and 0 for the others (whose exps are computed and not used). log q is
// evaluated over the whole chunk where f is a logQBatcher (the values at
// the nodes not kept are not used), else at the kept nodes only.
func (c *CDF) nodeArgs(f Scalar, eta, lmax float64, xs, ps []float64, keep []bool, arg []float64) {
	if b, ok := f.(logQBatcher); ok {
		b.logQs(xs, arg)
		for i, k := range keep {
			if !k {
				arg[i] = 0
				continue
			}
			arg[i] = arg[i] + eta*ps[i] - lmax
		}
		return
	}
	for i, k := range keep {
		if !k {
			arg[i] = 0
			continue
		}
		arg[i] = f.LogQ(xs[i]) + eta*ps[i] - lmax
	}
}

// dLogQBounder is a Scalar that bounds |(log q)'(x)| cheaply.
type dLogQBounder interface {
	// dLogQBound returns B(x) >= |DLogQ(x)|, as computed.
	dLogQBound(x float64) float64
}

// logQNonPositive is a Scalar whose LogQ(x) is <= 0 for every x, as computed.
type logQNonPositive interface{ logQNonPositive() bool }

// densSlope returns dens·(DLogQ(x) + y), the density's derivative. When
// dens is exactly 0 and |y| > 2·B(x), the sum has y's sign whatever DLogQ(x)
// is (round to nearest cannot flip the sign of a sum whose larger term
// dominates), so the product is ±0 with that sign, bit for bit what the
// full expression gives, without evaluating DLogQ (an exp and a log).
func densSlope(f Scalar, bq dLogQBounder, dens, x, y float64) float64 {
	if dens == 0 && bq != nil && math.Abs(y) > 2*bq.dLogQBound(x) {
		return dens * y
	}
	return dens * (f.DLogQ(x) + y)
}

// Support returns the interval outside which the density is negligible.
func (c *CDF) Support() (lo, hi float64) { return c.edges[0], c.edges[len(c.edges)-1] }

// At returns the CDF at x.
func (c *CDF) At(x float64) float64 {
	n := len(c.edges)
	if x <= c.edges[0] {
		return 0
	}
	if x >= c.edges[n-1] {
		return 1
	}
	p := sort.SearchFloat64s(c.edges, x) - 1
	if p < 0 {
		p = 0
	}
	h := c.edges[p+1] - c.edges[p]
	t := (x - c.edges[p]) / h
	v, _ := c.hermite(p, h, t)
	return v
}

// hermite evaluates the panel-p quintic Hermite interpolant of the CDF at
// t ∈ [0, 1] and its t-derivative.
func (c *CDF) hermite(p int, h, t float64) (val, deriv float64) {
	f0, f1 := c.cdf[p], c.cdf[p+1]
	d0, d1 := h*c.dens[p], h*c.dens[p+1]
	e0, e1 := h*h*c.dl[p], h*h*c.dr[p]
	t2 := t * t
	t3 := t2 * t
	t4 := t3 * t
	t5 := t4 * t
	val = f0*(1-10*t3+15*t4-6*t5) + d0*(t-6*t3+8*t4-3*t5) + e0*(0.5*t2-1.5*t3+1.5*t4-0.5*t5) +
		f1*(10*t3-15*t4+6*t5) + d1*(-4*t3+7*t4-3*t5) + e1*(0.5*t3-t4+0.5*t5)
	deriv = (f1-f0)*(30*t2-60*t3+30*t4) + d0*(1-18*t2+32*t3-15*t4) + e0*(t-4.5*t2+6*t3-2.5*t4) +
		d1*(-12*t2+28*t3-15*t4) + e1*(1.5*t2-4*t3+2.5*t4)
	return val, deriv
}

// Quantile returns x with CDF(x) = u for u in [0, 1], by safeguarded Newton
// iteration on the panel's Hermite interpolant (to 1e-14 in u).
func (c *CDF) Quantile(u float64) float64 {
	n := len(c.edges)
	if u <= 0 {
		return c.edges[0]
	}
	if u >= 1 {
		return c.edges[n-1]
	}
	p := sort.SearchFloat64s(c.cdf, u) - 1
	if p < 0 {
		p = 0
	}
	if p > n-2 {
		p = n - 2
	}
	return c.invertPanel(p, u)
}

func (c *CDF) invertPanel(p int, u float64) float64 {
	x0, h := c.edges[p], c.edges[p+1]-c.edges[p]
	f0, f1 := c.cdf[p], c.cdf[p+1]
	if f1 <= f0 {
		return x0 + 0.5*h
	}
	lo, hi := 0.0, 1.0
	t := (u - f0) / (f1 - f0)
	for it := 0; it < 50; it++ {
		v, d := c.hermite(p, h, t)
		r := v - u
		if math.Abs(r) < 1e-14 {
			break
		}
		if r > 0 {
			hi = t
		} else {
			lo = t
		}
		next := t - r/d
		if d <= 0 || !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		if hi-lo < 1e-15 {
			break
		}
		t = next
	}
	return x0 + t*h
}

// supported is a Scalar whose density vanishes outside [lo, hi] (LogQ is
// −Inf there); lo or hi may be infinite.
type supported interface{ Support() (lo, hi float64) }

// support finds [lo, hi] where log q(x) + η ψ(x) is within logTail of its
// maximum lmax, scanning on a grid of step 0.04 over [−R, R] and doubling R
// until the outer quarter of the scan is below the threshold. curv is the
// largest curvature |l”| seen inside the support (at least 1). For a
// supported family the interval is clipped to the support, and a bounded
// support is scanned end to end on a grid of at least 256 steps.
func support(f Scalar, eta float64) (lo, hi, lmax, curv float64, err error) {
	slo, shi := math.Inf(-1), math.Inf(1)
	if s, ok := f.(supported); ok {
		slo, shi = s.Support()
	}
	// The scan's points and their log-densities, reused by tighten (which
	// used to evaluate each point's log-density a second time): one buffer
	// for both, of the first scan's size, grown when a wider scan needs it.
	var buf, xs, ls []float64
	scan := func(n int, at func(int) float64) {
		if cap(buf) < 2*(n+1) {
			buf = make([]float64, 2*(n+1))
		}
		xs, ls = buf[:n+1], buf[n+1:2*(n+1)]
		for i := range xs {
			xs[i] = at(i)
		}
		logDensities(f, eta, xs, ls)
	}
	if !math.IsInf(slo, 0) && !math.IsInf(shi, 0) {
		step := math.Min(0.04, (shi-slo)/256)
		n := int(math.Ceil((shi - slo) / step))
		scan(n, func(i int) float64 { return math.Min(slo+float64(i)*step, shi) })
		lmax = math.Inf(-1)
		for _, l := range ls {
			lmax = math.Max(lmax, l)
		}
		if math.IsNaN(lmax) || math.IsInf(lmax, 0) {
			return 0, 0, 0, 0, fmt.Errorf("%v at η = %g: %w (log-density %v on its support)", f, eta, ErrNotNormalisable, lmax)
		}
		lo, hi, curv = tighten(xs, ls, step, lmax)
		if !(lo <= hi) {
			return 0, 0, 0, 0, tooLarge(f, eta, lmax)
		}
		return math.Max(lo, slo), math.Min(hi, shi), lmax, curv, nil
	}
	const step = 0.04
	for r := 8.0; r <= 1024; r *= 2 {
		n := int(math.Round(2 * r / step))
		scan(n, func(i int) float64 { return -r + float64(i)*step })
		lmax = math.Inf(-1)
		outer := math.Inf(-1)
		for i, l := range ls {
			if l > lmax {
				lmax = l
			}
			if math.Abs(xs[i]) >= 0.75*r && l > outer {
				outer = l
			}
		}
		if math.IsNaN(lmax) || math.IsInf(lmax, 0) {
			break
		}
		if outer > lmax-logTail {
			continue
		}
		lo, hi, curv = tighten(xs, ls, step, lmax)
		if !(lo <= hi) {
			return 0, 0, 0, 0, tooLarge(f, eta, lmax)
		}
		return math.Max(lo, slo), math.Min(hi, shi), lmax, curv, nil
	}
	return 0, 0, 0, 0, fmt.Errorf("%v at η = %g: %w (log-density does not decay within |x| <= 1024)", f, eta, ErrNotNormalisable)
}

// logQBatcher is a Scalar that evaluates log q over a slice faster than
// point by point, each element to the bit of its LogQ.
type logQBatcher interface{ logQs(x, dst []float64) }

// logDensities writes dst[i] = f.LogQ(x[i]) + η f.Psi(x[i]), to the bit,
// with log q over the whole slice where f is a logQBatcher.
func logDensities(f Scalar, eta float64, x, dst []float64) {
	if b, ok := f.(logQBatcher); ok {
		b.logQs(x, dst)
		for i, v := range x {
			dst[i] += eta * f.Psi(v)
		}
		return
	}
	for i, v := range x {
		dst[i] = f.LogQ(v) + eta*f.Psi(v)
	}
}

// tooLarge is the error of a log-density whose maximum lmax is so large
// that lmax − logTail rounds to lmax: no grid point then lies within
// logTail of it, and the quadrature cannot resolve the density.
func tooLarge(f Scalar, eta, lmax float64) error {
	return fmt.Errorf("%v at η = %g: %w (the log-density reaches %g, too large to normalise in float64)", f, eta, ErrNotNormalisable, lmax)
}

// tighten returns the first and last of the grid points xs (step apart)
// whose log-density ls is within logTail of lmax, widened by a step, and
// the largest curvature there (at least 1).
func tighten(xs, ls []float64, step, lmax float64) (lo, hi, curv float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	curv = 1
	prev2, prev1 := math.NaN(), math.NaN()
	for i, x := range xs {
		l := ls[i]
		if l > lmax-logTail {
			if x < lo {
				lo = x
			}
			hi = x
			if !math.IsNaN(prev2) && !math.IsInf(prev2, 0) && !math.IsInf(prev1, 0) {
				if c := math.Abs(l-2*prev1+prev2) / (step * step); c > curv {
					curv = c
				}
			}
		}
		prev2, prev1 = prev1, l
	}
	return lo - step, hi + step, curv
}

// MaxPanels bounds the quadrature panels of one CDF: 2^20 panels take
// about a second and 40 MB. A density that needs more (a very sharp base
// measure, or a huge natural parameter) is refused with ErrUnresolved
// rather than allocated.
const MaxPanels = 1 << 20

// ErrUnresolved is returned when a density is too sharp for the quadrature:
// resolving it would take more than MaxPanels panels.
var ErrUnresolved = errors.New("density too sharp for the quadrature")

// panelEdges splits [lo, hi] into panels no wider than width, with an edge at
// the family's kink when it lies inside. It refuses (ErrUnresolved) to make
// more than MaxPanels panels, before allocating them.
func panelEdges(f Scalar, lo, hi, width float64) ([]float64, error) {
	if n := (hi - lo) / width; !(n > 0 && n <= MaxPanels) {
		return nil, fmt.Errorf("%w: panels of width %.3g over [%.4g, %.4g] would number %.3g, more than %d", ErrUnresolved, width, lo, hi, n, MaxPanels)
	}
	split := func(a, b float64, out []float64) []float64 {
		m := int(math.Ceil((b - a) / width))
		if m < 1 {
			m = 1
		}
		h := (b - a) / float64(m)
		for i := 1; i <= m; i++ {
			out = append(out, a+float64(i)*h)
		}
		out[len(out)-1] = b
		return out
	}
	edges := make([]float64, 1, int((hi-lo)/width)+4)
	edges[0] = lo
	k, ok := f.Kink()
	if !ok || k-width <= lo || k+width >= hi {
		return split(lo, hi, edges), nil
	}
	// |x|^α is only C¹ at the kink: grade the panels geometrically towards
	// it (width/4^j) so Gauss–Legendre keeps its accuracy there.
	grade := []float64{1.0 / 256, 1.0 / 64, 1.0 / 16, 1.0 / 4}
	edges = split(lo, k-width, edges)
	for j := len(grade) - 1; j >= 0; j-- {
		edges = append(edges, k-width*grade[j])
	}
	edges = append(edges, k)
	for _, g := range grade {
		edges = append(edges, k+width*g)
	}
	edges = append(edges, k+width)
	return split(k+width, hi, edges), nil
}
