package estimator

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/smrl-dev/smrl/internal/linalg"
)

func init() { linalg.Install() }

// blockedMin is the number of features from which the Gram statistics
// (the Gaussian family's shared block of SM, LDS's G) are accumulated in
// blocks of blockRows transitions by level-3 products instead of one
// rank-1 update per transition, and the fits solve all rows of W in one
// call. Below it (the paper's features, CartPole's, the pendulum's 200
// random features) every sum keeps the bits of the per-transition order.
const (
	blockedMin = linalg.MinPotrf
	blockRows  = 128
)

// pending holds the transitions of a block not yet added to the sums
// G = Σ φφᵀ (upper triangle) and Y = Σ y φᵀ (rows of y): their features
// (rows×d_phi) and their y (rows×d_y: SM's ξ(s'), LDS's s'). flush adds
// them with one symmetric rank-k update and one product,
//
//	G += Φᵀ Φ,   Y += Yᵀ Φ,
//
// so the sums differ from the per-transition order in the last digits
// only (TestBlockedStatisticsMatchDense). The flush points depend only on
// the order of the calls, so results stay the same for any --workers.
type pending struct {
	phi, y   []float64
	dphi, dy int
	n        int
}

// newPending returns the block of a d_phi-feature accumulator, or an
// inactive one (on() false) below blockedMin.
func newPending(dphi, dy int) pending {
	if dphi < blockedMin {
		return pending{}
	}
	return pending{phi: make([]float64, blockRows*dphi), y: make([]float64, blockRows*dy), dphi: dphi, dy: dy}
}

func (p *pending) on() bool { return p.phi != nil }

// add stores one transition and reports whether the block is full.
func (p *pending) add(phi, y []float64) bool {
	copy(p.phi[p.n*p.dphi:(p.n+1)*p.dphi], phi)
	copy(p.y[p.n*p.dy:(p.n+1)*p.dy], y)
	p.n++
	return p.n == blockRows
}

// flush adds the stored transitions to g (d_phi×d_phi, upper triangle) and
// y (d_y×d_phi) and empties the block.
func (p *pending) flush(g, y []float64) {
	if p.n == 0 {
		return
	}
	d := p.dphi
	phi := blas64.General{Rows: p.n, Cols: d, Stride: d, Data: p.phi[:p.n*d]}
	blas64.Syrk(blas.Trans, 1, phi, 1, blas64.Symmetric{N: d, Stride: d, Data: g, Uplo: blas.Upper})
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: p.n, Cols: p.dy, Stride: p.dy, Data: p.y[:p.n*p.dy]},
		phi, 1, blas64.General{Rows: p.dy, Cols: d, Stride: d, Data: y})
	p.n = 0
}

// blockPending is pending for the Blocked layout of SM when every block
// is one statistic (a product of one-parameter coordinates: the Gaussian
// learners' product of GaussCoord, weighted or not): block i of V takes
// w_ti φ_t φ_tᵀ from transition t, w_ti = h_i g_i² its weight (0 when h_i
// = 0). flush adds a block's rows as one symmetric rank-k update,
//
//	V_i += c Φᵀ Φ              when every w_ti of the block is the same c
//	                           (the Gaussian family: c = 1/σ⁴),
//	V_i += (D^{1/2}Φ)ᵀ(D^{1/2}Φ)  otherwise, D = diag(w_·i),
//
// for the blocks that own their storage (alias < 0): a block sharing
// another's sums (SM.alias) takes nothing of its own, as per transition.
// b stays per transition. A transition with a negative weight is not
// stored (add reports false) and goes the per-transition way.
type blockPending struct {
	phi, w, scaled []float64
	dphi, nb, n    int
}

// newBlockPending returns the block of a layout with statistics per block
// ms, inactive (on() false) below blockedMin features or when a block has
// more than one statistic.
func newBlockPending(dphi int, ms []int) blockPending {
	if dphi < blockedMin {
		return blockPending{}
	}
	for _, m := range ms {
		if m != 1 {
			return blockPending{}
		}
	}
	return blockPending{phi: make([]float64, blockRows*dphi), w: make([]float64, blockRows*len(ms)),
		scaled: make([]float64, blockRows*dphi), dphi: dphi, nb: len(ms)}
}

func (p *blockPending) on() bool { return p.phi != nil }

// add stores a transition with features phi and block weights c[i]
// (SM.ci, one entry per block) where h[i] ≠ 0; it reports false, storing
// nothing, when a weight of an owning block is negative.
func (p *blockPending) add(phi, c, h []float64, alias []int) bool {
	w := p.w[p.n*p.nb : (p.n+1)*p.nb]
	for i := range w {
		w[i] = 0
		if h[i] != 0 {
			w[i] = c[i]
		}
		if alias[i] < 0 && w[i] < 0 {
			return false
		}
	}
	copy(p.phi[p.n*p.dphi:(p.n+1)*p.dphi], phi)
	p.n++
	return true
}

// flush adds the stored transitions to the owning blocks of v and
// empties the block.
func (p *blockPending) flush(v [][]float64, alias []int) {
	if p.n == 0 {
		return
	}
	d := p.dphi
	for i, vi := range v {
		if alias[i] >= 0 {
			continue
		}
		c, same := p.w[i], true
		for r := 1; r < p.n; r++ {
			same = same && p.w[r*p.nb+i] == c
		}
		src := p.phi
		if !same {
			c, src = 1, p.scaled
			for r := range p.n {
				s := math.Sqrt(p.w[r*p.nb+i])
				dst, row := p.scaled[r*d:(r+1)*d], p.phi[r*d:(r+1)*d]
				for j, x := range row {
					dst[j] = s * x
				}
			}
		}
		if c == 0 {
			continue
		}
		blas64.Syrk(blas.Trans, c, blas64.General{Rows: p.n, Cols: d, Stride: d, Data: src[:p.n*d]},
			1, blas64.Symmetric{N: d, Stride: d, Data: vi, Uplo: blas.Upper})
	}
	p.n = 0
}
