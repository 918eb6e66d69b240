package estimator

import (
	"errors"
	"fmt"
	"math"
)

// ErrFolds is returned by CrossValidate when there are fewer transitions
// than folds or fewer than two folds.
var ErrFolds = errors.New("cross-validation needs at least 2 folds and at least one transition per fold")

// CVPoint is the held-out score-matching loss of one λ of a grid.
type CVPoint struct {
	Lambda float64
	// Loss is Σ_folds Σ_{t in fold} (½ ŵ_{−k}ᵀ V_t ŵ_{−k} + b_tᵀ ŵ_{−k}) / n,
	// +Inf when some fold's system V_{−k} + λI is singular.
	Loss float64
}

// CV is the outcome of CrossValidate.
type CV struct {
	Points []CVPoint
	// Best indexes the point of smallest loss (the first of equal ones).
	Best int
	// All holds V_n and b_n of every transition (the sum of the folds'),
	// ready for the final fit at Points[Best].Lambda.
	All *SM
}

// Empty returns an accumulator with no transitions for the same family,
// features, weights and kink terms as e.
func (e *SM) Empty() *SM {
	o := NewSM(e.fam, e.dphi)
	if e.weights != nil {
		if err := o.SetWeights(e.weights); err != nil {
			panic(err) // e accepted the same weights
		}
	}
	o.kinks = append([]kinkTerm(nil), e.kinks...)
	o.kw = make([]float64, len(e.kinks))
	return o
}

// merge adds the statistics of o (an accumulator of the same shape) to e.
func (e *SM) merge(o *SM) {
	e.n += o.n
	for i, b := range o.blocks {
		for j, x := range b {
			e.blocks[i][j] += x
		}
	}
	for j, x := range o.b {
		e.b[j] += x
	}
}

// N is the number of transitions added.
func (e *SM) N() int { return e.n }

// Objective returns the empirical score-matching loss of the transitions
// added to e at w = vec(W),
//
//	J_n(w) = ½ wᵀ V_n w + b_nᵀ w = Σ_t (½ wᵀ V_t w + b_tᵀ w),
//
// evaluated on the structured blocks of V_n (no d×d matrix).
func (e *SM) Objective(w []float64) float64 {
	var q float64
	dphi := e.dphi
	switch {
	case e.constant:
		for k := range e.dpsi {
			q += e.constC * quadUpper(e.blocks[0], w[k*dphi:(k+1)*dphi])
		}
	case e.sep != nil:
		for k := range e.dpsi {
			q += quadUpper(e.blocks[k], w[k*dphi:(k+1)*dphi])
		}
	case e.blk != nil:
		for i, b := range e.blocks {
			q += quadUpper(b, w[e.off[i]*dphi:e.off[i+1]*dphi])
		}
	default:
		q = quadUpper(e.blocks[0], w)
	}
	var l float64
	for j, x := range e.b {
		l += x * w[j]
	}
	return q/2 + l
}

// quadUpper returns wᵀ A w for the symmetric A given by its upper triangle
// (row-major, len(w)×len(w)).
func quadUpper(a, w []float64) float64 {
	n := len(w)
	var s float64
	for i, wi := range w {
		row := a[i*n : (i+1)*n]
		var t float64
		for j := i + 1; j < n; j++ {
			t += row[j] * w[j]
		}
		s += wi * (row[i]*wi + 2*t)
	}
	return s
}

// CrossValidate scores every λ of grid by K-fold held-out score-matching
// loss on the n transitions data. The folds are contiguous blocks of the
// data in order, fold k holding transitions [k·n/K, (k+1)·n/K); ŵ_{−k}(λ)
// = −(V_{−k} + λI)⁻¹ b_{−k} is fitted on the other folds and scored on fold
// k by J_k(ŵ_{−k}) = Σ_{t in k} (½ ŵᵀ V_t ŵ + b_tᵀ ŵ); a point's loss is the
// sum over folds divided by n.
//
// V and b are additive, so the data are passed once (the per-fold sums, by
// the same Add as a fit); each (fold, λ) costs one factorisation of the
// structured blocks and no pass over the data. proto gives the family,
// features and kink terms (Empty); its own statistics are not used. The
// grid must be non-empty with finite values >= 0; a singular fold system
// gives that point an infinite loss, and every point infinite is
// ErrSingular.
func CrossValidate(proto *SM, n int, data Data, folds int, grid []float64) (*CV, error) {
	if folds < 2 || n < folds {
		return nil, fmt.Errorf("score matching cross-validation: %d transitions in %d folds: %w", n, folds, ErrFolds)
	}
	if len(grid) == 0 {
		return nil, fmt.Errorf("score matching cross-validation: empty λ grid")
	}
	for _, l := range grid {
		if !(l >= 0) || math.IsInf(l, 0) {
			return nil, fmt.Errorf("score matching cross-validation: λ must be a finite number >= 0, got %v", l)
		}
	}
	part := make([]*SM, folds)
	for k := range part {
		part[k] = proto.Empty()
		for t := k * n / folds; t < (k+1)*n/folds; t++ {
			part[k].Add(data(t))
		}
	}
	cv := &CV{Points: make([]CVPoint, len(grid)), All: proto.Empty()}
	for _, p := range part {
		cv.All.merge(p)
	}
	for i, l := range grid {
		cv.Points[i].Lambda = l
	}
	rest := proto.Empty()
	for k, held := range part {
		clear(rest.b)
		for _, b := range rest.blocks {
			clear(b)
		}
		rest.n = 0
		for j, p := range part {
			if j != k {
				rest.merge(p)
			}
		}
		for i, l := range grid {
			if math.IsInf(cv.Points[i].Loss, 1) {
				continue
			}
			f, err := rest.Fit(l)
			if errors.Is(err, ErrSingular) {
				cv.Points[i].Loss = math.Inf(1)
				continue
			}
			if err != nil {
				return nil, err
			}
			cv.Points[i].Loss += held.Objective(f.W)
		}
	}
	cv.Best = -1
	for i := range cv.Points {
		p := &cv.Points[i]
		if math.IsInf(p.Loss, 1) {
			continue
		}
		p.Loss /= float64(n)
		if cv.Best < 0 || p.Loss < cv.Points[cv.Best].Loss {
			cv.Best = i
		}
	}
	if cv.Best < 0 {
		return nil, fmt.Errorf("score matching cross-validation: every λ of the grid %v leaves a fold's system singular: %w", grid, ErrSingular)
	}
	return cv, nil
}
