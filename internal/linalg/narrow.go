package linalg

import "math"

// The narrow left solve: op(U)·X = B for an upper triangular m×m U and a B
// of few columns (at most narrowMax, in the kernels' registers), the shape
// of the refit's solve with its d_s right-hand sides (LAPACK's Dpotrs: Uᵀ
// then U). Impl.Dtrsm's general
// path packs the off-diagonal blocks for the product kernel, which at
// n = 17 cost as much as the arithmetic, and below the product's size runs
// gonum's Dgemm and Dtrsm, one AxpyUnitary call of 17 elements per (row,
// step) pair. trsmNarrow does the same operations on every element in the
// same order, so its bits are Impl.Dtrsm's (TestTrsmNarrowIsTrsm): the same
// recursive halves and leaves; where Impl.Dtrsm runs the packed product,
// the same fused-multiply-add chains over blocks of kc steps, each block's
// sum subtracted as the kernel's tile does it; where it runs gonum's Dgemm
// or Dtrsm, the same c += (−a)·x, rounded product, zero coefficients
// skipped. The columns are the lanes of the AVX-512 kernels
// (narrow_amd64.s: one to three registers of lanes), four rows at a time;
// the narrow*Go twins give the same bits elsewhere.

// narrowMax is the most columns trsmNarrow takes: three registers of eight
// lanes.
const narrowMax = 24

// narrowMinOrder is the order from which Impl.Dtrsm takes trsmNarrow:
// below it gonum's Dtrsm (the same bits) is as fast (5×5 with one
// right-hand side: 0.20 µs against 0.24 µs; 20×20: 1.8 against 1.5 µs).
const narrowMinOrder = 16

// narrowSolve routes Impl.Dtrsm's narrow left solves to trsmNarrow; tests
// turn it off to compare with the general path.
var narrowSolve = true

// trsmNarrow solves op(U)·X = B in place (op(U) = Uᵀ when t) for the m×m
// upper triangular, non-unit U at a (row stride lda) and the m×n B at b
// (row stride ldb): Impl.Dtrsm(Left, Upper, op, NonUnit, m, n, 1, a, lda,
// b, ldb) of the general path bit for bit. Above narrowMax columns the
// kernels run on narrowMax columns at a time (every column's arithmetic is
// its own) and the large off-diagonal products are the packed product's,
// as in the general path: Dpotrf's panel solves, 128 rows by up to
// n − 128 columns, take this path for its leaves and gonum-sized products.
func trsmNarrow(t bool, m, n int, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	_ = a[(m-1)*lda+m-1]
	_ = b[(m-1)*ldb+n-1]
	if !big(m, m, n) { // Impl.Dtrsm hands it whole to gonum's Dtrsm
		narrowLeaf(t, m, n, a, lda, b, ldb)
		return
	}
	for c0 := 0; c0 < n; c0 += trsmCols {
		narrowRec(t, m, min(trsmCols, n-c0), n, a, lda, b[c0:], ldb)
	}
}

// trsmCols is the most columns of B trsmNarrow's recursion runs on at a
// time: 128 rows of them (Dpotrf's panel) take 240 KB, which stay in L2
// through the recursion's passes where a panel of all n − 128 columns
// (1.9 MB at D = 2000) streamed from L3 at each. Every column's arithmetic
// is its own whatever the chunk: a multiple of the product's tile (8) and
// of the leaves' narrowMax keeps each column in the same tiles and lanes.
const trsmCols = 240

// narrowRec is Impl.trsmLeft's recursion for the upper triangle: the same
// halves (trsmHalf) and leaves of up to trsmBase rows, its bits depending
// on both; on n of the wide columns of the whole solve, whose width
// decides the products' path (narrowSub) as Impl.trsmLeft's does.
func narrowRec(t bool, m, n, wide int, a []float64, lda int, b []float64, ldb int) {
	if m <= trsmBase {
		narrowLeaf(t, m, n, a, lda, b, ldb)
		return
	}
	m1 := trsmHalf(m)
	m2 := m - m1
	b1, b2 := b, b[m1*ldb:]
	a22 := a[m1*lda+m1:]
	if t { // Uᵀ is lower triangular: the first half, then the second's right-hand sides
		narrowRec(t, m1, n, wide, a, lda, b1, ldb)
		narrowSub(m2, n, wide, m1, a, m1, 1, lda, b1, b2, ldb) // (Uᵀ)21(i, p) = U[p, m1+i]
		narrowRec(t, m2, n, wide, a22, lda, b2, ldb)
		return
	}
	narrowRec(t, m2, n, wide, a22, lda, b2, ldb)
	narrowSub(m1, n, wide, m2, a, m1, lda, 1, b2, b1, ldb) // U12(i, p) = U[i, m1+p]
	narrowRec(t, m1, n, wide, a, lda, b1, ldb)
}

