package expfam

import (
	"math"
	"sync"
	"sync/atomic"
)

// Table grid: η in steps of 1/TableEtaRes from −TableEtaMax to +TableEtaMax
// (from −TableGeoEta to +TableGeoEta for a family with a bounded ψ), beyond
// on the lazily built extension of gridEta; and TableCells equal cells in u.
const (
	TableEtaMax = 256
	TableGeoEta = 8
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
	// TableSubCells is the number of sub-cells of a refined u-cell: a cell
	// whose interpolated quantile misses the exact CDF by more than
	// tableRefineTol at a quarter point (typically the few cells per row that
	// span a valley of low density between two modes, where the quantile
	// jumps within the cell) is tabulated again on TableSubCells equal
	// sub-cells.
	TableSubCells  = 32
	tableRefineTol = 2e-5
)

// TableExtraRows bounds the rows a table keeps beyond its linear grid: η
// out there is tabulated on the grid of gridEta, lazily, as far as the
// models reach, and when a table holds this many such rows it drops them all
// and builds again what is needed. A row takes about 23 kB, so a table's
// extension stays below 100 MB (|η| = 10⁴ is 913 geometric rows from the
// edge).
const TableExtraRows = 4096

// tableExtraRows is TableExtraRows (a variable for tests).
var tableExtraRows = int64(TableExtraRows)

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
// In u, each row is a monotone cubic Hermite interpolant of the exact
// quantiles Q(u_j) at u_j = j/TableCells with the exact slopes
// Q'(u_j) = 1/p(Q(u_j)), each slope clamped to [0, 3·min(adjacent secants)]
// (Fritsch & Carlson's sufficient condition for monotonicity), and refined
// cells use the same construction on TableSubCells sub-cells. The outermost
// u-cells are tabulated on grids geometric in u down to TableTailMin and
// interpolated linearly in log u; beyond TableTailMin the exact CDF is
// inverted. Between two rows of η a draw interpolates the two rows'
// quantiles linearly in η.
//
// At a grid η the interpolant stays between the exact quantiles at the ends
// of its cell, so the Kolmogorov distance from the exact distribution is at
// most 1/TableCells (1/(TableCells·TableSubCells) in refined cells); between
// grid rows there is no such bound. MaxCDFError measures the distance.
type Table struct {
	f    Scalar
	rows []atomic.Pointer[tableRow]
	// extra holds the rows beyond the linear grid by index, at most
	// TableExtraRows of them (then it is replaced by an empty map).
	extra  atomic.Pointer[sync.Map]
	nExtra atomic.Int64
	dirty  atomic.Bool // rows were built since the table was loaded or saved
	geo    bool        // the grid is geometric beyond ±TableGeoEta
	// cacheFile, when set (SharedTable), is loaded by loadCache before the
	// first row is built.
	cacheFile, cacheKey string
	loadOnce            sync.Once
	cached              map[int]cachedEntry // encoded rows of the cache file, by index; read-only once loaded
	// mapFault is set when reading the mapping of the cache file faulted
	// (the file was truncated in place): its rows are not read again.
	mapFault atomic.Bool
	edge     float64 // the linear grid's half-width: TableGeoEta or TableEtaMax
	lin      int     // its half-width in rows: the row of η = 0
}

type tableRow struct {
	// node[j] = {Q(u_j), m_j}: the quantile at u_j = j/TableCells and its
	// limited slope in cell units, m_j = Q'(u_j)/TableCells. The sign bit of
	// m_j marks cell j (from node j to j+1) as refined; |m_j| is the slope.
	node             [TableCells + 1][2]float64
	lo, hi           [TableTailCells + 1]float64 // Q(tailU(k)) and Q(1 − tailU(k))
	ref              [TableCells]int16           // refined cell j: its block in sub is ref[j]−1
	sub              []float64                   // per refined cell: TableSubCells+1 quantiles, then their slopes
	logZ, mean, vari float64
	meanX, covXPsi   float64 // E[x] and its η-derivative Cov(x, ψ)
	err              error
}

// NewTable returns an empty table for f, private to the caller (see
// SharedTable for the process-wide one).
func NewTable(f Scalar) *Table {
	t := &Table{f: f, edge: TableEtaMax}
	if b, ok := f.(boundedPsi); ok && b.BoundedPsi() {
		t.geo, t.edge = true, TableGeoEta
	}
	t.lin = int(t.edge) * TableEtaRes
	t.rows = make([]atomic.Pointer[tableRow], 2*t.lin+1)
	t.extra.Store(new(sync.Map))
	return t
}

