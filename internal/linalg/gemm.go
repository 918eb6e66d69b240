package linalg

import (
	"math"
	"runtime"
	"sync"
)

// The register tile of the micro-kernel (mr rows of C by nr columns) and
// the cache blocks of the packed operands: a kc-step panel of B of up to
// nc columns (L3), an mc×kc block of A (L2), one kc×nr micro-panel of B
// (L1) per call of the kernel. Every element of C is summed over p in
// blocks of kc in the same order whatever the number of goroutines, so the
// result does not depend on GOMAXPROCS.
const (
	mr = 6
	nr = 8
	kc = 256
	mc = 96
	nc = 4096
)

// part is the part of C a product writes: all of it, or the upper or
// lower triangle (diagonal included), for the symmetric rank-k updates.
type part int

const (
	whole part = iota
	upperPart
	lowerPart
)

// operand is op(X) of a row-major matrix x with row stride ld: element
// (i, j) is x[i·ld + j], or x[j·ld + i] when t (transposed).
type operand struct {
	x  []float64
	ld int
	t  bool
}

// kern6x8Go adds alpha·Σ_p a_p b_pᵀ to the 6×8 tile at c (row stride
// ldc): acc = fma(a[p·6+r], b[p·8+j], acc) for p = 0, …, k−1 from 0, then
// c = fma(alpha, acc, c), the operations of kern6x8FMA lane by lane.
func kern6x8Go(k int, a, b, c []float64, ldc int, alpha float64) {
	var acc [mr * nr]float64
	for p := range k {
		ap := a[p*mr : p*mr+mr : p*mr+mr]
		bp := b[p*nr : p*nr+nr : p*nr+nr]
		for r, x := range ap {
			row := acc[r*nr : r*nr+nr : r*nr+nr]
			for j, y := range bp {
				row[j] = math.FMA(x, y, row[j])
			}
		}
	}
	for r := range mr {
		cr := c[r*ldc : r*ldc+nr]
		for j := range cr {
			cr[j] = math.FMA(alpha, acc[r*nr+j], cr[j])
		}
	}
}

// packA writes rows [i0, i0+mb) and steps [p0, p0+kb) of op(A) into ap
// as panels of mr rows (panel q at q·kb·mr, step p at p·mr), rows past m
// as zeros.
func packA(ap []float64, a operand, m, i0, mb, p0, kb int) {
	for q := 0; q*mr < mb; q++ {
		dst := ap[q*kb*mr : (q+1)*kb*mr]
		if i := i0 + q*mr; a.t && q*mr+mr <= mb && i+mr <= m {
			// A full panel of op(A) = Xᵀ: six neighbours of each row of
			// X, read and written in order (by rows of the panel, each
			// step would be a new line of X six times over).
			for p := range kb {
				src := a.x[(p0+p)*a.ld+i : (p0+p)*a.ld+i+mr : (p0+p)*a.ld+i+mr]
				d := dst[p*mr : p*mr+mr : p*mr+mr]
				d[0], d[1], d[2], d[3], d[4], d[5] = src[0], src[1], src[2], src[3], src[4], src[5]
			}
			continue
		}
		for r := range mr {
			i := i0 + q*mr + r
			if i >= m || q*mr+r >= mb {
				for p := range kb {
					dst[p*mr+r] = 0
				}
				continue
			}
			if a.t {
				for p := range kb {
					dst[p*mr+r] = a.x[(p0+p)*a.ld+i]
				}
			} else {
				row := a.x[i*a.ld+p0 : i*a.ld+p0+kb]
				for p, v := range row {
					dst[p*mr+r] = v
				}
			}
		}
	}
}

