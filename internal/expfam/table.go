package expfam

import (
	"math"
	"sync/atomic"
)

// Table grid: η from −TableEtaMax to +TableEtaMax in steps of 1/TableEtaRes,
// and TableCells equal cells in u.
const (
	TableEtaMax = 64
	TableEtaRes = 32
	TableCells  = 1024
)

// Table tabulates, for one scalar family, the quantile function Q(u; η) on a
// grid of η and u, and the cumulants of ψ at each grid η. Rows are built
// lazily the first time a draw needs them and are shared by every goroutine:
// a Table is safe for concurrent use and its results do not depend on the
// order in which rows were built.
//
// A draw interpolates Q bilinearly in (η, u). Because the interpolant lies
// between exact quantiles, its Kolmogorov distance from the exact
// distribution is at most 1/TableCells in the outermost u-cells and far
// smaller inside; MaxCDFError measures it.
type Table struct {
	f    Scalar
	rows []atomic.Pointer[tableRow]
}

type tableRow struct {
	q                [TableCells + 1]float64
	logZ, mean, vari float64
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
	if j >= TableCells {
		j = TableCells - 1
	}
	g := pos - float64(j)
	x0 := r0.q[j] + g*(r0.q[j+1]-r0.q[j])
	x1 := r1.q[j] + g*(r1.q[j+1]-r1.q[j])
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
