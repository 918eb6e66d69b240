package estimator

import (
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
