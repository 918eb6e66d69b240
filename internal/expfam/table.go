package expfam

import (
	"math"
	"sync/atomic"
)

// Table grid: η from −TableEtaMax to +TableEtaMax in steps of 1/TableEtaRes,
// and TableCells equal cells in u.
const (
	TableEtaMax = 256
	TableEtaRes = 32
	TableCells  = 1024
	// TableTailCells is the number of cells of the tail grids: the outermost
	// u-cell at each end is tabulated on a grid geometric in u, from
	// 1/TableCells down to TableTailMin in steps of 5% (so a draw's tail
	// probability is off by at most about 5% even where the tail is
	// multimodal), and interpolated linearly in log u. Draws beyond
	// TableTailMin (2·10⁻¹⁰ of them) invert the exact CDF.
	TableTailCells = 320
	TableTailMin   = 1e-10
)

// tailLogSpan is ln(1/(TableCells·TableTailMin)): the tail grid's point k
// sits at u = exp(−k·tailLogSpan/TableTailCells)/TableCells.
var tailLogSpan = math.Log(1 / (TableCells * TableTailMin))

// tailU returns the k-th point of the lower tail grid.
func tailU(k int) float64 {
	return math.Exp(-float64(k)*tailLogSpan/TableTailCells) / TableCells
}

// Table tabulates, for one scalar family, the quantile function Q(u; η) on a
// grid of η and u, and the cumulants of ψ at each grid η. Rows are built
// lazily the first time a draw needs them and are shared by every goroutine:
// a Table is safe for concurrent use and its results do not depend on the
// order in which rows were built.
//
// A draw interpolates Q bilinearly in (η, u), and in (η, log u) inside the
// outermost u-cells, whose tails are tabulated on a grid geometric in u down
// to TableTailMin; beyond it the exact CDF is inverted. Because the interpolant lies between exact quantiles, its
// Kolmogorov distance from the exact distribution is at most 1/TableCells
// and far smaller in practice; MaxCDFError measures it.
type Table struct {
	f    Scalar
	rows []atomic.Pointer[tableRow]
}

type tableRow struct {
	q                [TableCells + 1]float64
	lo, hi           [TableTailCells + 1]float64 // Q(tailU(k)) and Q(1 − tailU(k))
	logZ, mean, vari float64
	meanX, covXPsi   float64 // E[x] and its η-derivative Cov(x, ψ)
	err              error
}

// NewTable returns an empty table for f.
func NewTable(f Scalar) *Table {
	return &Table{f: f, rows: make([]atomic.Pointer[tableRow], 2*TableEtaMax*TableEtaRes+1)}
}

// Family returns the scalar family the table is for.
func (t *Table) Family() Scalar { return t.f }

func (t *Table) row(i int) *tableRow {
	if r := t.rows[i].Load(); r != nil {
		return r
	}
	eta := float64(i-TableEtaMax*TableEtaRes) / TableEtaRes
	r := new(tableRow)
	c, err := NewCDF(t.f, eta)
	if err != nil {
		r.err = err
	} else {
		r.logZ, r.mean, r.vari = c.LogZ, c.Mean, c.Variance
		r.meanX, r.covXPsi = c.MeanX, c.CovXPsi
		// Quantiles at u_j = j/TableCells: walk the panels once.
		n := len(c.edges)
		r.q[0] = c.edges[0]
		r.q[TableCells] = c.edges[n-1]
		p := 0
		for j := 1; j < TableCells; j++ {
			u := float64(j) / TableCells
			for p < n-2 && c.cdf[p+1] < u {
				p++
			}
			r.q[j] = c.invertPanel(p, u)
		}
		r.lo[0], r.hi[0] = r.q[1], r.q[TableCells-1]
		for k := 1; k <= TableTailCells; k++ {
			u := tailU(k)
			r.lo[k], r.hi[k] = c.Quantile(u), c.Quantile(1-u)
		}
	}
	t.rows[i].CompareAndSwap(nil, r)
	return t.rows[i].Load()
}

// locate returns the grid row below eta and the interpolation weight, or
// ok = false when eta is outside the table.
func locate(eta float64) (i int, w float64, ok bool) {
	pos := (eta + TableEtaMax) * TableEtaRes
	if !(pos >= 0 && pos < 2*TableEtaMax*TableEtaRes) {
		return 0, 0, false
	}
	i = int(pos)
	return i, pos - float64(i), true
}