// narrowSub computes C −= A·X for the m×k A whose (i, p) element is
// a[off + i·rs + p·ls], the k×n X at x and the m×n C at c (both row stride
// ldb), as Impl.sub would on wide columns (n of them, or more when the
// solve runs in chunks of columns): the packed product's chains when
// big(m, wide, k) (the product itself above narrowMax columns), else
// gonum's Dgemm (alpha −1, beta 1), narrowMax columns at a time.
func narrowSub(m, n, wide, k int, a []float64, off, rs, ls int, x, c []float64, ldb int) {
	_ = a[off+(m-1)*rs+(k-1)*ls]
	_ = x[(k-1)*ldb+n-1]
	_ = c[(m-1)*ldb+n-1]
	var rows [4]int
	if !big(m, wide, k) {
		for c0 := 0; c0 < n; c0 += narrowMax {
			w := min(narrowMax, n-c0)
			for i0 := 0; i0 < m; i0 += 4 {
				for r := range rows {
					rows[r] = i0 + min(r, m-i0-1) // a short group repeats its last row
				}
				narrowAxpy4(k, a, off, rs, ls, &rows, x[c0:], c[c0:], ldb, w)
			}
		}
		return
	}
	if wide > narrowMax { // the packed product itself, as Impl.sub
		gemm(whole, m, n, k, -1, operand{a[off:], max(rs, ls), rs == 1}, operand{x, ldb, false}, c, ldb)
		return
	}
	// The packed product's tiles: 6 rows by 8 columns, the last row tile
	// and column tile partial when m, n are not multiples. A full tile
	// ends with c = fma(−1, acc, c), a partial one with c + fma(−1, acc, 0)
	// (kern6x8 into a cleared tile, then added): the two differ only in
	// the sign of a zero.
	fullRows, fullCols := m/mr*mr, n/nr*nr
	var acc [96]float64
	for p0 := 0; p0 < k; p0 += kc {
		kb := min(kc, k-p0)
		for i0 := 0; i0 < m; i0 += 4 {
			g := min(4, m-i0)
			for r := range rows {
				rows[r] = i0 + min(r, g-1)
			}
			narrowAcc4(kb, a, off+p0*ls, rs, ls, &rows, x[p0*ldb:], ldb, n, &acc)
			for r := range g {
				i := i0 + r
				ci, ar := c[i*ldb:i*ldb+n], acc[24*r:24*r+n]
				full := 0 // the columns of full tiles in this row
				if i < fullRows {
					full = fullCols
				}
				for j := range full {
					ci[j] = math.FMA(-1, ar[j], ci[j])
				}
				for j := full; j < n; j++ {
					ci[j] += math.FMA(-1, ar[j], 0)
				}
			}
		}
	}
}

// narrowLeaf is gonum's Dtrsm (Left, Upper, op, NonUnit, alpha 1) row by
// row: row i gets c_i += (−a)·x_p over its earlier solved rows p in
// gonum's order (ascending: for Uᵀ the rows above, for U the rows below),
// zero coefficients skipped, then c_i *= 1/u_ii. For Uᵀ the rows before a
// group of four are added to the four at once.
func narrowLeaf(t bool, m, n int, a []float64, lda int, b []float64, ldb int) {
	for c0 := 0; c0 < n; c0 += narrowMax {
		narrowLeafCols(t, m, min(narrowMax, n-c0), a, lda, b[c0:], ldb)
	}
}

