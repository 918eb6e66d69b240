package linalg

import "math"

// MulABtPanel8 sets C = A·Bᵀ for row-major A (m×k, row stride lda) and a
// B of eight rows given as its transpose bp (k×8: bp[8p+j] = B[j][p]),
// C m×8 (row stride 8): the bits of MulABt(m, 8, k, a, lda, B, k, c, 8),
// each element the fused-multiply-add chain over p from 0 in blocks of
// kc, each block's sum added to the element. It is η = W φ of eight
// states at once when bp holds their features in its lanes (the batched
// rollouts: agent.gaussBatch), with no packing of W or of the features,
// which cost the general product as much as its arithmetic at m = d_s.
// With AVX-512 the eight columns are the lanes of one register and eight
// rows of A run together (panel8AVX512); elsewhere panel8Go gives the
// same bits.
func MulABtPanel8(m, k int, a []float64, lda int, bp []float64, c []float64) {
	if m == 0 {
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = bp[8*k-1]
	_ = c[8*m-1]
	for r0 := 0; r0 < m; r0 += 8 {
		rows := min(8, m-r0)
		if usePanel512 && k > 0 {
			var ptr [8]*float64
			for r := range ptr {
				ptr[r] = &a[(r0+min(r, rows-1))*lda] // a short group repeats its last row
			}
			var tile [64]float64
			panel8AVX512(&ptr, k, &bp[0], &tile)
			copy(c[8*r0:8*(r0+rows)], tile[:8*rows])
			continue
		}
		for r := r0; r < r0+rows; r++ {
			panel8Go(k, a[r*lda:r*lda+k], bp, c[8*r:8*r+8])
		}
	}
}

// panel8Go sets c[j] = Σ_p a[p]·bp[8p+j] for j < 8 as MulABt sums it:
// acc = fma(a[p], bp[8p+j], acc) from 0 over each block of kc steps, then
// c[j] = fma(1, acc, c[j]), which is c[j] + acc.
func panel8Go(k int, a, bp, c []float64) {
	var out [8]float64
	for p0 := 0; p0 < k; p0 += kc {
		var acc [8]float64
		for p := p0; p < min(p0+kc, k); p++ {
			x := a[p]
			b := bp[8*p : 8*p+8 : 8*p+8]
			for j, y := range b {
				acc[j] = math.FMA(x, y, acc[j])
			}
		}
		for j := range out {
			out[j] += acc[j]
		}
	}
	copy(c, out[:])
}

// MulABtPanel8x2 is MulABtPanel8 for two eight-row Bs at once (c0 from
// bp0, c1 from bp1), each with MulABtPanel8's bits; with AVX-512 one pass
// over A serves both (sixteen accumulators, each element of A broadcast
// once).
func MulABtPanel8x2(m, k int, a []float64, lda int, bp0, bp1, c0, c1 []float64) {
	if !usePanel512 || m == 0 || k == 0 {
		MulABtPanel8(m, k, a, lda, bp0, c0)
		MulABtPanel8(m, k, a, lda, bp1, c1)
		return
	}
	_ = a[(m-1)*lda+k-1]
	_, _ = bp0[8*k-1], bp1[8*k-1]
	_, _ = c0[8*m-1], c1[8*m-1]
	// Groups of at most nine rows as even as can be (17 rows: 9, 8): each
	// group's kernel has 2·rows independent chains and is one pass over
	// the panels, and no row is computed twice.
	groups := (m + 8) / 9
	for g, r0 := 0, 0; g < groups; g++ {
		rows := (m - r0) / (groups - g)
		if (m-r0)%(groups-g) != 0 {
			rows++
		}
		var ptr [9]*float64
		for r := range rows {
			ptr[r] = &a[(r0+r)*lda]
		}
		var tile [144]float64
		panel8x2(rows, &ptr, k, &bp0[0], &bp1[0], &tile)
		copy(c0[8*r0:8*(r0+rows)], tile[:8*rows])
		copy(c1[8*r0:8*(r0+rows)], tile[72:72+8*rows])
		r0 += rows
	}
}