// Quantile returns the tabulated Q(u; η) for u in [0, 1). Outside the
// table's η range it inverts the exact CDF (slow, allocates). It returns NaN
// when the family is not normalisable at η.
func (t *Table) Quantile(eta, u float64) float64 {
	i, w, ok := locate(eta)
	if !ok {
		c, err := NewCDF(t.f, eta)
		if err != nil {
			return math.NaN()
		}
		return c.Quantile(u)
	}
	r0, r1 := t.row(i), t.row(i+1)
	if r0.err != nil || r1.err != nil {
		return math.NaN()
	}
	pos := u * TableCells
	j := int(pos)
	switch {
	case u < TableTailMin || 1-u < TableTailMin:
		c, err := NewCDF(t.f, eta)
		if err != nil {
			return math.NaN()
		}
		return c.Quantile(u)
	case j <= 0:
		return lerp2(r0.lo[:], r1.lo[:], tailPos(u), w)
	case j >= TableCells-1:
		return lerp2(r0.hi[:], r1.hi[:], tailPos(1-u), w)
	}
	return lerp2(r0.q[:], r1.q[:], pos, w)
}

// tailPos is the position of a tail probability TableTailMin ≤ v ≤
// 1/TableCells on the tail grid: k where tailU(k) = v.
func tailPos(v float64) float64 {
	return min(math.Log(1/(v*TableCells))/tailLogSpan*TableTailCells, TableTailCells)
}

// lerp2 interpolates bilinearly between two rows a, b of quantiles at the
// fractional cell position pos (clamped to the rows) and weight w on b.
func lerp2(a, b []float64, pos, w float64) float64 {
	j := int(pos)
	if j >= len(a)-1 {
		j = len(a) - 2
	}
	g := pos - float64(j)
	x0 := a[j] + g*(a[j+1]-a[j])
	x1 := b[j] + g*(b[j+1]-b[j])
	return x0 + w*(x1-x0)
}

// Cumulants returns A(η) = log Z(η) and its first two derivatives, the mean
// and variance of ψ. Inside the table A and A' are cubic Hermite
// interpolants (A' and A” are their exact derivatives at the grid), A” is
// linear; outside they are integrated exactly. ok is false when the family is
// not normalisable at η.
func (t *Table) Cumulants(eta float64) (a, da, d2a float64, ok bool) {
	i, w, in := locate(eta)
	if !in {
		c, err := NewCDF(t.f, eta)
		if err != nil {
			return 0, 0, 0, false
		}
		return c.LogZ, c.Mean, c.Variance, true
	}
	r0, r1 := t.row(i), t.row(i+1)
	if r0.err != nil || r1.err != nil {
		return 0, 0, 0, false
	}
	const h = 1.0 / TableEtaRes
	a = hermite(r0.logZ, r1.logZ, h*r0.mean, h*r1.mean, w)
	da = hermite(r0.mean, r1.mean, h*r0.vari, h*r1.vari, w)
	d2a = r0.vari + w*(r1.vari-r0.vari)
	return a, da, d2a, true
}

// MeanX returns E[x | η]: inside the table the cubic Hermite interpolant
// of the exact grid values and their η-derivatives Cov(x, ψ), outside it
// integrated exactly. It is NaN where the family is not normalisable.
func (t *Table) MeanX(eta float64) float64 {
	i, w, in := locate(eta)
	if !in {
		c, err := NewCDF(t.f, eta)
		if err != nil {
			return math.NaN()
		}
		return c.MeanX
	}
	r0, r1 := t.row(i), t.row(i+1)
	if r0.err != nil || r1.err != nil {
		return math.NaN()
	}
	const h = 1.0 / TableEtaRes
	return hermite(r0.meanX, r1.meanX, h*r0.covXPsi, h*r1.covXPsi, w)
}

// hermite is the cubic Hermite interpolant at t ∈ [0, 1] of values f0, f1
// with derivatives (scaled by the interval) d0, d1.
func hermite(f0, f1, d0, d1, t float64) float64 {
	t2 := t * t
	t3 := t2 * t
	return f0*(2*t3-3*t2+1) + d0*(t3-2*t2+t) + f1*(3*t2-2*t3) + d1*(t3-t2)
}

// MaxCDFError measures the Kolmogorov distance between the tabulated and the
// exact distribution at η: max over u of |F_η(Q̃(u; η)) − u|, checked at
// the grid points of u and the midpoints and quarter points of every cell.
func (t *Table) MaxCDFError(eta float64) (float64, error) {
	c, err := NewCDF(t.f, eta)
	if err != nil {
		return 0, err
	}
	var worst float64
	for j := 0; j < 4*TableCells; j++ {
		u := float64(j) / (4 * TableCells)
		if d := math.Abs(c.At(t.Quantile(eta, u)) - u); d > worst {
			worst = d
		}
	}
	return worst, nil
}