// Family returns the scalar family the table tabulates.
func (t *Table) Family() Scalar { return t.f }

// The grid of η: row i is at t.gridEta(i). Inside the linear grid, ±t.edge,
// the step is 1/TableEtaRes (row t.lin is η = 0). For a family whose ψ is
// bounded (custom-sin, exp-sin: BoundedPsi) the linear grid ends at
// ±TableGeoEta and the grid beyond is geometric,
// |η| = TableGeoEta·exp(k/TableEtaLogRes) for the k-th row past the edge, so
// that the few hundred rows to |η| in the thousands cost what a few dozen
// would on the linear grid. There the density has sharpened to bumps at ψ's
// maximisers whose relative masses no longer change with η, only their widths
// (∝ |η|^{−1/2}): interpolating the exact quantiles of two rows linearly
// in η misses the exact distribution by less than 1e-6 in Kolmogorov
// distance (measured on custom-sin and exp-sin from |η| = 4 on), far below
// the u-interpolation's 2e-5, and MaxCDFError agrees. For an unbounded ψ
// (x-sin) the mass moves outward with η: its linear grid spans ±TableEtaMax
// and continues beyond, row by row.
const TableEtaLogRes = 128

// boundedPsi is a Scalar whose ψ is bounded (see the grid of η).
type boundedPsi interface{ BoundedPsi() bool }

// gridEta returns the η of grid row i.
func (t *Table) gridEta(i int) float64 {
	switch {
	case t.geo && i > 2*t.lin:
		return t.edge * math.Exp(float64(i-2*t.lin)/TableEtaLogRes)
	case t.geo && i < 0:
		return -t.edge * math.Exp(float64(-i)/TableEtaLogRes)
	}
	return float64(i-t.lin) / TableEtaRes
}

// row returns grid row i (any integer: beyond the fixed range it lives in
// extra), building it if needed.
func (t *Table) row(i int) *tableRow {
	if i < 0 || i >= len(t.rows) {
		return t.extraRow(i)
	}
	if r := t.rows[i].Load(); r != nil {
		return r
	}
	t.loadCache()
	r := t.cachedRow(i)
	if r == nil {
		r = t.build(i)
	}
	t.rows[i].CompareAndSwap(nil, r)
	return t.rows[i].Load()
}

// extraRow returns row i beyond the fixed range, building it if needed.
func (t *Table) extraRow(i int) *tableRow {
	m := t.extra.Load()
	if r, ok := m.Load(i); ok {
		return r.(*tableRow)
	}
	t.loadCache()
	r := t.cachedRow(i)
	if r == nil {
		r = t.build(i)
	}
	if t.nExtra.Add(1) > tableExtraRows {
		// Full: start afresh (rows are pure functions of η, so which rows
		// are kept changes no result). Other goroutines may still read the
		// old map.
		m = new(sync.Map)
		t.extra.Store(m)
		t.nExtra.Store(1)
	}
	got, _ := m.LoadOrStore(i, r)
	return got.(*tableRow)
}

// build computes grid row i.
func (t *Table) build(i int) *tableRow {
	t.dirty.Store(true)
	eta := t.gridEta(i)
	r := new(tableRow)
	c, err := NewCDF(t.f, eta)
	if err != nil {
		r.err = err
	} else {
		r.logZ, r.mean, r.vari = c.LogZ, c.Mean, c.Variance
		r.meanX, r.covXPsi = c.MeanX, c.CovXPsi
		// Quantiles and slopes at u_j = j/TableCells: walk the panels once.
		var q, m [TableCells + 1]float64
		n := len(c.edges)
		q[0], q[TableCells] = c.edges[0], c.edges[n-1]
		p := 0
		c.quantiles(0, 1.0/TableCells, q[:], m[:], 1, TableCells-1, &p)
		limitSlopes(q[:], m[:])
		for j := range q {
			r.node[j] = [2]float64{q[j], m[j]}
		}
		r.refine(c)
		r.lo[0], r.hi[0] = q[1], q[TableCells-1]
		for k := 1; k <= TableTailCells; k++ {
			u := tailU(k)
			r.lo[k], r.hi[k] = c.Quantile(u), c.Quantile(1-u)
		}
	}
	return r
}

// maxTableEta is the largest |η| the table tabulates (beyond it, η is
// treated as not normalisable: no density of interest gets there, and the
// geometric grid's index stays small); a linear grid continued beyond
// ±TableEtaMax stops at ±16·TableEtaMax.
const maxTableEta = 1 << 40