// narrowLeafCols is narrowLeaf on n ≤ narrowMax columns.
func narrowLeafCols(t bool, m, n int, a []float64, lda int, b []float64, ldb int) {
	var rows [4]int
	if t {
		for i0 := 0; i0 < m; i0 += 4 {
			g := min(4, m-i0)
			if i0 > 0 {
				for r := range rows {
					rows[r] = i0 + min(r, g-1)
				}
				narrowAxpy4(i0, a, 0, 1, lda, &rows, b, b, ldb, n) // (Uᵀ)(i, p) = U[p, i]
			}
			for i := i0; i < i0+g; i++ {
				if i > i0 {
					narrowAxpy1(i-i0, a, i0*lda+i, lda, b[i0*ldb:], b[i*ldb:], ldb, n)
				}
				narrowScale(b[i*ldb:i*ldb+n], 1/a[i*lda+i])
			}
		}
		return
	}
	for i := m - 1; i >= 0; i-- {
		if i < m-1 {
			narrowAxpy1(m-1-i, a, i*lda+i+1, 1, b[(i+1)*ldb:], b[i*ldb:], ldb, n)
		}
		narrowScale(b[i*ldb:i*ldb+n], 1/a[i*lda+i])
	}
}

// narrowScale is gonum's ScalUnitary: x *= s.
func narrowScale(x []float64, s float64) {
	for j := range x {
		x[j] *= s
	}
}

// narrowAcc4 sets acc[24r+j] = Σ_p fma chain of a[off + rows[r]·rs + p·ls]
// · x[p·ldb + j] over p < k from 0 (kern6x8's order), for r < 4, j < n.
func narrowAcc4(k int, a []float64, off, rs, ls int, rows *[4]int, x []float64, ldb, n int, acc *[96]float64) {
	if useNarrow {
		var ptr [4]*float64
		for r, i := range rows {
			ptr[r] = &a[off+i*rs]
		}
		narrowAcc4AVX512(n, k, &ptr, ls, &x[0], ldb, acc)
		return
	}
	narrowAcc4Go(k, a, off, rs, ls, rows, x, ldb, n, acc)
}

func narrowAcc4Go(k int, a []float64, off, rs, ls int, rows *[4]int, x []float64, ldb, n int, acc *[96]float64) {
	for r, i := range rows {
		s := acc[24*r : 24*r+n]
		clear(s)
		for p := range k {
			coef := a[off+i*rs+p*ls]
			xp := x[p*ldb : p*ldb+n]
			for j, v := range xp {
				s[j] = math.FMA(coef, v, s[j])
			}
		}
	}
}

// narrowAxpy4 does, for p < k and r < 4, c_i −= a_ip·x_p (product
// rounded, then subtracted: gonum's c += (−a)·x) for row i = rows[r] of c
// and coefficient a_ip = a[off + i·rs + p·ls] when it is not zero.
func narrowAxpy4(k int, a []float64, off, rs, ls int, rows *[4]int, x, c []float64, ldb, n int) {
	if useNarrow {
		var ap, cp [4]*float64
		for r, i := range rows {
			ap[r] = &a[off+i*rs]
			cp[r] = &c[i*ldb]
		}
		narrowAxpy4AVX512(n, k, &ap, ls, &x[0], ldb, &cp)
		return
	}
	for r, i := range rows {
		if r > 0 && i == rows[r-1] {
			continue // a repeated row: done once
		}
		narrowAxpyGo(k, a[off+i*rs:], ls, x, c[i*ldb:i*ldb+n], ldb)
	}
}

// narrowAxpy1 is narrowAxpy4 for the one row c[:n] with coefficients
// a[off + p·ls].
func narrowAxpy1(k int, a []float64, off, ls int, x, c []float64, ldb, n int) {
	_ = a[off+(k-1)*ls]
	_ = x[(k-1)*ldb+n-1]
	if useNarrow {
		narrowAxpy1AVX512(n, k, &a[off], ls, &x[0], ldb, &c[0])
		return
	}
	narrowAxpyGo(k, a[off:], ls, x, c[:n], ldb)
}

func narrowAxpyGo(k int, a []float64, ls int, x, c []float64, ldb int) {
	for p := range k {
		coef := a[p*ls]
		if coef == 0 {
			continue
		}
		xp := x[p*ldb : p*ldb+len(c)]
		for j, v := range xp {
			c[j] -= float64(coef * v)
		}
	}
}

// subScaled sets x[j] −= a[j]·s (the product rounded) for j < len(x).
func subScaled(x, a []float64, s float64) {
	if len(x) == 0 {
		return
	}
	_ = a[len(x)-1]
	if useNarrow {
		subScaledAVX512(len(x), &x[0], &a[0], s)
		return
	}
	for j := range x {
		x[j] -= float64(a[j] * s)
	}
}