// packB writes steps [p0, p0+kb) and columns [j0, j0+nb) of op(B) into bp
// as panels of nr columns (panel q at q·kb·nr, step p at p·nr), columns
// past n as zeros.
func packB(bp []float64, b operand, n, j0, nb, p0, kb int) {
	for q := 0; q*nr < nb; q++ {
		dst := bp[q*kb*nr : (q+1)*kb*nr]
		jq := j0 + q*nr
		w := min(nr, n-jq, nb-q*nr)
		if b.t {
			for c := range nr {
				if c >= w {
					for p := range kb {
						dst[p*nr+c] = 0
					}
					continue
				}
				row := b.x[(jq+c)*b.ld+p0 : (jq+c)*b.ld+p0+kb]
				for p, v := range row {
					dst[p*nr+c] = v
				}
			}
			continue
		}
		if w < nr {
			for p := range kb {
				src := b.x[(p0+p)*b.ld+jq:]
				d := dst[p*nr : p*nr+nr]
				for c := range nr {
					d[c] = 0
					if c < w {
						d[c] = src[c]
					}
				}
			}
			continue
		}
		for p := range kb {
			src := b.x[(p0+p)*b.ld+jq : (p0+p)*b.ld+jq+nr : (p0+p)*b.ld+jq+nr]
			d := dst[p*nr : p*nr+nr : p*nr+nr]
			d[0], d[1], d[2], d[3] = src[0], src[1], src[2], src[3]
			d[4], d[5], d[6], d[7] = src[4], src[5], src[6], src[7]
		}
	}
}

// buffers are the packed blocks of one product, reused across calls.
type buffers struct {
	a, b   []float64
	blocks []int // blocksOf's rows
}

var bufPool = sync.Pool{New: func() any { return new(buffers) }}

// gemm adds alpha·op(A)·op(B) (m×k times k×n) to the part pt of the
// row-major m×n matrix c (row stride ldc); c's other entries are not
// touched. Independent tiles run on up to GOMAXPROCS goroutines when the
// product is large; each element's arithmetic is the same either way.
func gemm(pt part, m, n, k int, alpha float64, a, b operand, c []float64, ldc int) {
	gemmOn(maxWorkers, pt, m, n, k, alpha, a, b, c, ldc)
}

// gemmOn is gemm on at most most goroutines (1: the calling one alone).
func gemmOn(most int, pt part, m, n, k int, alpha float64, a, b operand, c []float64, ldc int) {
	if m == 0 || n == 0 || k == 0 || alpha == 0 {
		return
	}
	buf := bufPool.Get().(*buffers)
	defer bufPool.Put(buf)
	ncb := min(nc, roundUp(n, nr))
	if need := kc * ncb; len(buf.b) < need {
		buf.b = make([]float64, need)
	}
	workers := 1
	if float64(m)*float64(n)*float64(k) >= parallelWork {
		workers = min(runtime.GOMAXPROCS(0), maxWorkers, max(most, 1))
	}
	if need := workers * kc * mc; len(buf.a) < need {
		buf.a = make([]float64, need)
	}
	for j0 := 0; j0 < n; j0 += nc {
		nb := min(nc, n-j0)
		buf.blocks = blocksOf(buf.blocks[:0], pt, m, j0, nb)
		for p0 := 0; p0 < k; p0 += kc {
			kb := min(kc, k-p0)
			packB(buf.b, b, n, j0, nb, p0, kb)
			job := panelJob{pt: pt, m: m, j0: j0, nb: nb, p0: p0, kb: kb, alpha: alpha, a: a, buf: buf, c: c, ldc: ldc, workers: workers}
			if workers == 1 || len(buf.blocks) == 1 {
				job.workers = 1
				job.run(0)
				continue
			}
			shared := job // escapes to the goroutines: allocated on this branch only
			shared.runAll()
		}
	}
}

// panelJob is the work of gemm on one packed panel of B: the blocks of
// rows buf.blocks, block bi on worker bi mod workers.
type panelJob struct {
	pt                part
	m, j0, nb, p0, kb int
	alpha             float64
	a                 operand
	buf               *buffers
	c                 []float64
	ldc, workers      int
}

// run does worker w's blocks.
func (j *panelJob) run(w int) {
	ap := j.buf.a[w*kc*mc : (w+1)*kc*mc]
	for bi := w; bi < len(j.buf.blocks); bi += j.workers {
		i0 := j.buf.blocks[bi]
		mb := min(mc, j.m-i0)
		packA(ap, j.a, j.m, i0, mb, j.p0, j.kb)
		macro(j.pt, i0, mb, j.j0, j.nb, j.kb, j.alpha, ap, j.buf.b, j.c, j.ldc)
	}
}

// runAll runs the workers on their goroutines (worker 0 on this one).
func (j *panelJob) runAll() {
	var wg sync.WaitGroup
	for w := 1; w < j.workers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); j.run(w) }()
	}
	j.run(0)
	wg.Wait()
}