// locate returns the grid row i below eta, the interpolation weight w on
// row i+1 (linear in η within the cell) and the cell's width
// h = gridEta(i+1) − gridEta(i), each grid η computed once (beyond the
// linear grid each is an Exp), or ok = false when eta is not finite or
// beyond ±maxTableEta.
func (t *Table) locate(eta float64) (i int, w, h float64, ok bool) {
	a := math.Abs(eta)
	if !(a <= maxTableEta) || !t.geo && a > 16*TableEtaMax {
		return 0, 0, 0, false
	}
	if a < t.edge || !t.geo {
		pos := eta*TableEtaRes + float64(t.lin)
		f := math.Floor(pos)
		// Grid η are multiples of 1/TableEtaRes here, so h is exact. (The
		// one η below the edge whose pos rounds up to the edge's row, in a
		// geometric grid, has w = 0, where h does not matter.)
		return int(f), pos - f, 1.0 / TableEtaRes, true
	}
	k := int(math.Log(a/t.edge) * TableEtaLogRes)
	if eta > 0 {
		i = 2*t.lin + k
	} else {
		i = -k - 1
	}
	// Rounding of the logarithm can put η just outside its cell.
	lo, hi := t.gridEta(i), t.gridEta(i+1)
	for eta < lo {
		i--
		lo, hi = t.gridEta(i), lo
	}
	for eta >= hi {
		i++
		lo, hi = hi, t.gridEta(i+1)
	}
	return i, (eta - lo) / (hi - lo), hi - lo, true
}

// Quantile returns the tabulated Q(u; η) for u in [0, 1). It returns NaN
// when the family is not normalisable at η (or η is not finite).
func (t *Table) Quantile(eta, u float64) float64 {
	i, w, _, ok := t.locate(eta)
	if !ok {
		return math.NaN()
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
	g := pos - float64(j)
	a0, b0, a1, b1 := &r0.node[j], &r0.node[j+1], &r1.node[j], &r1.node[j+1]
	if math.Signbit(a0[1]) || math.Signbit(a1[1]) {
		x0, x1 := r0.at(j, g), r1.at(j, g)
		return x0 + w*(x1-x0)
	}
	// Both rows' pieces are cubic in g and linear in their node values, so
	// the η interpolation of the two pieces is the piece of the
	// interpolated node values.
	m1 := math.Abs(b0[1])
	return cubic(a0[0]+w*(a1[0]-a0[0]), b0[0]+w*(b1[0]-b0[0]),
		a0[1]+w*(a1[1]-a0[1]), m1+w*(math.Abs(b1[1])-m1), g)
}

// at evaluates the row's quantile interpolant in cell j at fraction g.
func (r *tableRow) at(j int, g float64) float64 {
	a, b := &r.node[j], &r.node[j+1]
	if math.Signbit(a[1]) {
		return r.refined(j, g)
	}
	return cubic(a[0], b[0], a[1], math.Abs(b[1]), g)
}

// cubic is the cubic Hermite interpolant at t ∈ [0, 1] of values f0, f1
// with slopes (scaled by the interval) d0, d1, in Horner form.
func cubic(f0, f1, d0, d1, t float64) float64 {
	d := f1 - f0
	return f0 + t*(d0+t*(3*d-2*d0-d1+t*(d0+d1-2*d)))
}

// refined evaluates the sub-cell interpolant of refined cell j at fraction g.
func (r *tableRow) refined(j int, g float64) float64 {
	const n = TableSubCells + 1
	blk := r.sub[(int(r.ref[j])-1)*2*n:]
	q, m := blk[:n], blk[n:2*n]
	pos := g * TableSubCells
	k := min(int(pos), TableSubCells-1)
	return cubic(q[k], q[k+1], m[k], m[k+1], pos-float64(k))
}

// quantiles writes q[k] = Q(u0 + k·du) and m[k] = Q'(u0 + k·du)·du for k
// in [k0, k1], walking the panels forward from panel *p (u0 + k0·du must
// not lie below it).
func (c *CDF) quantiles(u0, du float64, q, m []float64, k0, k1 int, p *int) {
	n := len(c.edges)
	for k := k0; k <= k1; k++ {
		u := u0 + float64(k)*du
		for *p < n-2 && c.cdf[*p+1] < u {
			*p++
		}
		q[k] = c.invertPanel(*p, u)
		h := c.edges[*p+1] - c.edges[*p]
		_, d := c.hermite(*p, h, (q[k]-c.edges[*p])/h) // dF/dt = p(x)·h
		m[k] = h * du / d
	}
}

// limitSlopes clamps each slope m[k] to [0, 3·min(q[k]−q[k−1],
// q[k+1]−q[k])], a sufficient condition for every cubic Hermite piece to be
// monotone (Fritsch & Carlson 1980). An infinite slope (zero density)
// becomes the limit.
func limitSlopes(q, m []float64) {
	last := len(q) - 1
	for k := range m {
		lim := math.Inf(1)
		if k > 0 {
			lim = 3 * (q[k] - q[k-1])
		}
		if k < last {
			lim = min(lim, 3*(q[k+1]-q[k]))
		}
		m[k] = min(m[k], lim)
		if !(m[k] >= 0) {
			m[k] = 0
		}
	}
}

// refine evaluates the CDF at the interpolant's quarter points in every
// interior cell and re-tabulates on TableSubCells sub-cells each cell
// whose error there exceeds tableRefineTol.
func (r *tableRow) refine(c *CDF) {
	const n = TableSubCells + 1
	var blk [2 * n]float64
	last := len(c.edges) - 2
	p := 0
	for j := 1; j < TableCells-1; j++ {
		a, b := r.node[j], r.node[j+1]
		bad := false
		for _, g := range [...]float64{0.25, 0.5, 0.75} {
			x := cubic(a[0], b[0], a[1], b[1], g)
			for p < last && c.edges[p+1] < x {
				p++
			}
			h := c.edges[p+1] - c.edges[p]
			f, _ := c.hermite(p, h, (x-c.edges[p])/h)
			bad = bad || math.Abs(f-(float64(j)+g)/TableCells) > tableRefineTol
		}
		if !bad {
			continue
		}
		q, m := blk[:n], blk[n:]
		pp := p
		for pp > 0 && c.cdf[pp] > float64(j)/TableCells {
			pp--
		}
		c.quantiles(float64(j)/TableCells, 1.0/(TableCells*TableSubCells), q, m, 0, TableSubCells, &pp)
		q[0], q[TableSubCells] = a[0], b[0] // the cell's own ends, for continuity
		limitSlopes(q, m)
		r.sub = append(r.sub, blk[:]...)
		r.ref[j] = int16(len(r.sub) / (2 * n))
		r.node[j][1] = math.Copysign(r.node[j][1], -1)
	}
}

// tailPos is the position of a tail probability TableTailMin ≤ v ≤
// 1/TableCells on the tail grid: k where tailU(k) = v.
func tailPos(v float64) float64 {
	return min(math.Log(1/(v*TableCells))/tailLogSpan*TableTailCells, TableTailCells)
}

// lerp2 interpolates bilinearly between two rows a, b of tail quantiles at
// the fractional cell position pos (clamped to the rows) and weight w on b.
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
// and variance of ψ: A and A' are cubic Hermite interpolants between grid
// rows (A' and A” are their exact derivatives at the grid), A” is linear.
// ok is false when the family is not normalisable at η.
func (t *Table) Cumulants(eta float64) (a, da, d2a float64, ok bool) {
	i, w, h, in := t.locate(eta)
	if !in {
		return 0, 0, 0, false
	}
	r0, r1 := t.row(i), t.row(i+1)
	if r0.err != nil || r1.err != nil {
		return 0, 0, 0, false
	}
	a = hermite(r0.logZ, r1.logZ, h*r0.mean, h*r1.mean, w)
	da = hermite(r0.mean, r1.mean, h*r0.vari, h*r1.vari, w)
	d2a = r0.vari + w*(r1.vari-r0.vari)
	return a, da, d2a, true
}

// MeanX returns E[x | η]: the cubic Hermite interpolant of the exact grid
// values and their η-derivatives Cov(x, ψ). It is NaN where the family is
// not normalisable.
func (t *Table) MeanX(eta float64) float64 {
	i, w, h, in := t.locate(eta)
	if !in {
		return math.NaN()
	}
	r0, r1 := t.row(i), t.row(i+1)
	if r0.err != nil || r1.err != nil {
		return math.NaN()
	}
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
// 4·TableSubCells equally spaced points of every u-cell (the ends and
// quarter points of every sub-cell).
func (t *Table) MaxCDFError(eta float64) (float64, error) {
	c, err := NewCDF(t.f, eta)
	if err != nil {
		return 0, err
	}
	var worst float64
	const m = 4 * TableSubCells * TableCells
	for j := 0; j < m; j++ {
		u := float64(j) / m
		if d := math.Abs(c.At(t.Quantile(eta, u)) - u); d > worst {
			worst = d
		}
	}
	return worst, nil
}