// blocksOf appends to out the first rows of the mc-row blocks of C that
// meet part pt within columns [j0, j0+nb).
func blocksOf(out []int, pt part, m, j0, nb int) []int {
	for i0 := 0; i0 < m; i0 += mc {
		mb := min(mc, m-i0)
		switch {
		case pt == upperPart && j0+nb-1 < i0:
			continue
		case pt == lowerPart && i0+mb-1 < j0:
			continue
		}
		out = append(out, i0)
	}
	return out
}

// parallelWork is the size m·n·k from which gemm splits its blocks of
// rows among goroutines, maxWorkers their most.
const (
	parallelWork = 1 << 24
	maxWorkers   = 8
)

func roundUp(x, to int) int { return (x + to - 1) / to * to }

// macro runs the micro-kernel over the tiles of the mb×nb block of C at
// (i0, j0) that meet part pt, from the packed ap (mb rows) and bp (nb
// columns) of kb steps. With AVX-512 three neighbouring full tiles of a row
// of tiles run as one 6×24 tile (kern6x24, useWide3), or two as one 6×16
// (kern6x16, useWide), each element's arithmetic that of kern6x8: every
// element of C is one tile's, whichever kernel runs it.
func macro(pt part, i0, mb, j0, nb, kb int, alpha float64, ap, bp, c []float64, ldc int) {
	var tmp [mr * nr]float64
	for jq := 0; jq*nr < nb; {
		g := 1 // tiles in a group
		switch {
		case useWide && useWide3 && (jq+3)*nr <= nb:
			g = 3
		case useWide && (jq+2)*nr <= nb:
			g = 2
		}
		for iq := 0; iq*mr < mb; iq++ {
			i, j := i0+iq*mr, j0+jq*nr
			if g > 1 && min(mr, mb-iq*mr) == mr && fullTiles(pt, i, j, g) {
				a := ap[iq*kb*mr : (iq+1)*kb*mr]
				b0, b1 := bp[jq*kb*nr:(jq+1)*kb*nr], bp[(jq+1)*kb*nr:(jq+2)*kb*nr]
				if g == 3 {
					kern6x24(kb, a, b0, b1, bp[(jq+2)*kb*nr:(jq+3)*kb*nr], c[i*ldc+j:], ldc, alpha)
				} else {
					kern6x16(kb, a, b0, b1, c[i*ldc+j:], ldc, alpha)
				}
				continue
			}
			for q := range g {
				tile(pt, i0, mb, j0, nb, kb, iq, jq+q, alpha, ap, bp, c, ldc, &tmp)
			}
		}
		jq += g
	}
}

// fullTiles says whether the g full-width tiles of C at (i, j), (i, j+8),
// … lie inside part pt whole.
func fullTiles(pt part, i, j, g int) bool {
	for q := range g {
		if _, full := tileOf(pt, i, j+q*nr, mr, nr); !full {
			return false
		}
	}
	return true
}

// tileOf says whether the mrows×ncols tile of C at (i, j) misses part pt
// (skip) or lies inside it whole (full).
func tileOf(pt part, i, j, mrows, ncols int) (skip, full bool) {
	switch pt {
	case upperPart:
		return j+ncols-1 < i, j >= i+mr-1
	case lowerPart:
		return i+mrows-1 < j, i >= j+nr-1
	}
	return false, true
}

// tile runs the micro-kernel on tile (iq, jq) of macro's block: straight
// into C when the tile is full and inside part pt, else through tmp and
// only the entries of the part.
func tile(pt part, i0, mb, j0, nb, kb, iq, jq int, alpha float64, ap, bp, c []float64, ldc int, tmp *[mr * nr]float64) {
	i, j := i0+iq*mr, j0+jq*nr
	mrows, ncols := min(mr, mb-iq*mr), min(nr, nb-jq*nr)
	skip, fullPart := tileOf(pt, i, j, mrows, ncols)
	if skip {
		return
	}
	a, b := ap[iq*kb*mr:(iq+1)*kb*mr], bp[jq*kb*nr:(jq+1)*kb*nr]
	if fullPart && mrows == mr && ncols == nr {
		kern6x8(kb, a, b, c[i*ldc+j:], ldc, alpha)
		return
	}
	clear(tmp[:])
	kern6x8(kb, a, b, tmp[:], nr, alpha)
	for r := range mrows {
		for cc := range ncols {
			if (pt == upperPart && j+cc < i+r) || (pt == lowerPart && j+cc > i+r) {
				continue
			}
			c[(i+r)*ldc+j+cc] += tmp[r*nr+cc]
		}
	}
}
