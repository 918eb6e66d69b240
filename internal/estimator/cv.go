package estimator

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrFolds is returned by a cross-validation (CrossValidate,
// CrossValidateLDS, MLE.CrossValidate) when there are fewer transitions
// than folds or fewer than two folds.
var ErrFolds = errors.New("cross-validation needs at least 2 folds and at least one transition per fold")

// CVPoint is the held-out loss of one λ of a grid: for CrossValidate the
// score-matching loss Σ_folds Σ_{t in fold} (½ ŵ_{−k}ᵀ V_t ŵ_{−k} +
// b_tᵀ ŵ_{−k}) / n, for CrossValidateLDS that of the LDS model, for
// MLE.CrossValidate the negative log-likelihood. It is +Inf when some
// fold's fit does not exist at λ (a singular system V_{−k} + λI, a Newton
// fit that does not converge).
type CVPoint struct {
	Lambda float64
	Loss   float64
}

// CV is the outcome of a cross-validation.
type CV struct {
	Points []CVPoint
	// Best indexes the point of smallest loss (the first of equal ones).
	Best int
	// All, of CrossValidate, holds V_n and b_n of every transition (the
	// sum of the folds'), ready for the final fit at Points[Best].Lambda;
	// nil for the other cross-validations.
	All *SM
}

// Lambda is the chosen λ, that of the smallest loss.
func (cv *CV) Lambda() float64 { return cv.Points[cv.Best].Lambda }

// Empty returns an accumulator with no transitions for the same family,
// features, weights, kink terms and information floor as e.
func (e *SM) Empty() *SM {
	o := NewSM(e.fam, e.dphi)
	if e.weights != nil {
		if err := o.SetWeights(e.weights); err != nil {
			panic(err) // e accepted the same weights
		}
	}
	o.kinks = append([]kinkTerm(nil), e.kinks...)
	o.kw = make([]float64, len(e.kinks))
	o.floor = e.floor
	return o
}

// merge adds the statistics of o (an accumulator of the same shape) to e.
func (e *SM) merge(o *SM) {
	e.flush()
	o.flush()
	e.cv.merge(e.n, &o.cv, o.n)
	e.n += o.n
	for i, j := range e.alias {
		if j >= 0 && o.alias[i] != j {
			e.unalias(i) // before block j takes o's sums
		}
	}
	for i, b := range o.blocks {
		if e.alias != nil && e.alias[i] >= 0 {
			continue // o's block i is its block j, added to e's block j
		}
		for j, x := range b {
			e.blocks[i][j] += x
		}
	}
	for j, x := range o.b {
		e.b[j] += x
	}
}

// reset removes every transition from e.
func (e *SM) reset() {
	e.pend.n, e.bpend.n = 0, 0
	e.n = 0
	e.cv = curvature{}
	clear(e.b)
	for _, b := range e.blocks {
		clear(b)
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
	e.flush()
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
	const what = "score matching cross-validation"
	if err := checkFolds(what, n, folds, grid); err != nil {
		return nil, err
	}
	f := newAdditiveFolds(proto, n, data, folds)
	points, best, err := scoreGrid(what, f, n, folds, grid)
	if err != nil {
		return nil, err
	}
	return &CV{Points: points, Best: best, All: f.all()}, nil
}

// additive are statistics that add over transitions, from which a fit at
// any λ and the held-out loss of any W follow without a pass over the
// data: SM (V, b) and ldsFolds (G, Y).
type additive[T any] interface {
	Add(phi, next []float64)
	// Empty returns statistics of the same shape without transitions.
	Empty() T
	merge(o T)
	reset()
	Fit(lambda float64) (*Fit, error)
	// Objective is the loss of the transitions added at w = vec(W).
	Objective(w []float64) float64
}

// additiveFolds scores the folds of additive statistics: part[k] holds the
// sums of fold k, rest those of every other fold (train).
type additiveFolds[T additive[T]] struct {
	part []T
	rest T
}

// newAdditiveFolds passes over the n transitions once, summing each of the
// folds contiguous blocks into its own statistics (empty copies of proto).
func newAdditiveFolds[T additive[T]](proto T, n int, data Data, folds int) *additiveFolds[T] {
	f := &additiveFolds[T]{part: make([]T, folds), rest: proto.Empty()}
	for k := range f.part {
		f.part[k] = proto.Empty()
		for t := k * n / folds; t < (k+1)*n/folds; t++ {
			f.part[k].Add(data(t))
		}
	}
	return f
}

// all returns the statistics of every transition: the sum of the folds'.
func (f *additiveFolds[T]) all() T {
	a := f.rest.Empty()
	for _, p := range f.part {
		a.merge(p)
	}
	return a
}

func (f *additiveFolds[T]) train(k int) error {
	f.rest.reset()
	for j, p := range f.part {
		if j != k {
			f.rest.merge(p)
		}
	}
	return nil
}

func (f *additiveFolds[T]) loss(k int, lambda float64) (float64, error) {
	fit, err := f.rest.Fit(lambda)
	if err != nil {
		return 0, err
	}
	defer fit.Release() // its factor serves the next λ's and fold's fits
	return f.part[k].Objective(fit.W), nil
}

// folder is what scoreGrid needs of an estimator: train(k) prepares the fit
// on every fold but k; loss(k, λ) fits at λ on them and returns the
// held-out loss of fold k, failing with ErrSingular or ErrNoConvergence
// where that fit does not exist.
type folder interface {
	train(k int) error
	loss(k int, lambda float64) (float64, error)
}

// checkFolds checks the arguments of a cross-validation of n transitions.
func checkFolds(what string, n, folds int, grid []float64) error {
	if folds < 2 || n < folds {
		return fmt.Errorf("%s: %d transitions in %d folds: %w", what, n, folds, ErrFolds)
	}
	if len(grid) == 0 {
		return fmt.Errorf("%s: empty λ grid", what)
	}
	for _, l := range grid {
		if !(l >= 0) || math.IsInf(l, 0) {
			return fmt.Errorf("%s: λ must be a finite number >= 0, got %v", what, l)
		}
	}
	return nil
}

// scoreGrid is the fold rule every cross-validation shares: for each fold
// k in order and each λ of grid in order, the held-out loss of fold k of
// the fit on the others; a point's loss is the sum over folds divided by n,
// +Inf once a fold's fit fails with ErrSingular or ErrNoConvergence (or its
// loss is not finite), and the later folds skip it. best indexes the
// smallest loss, the first of equal ones; every point infinite is an error,
// wrapping the last failed fit's when there was one.
func scoreGrid(what string, f folder, n, folds int, grid []float64) (points []CVPoint, best int, err error) {
	points = make([]CVPoint, len(grid))
	for i, l := range grid {
		points[i].Lambda = l
	}
	var failed error // the last fit that did not exist
	for k := range folds {
		if err := f.train(k); err != nil {
			return nil, 0, err
		}
		for i, l := range grid {
			if math.IsInf(points[i].Loss, 1) {
				continue
			}
			v, err := f.loss(k, l)
			if errors.Is(err, ErrSingular) || errors.Is(err, ErrNoConvergence) {
				failed = err
				v = math.Inf(1)
			} else if err != nil {
				return nil, 0, err
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				points[i].Loss = math.Inf(1)
				continue
			}
			points[i].Loss += v
		}
	}
	best = -1
	for i := range points {
		p := &points[i]
		if math.IsInf(p.Loss, 1) {
			continue
		}
		p.Loss /= float64(n)
		if best < 0 || p.Loss < points[best].Loss {
			best = i
		}
	}
	if best < 0 && failed != nil {
		return nil, 0, fmt.Errorf("%s: every λ of the grid %v leaves a fold without a fit (the last: %w)", what, grid, failed)
	}
	if best < 0 {
		return nil, 0, fmt.Errorf("%s: every λ of the grid %v gives a fold an infinite held-out loss", what, grid)
	}
	return points, best, nil
}

// CrossValidateLDS is CrossValidate for ridge least squares (LDS, Fit) of
// the Gaussian model s' = W phi + N(0, diag(σ²)) on the n transitions
// data, with the same fold rule. The held-out loss of fold k is the
// score-matching loss of that model without its W-free terms:
// ½ |∂_{s'} log p_W(s')|² + Δ_{s'} log p_W(s') = Σ_i σ_i⁻⁴ ½ (s'_i − w_i·phi)²
// − Σ_i σ_i⁻², so that, dropping Σ_i σ_i⁻⁴ s'_i²/2 and Σ_i σ_i⁻²,
//
//	J_k(Ŵ) = Σ_{t in k} Σ_i σ_i⁻⁴ (½ (ŵ_i·phi_t)² − s'_{t,i} ŵ_i·phi_t)
//	       = Σ_i σ_i⁻⁴ (½ ŵ_iᵀ G_k ŵ_i − ŵ_i·Y_{k,i}),
//
// ŵ_i the rows of Ŵ_{−k}(λ) = Y_{−k} (G_{−k} + λI)⁻¹ and G_k, Y_k the sums
// of fold k: the held-out squared error weighted by σ_i⁻⁴, up to a term
// free of W (so its argmin is that of the held-out squared error when
// every σ_i is the same). G and Y are additive: the data are passed once
// and each (fold, λ) costs one d_phi×d_phi factorisation. proto gives d_s
// and d_phi; its own statistics are not used. sigma holds σ_i for each of
// the d_s coordinates; nil means 1.
func CrossValidateLDS(proto *LDS, n int, data Data, folds int, grid []float64, sigma []float64) (*CV, error) {
	const what = "least squares cross-validation"
	if err := checkFolds(what, n, folds, grid); err != nil {
		return nil, err
	}
	wt := make([]float64, proto.ds)
	for i := range wt {
		wt[i] = 1
	}
	if sigma != nil {
		if len(sigma) != proto.ds {
			return nil, fmt.Errorf("%s: %d noise scales for %d state coordinates", what, len(sigma), proto.ds)
		}
		for i, s := range sigma {
			if !(s > 0) || math.IsInf(s, 0) {
				return nil, fmt.Errorf("%s: noise scale σ_%d must be a finite number > 0, got %v", what, i, s)
			}
			wt[i] = 1 / (s * s * s * s)
		}
	}
	f := newAdditiveFolds(&ldsFolds{LDS: NewLDS(proto.ds, proto.dphi), wt: wt}, n, data, folds)
	points, best, err := scoreGrid(what, f, n, folds, grid)
	if err != nil {
		return nil, err
	}
	return &CV{Points: points, Best: best}, nil
}

// ldsFolds is LDS with the row weights σ_i⁻⁴ of its held-out loss, the
// additive statistics of CrossValidateLDS.
type ldsFolds struct {
	*LDS
	wt []float64
}

func (f *ldsFolds) Empty() *ldsFolds { return &ldsFolds{LDS: NewLDS(f.ds, f.dphi), wt: f.wt} }

func (f *ldsFolds) merge(o *ldsFolds) {
	f.flush()
	o.flush()
	f.n += o.n
	for j, x := range o.g {
		f.g[j] += x
	}
	for j, x := range o.y {
		f.y[j] += x
	}
}

func (f *ldsFolds) reset() {
	f.pend.n = 0
	f.n = 0
	clear(f.g)
	clear(f.y)
}

// Objective returns Σ_i σ_i⁻⁴ (½ w_iᵀ G w_i − w_i·Y_i) of the transitions
// added, w = vec(W) (see CrossValidateLDS).
func (f *ldsFolds) Objective(w []float64) float64 {
	f.flush()
	var l float64
	for i, s := range f.wt {
		wi, yi := w[i*f.dphi:(i+1)*f.dphi], f.y[i*f.dphi:(i+1)*f.dphi]
		var lin float64
		for j, x := range wi {
			lin += x * yi[j]
		}
		l += s * (quadUpper(f.g, wi)/2 - lin)
	}
	return l
}

// CrossValidate scores every λ of grid by K-fold held-out negative
// log-likelihood on the n transitions added to e, with the fold rule of
// CrossValidate (contiguous blocks in order; a point's loss is the sum
// over folds divided by n). Ŵ_{−k}(λ) maximises the penalised likelihood
// of the other folds (Fit), and fold k scores
//
//	L_k(Ŵ) = Σ_{t in k} Z(Ŵ phi_t) − <psi(s'_t), Ŵ phi_t>,
//
// that is −Σ_{t in k} log P_Ŵ(s'_t | s_t, a_t) without the W-free
// Σ log q(s'_t). λ penalises the likelihood, so the held-out likelihood is
// the criterion that scores what the estimator fits (a proper scoring
// rule), and needs no score-matching weights. The likelihood has no finite
// sufficient statistic: each (fold, λ) is a Newton fit on (K−1)/K of the
// transitions; the first λ of every fold starts at start (nil: as Fit
// starts), each later one at the fold's previous estimate. A fold fit
// that does not converge, or a held-out transition at which the family is
// not normalisable, gives the point an infinite loss.
func (e *MLE) CrossValidate(folds int, grid []float64, start []float64) (*CV, error) {
	const what = "maximum likelihood cross-validation"
	n := e.N()
	if err := checkFolds(what, n, folds, grid); err != nil {
		return nil, err
	}
	m := slices.Max(e.blocks)
	f := &mleFolds{e: e, n: n, folds: folds, start: start,
		rest: &MLE{dist: e.dist, dpsi: e.dpsi, dphi: e.dphi, blocks: e.blocks, buf: make([]float64, e.dpsi)},
		eta:  make([]float64, m), mean: make([]float64, m), cov: make([]float64, m*m)}
	points, best, err := scoreGrid(what, f, n, folds, grid)
	if err != nil {
		return nil, err
	}
	return &CV{Points: points, Best: best}, nil
}

// mleFolds scores the folds of MLE.CrossValidate: rest holds the
// transitions of every fold but the held-out one, prev the warm start.
type mleFolds struct {
	e, rest        *MLE
	n, folds       int
	start, prev    []float64
	eta, mean, cov []float64
}

// rows returns the transitions [lo, hi) of fold k.
func (f *mleFolds) rows(k int) (lo, hi int) { return k * f.n / f.folds, (k + 1) * f.n / f.folds }

func (f *mleFolds) train(k int) error {
	lo, hi := f.rows(k)
	e, r := f.e, f.rest
	ds := e.dist.StateDim()
	r.phi = append(append(r.phi[:0], e.phi[:lo*e.dphi]...), e.phi[hi*e.dphi:]...)
	r.psi = append(append(r.psi[:0], e.psi[:lo*e.dpsi]...), e.psi[hi*e.dpsi:]...)
	r.next = append(append(r.next[:0], e.next[:lo*ds]...), e.next[hi*ds:]...)
	f.prev = f.start
	return nil
}

func (f *mleFolds) loss(k int, lambda float64) (float64, error) {
	fit, err := f.rest.Fit(lambda, f.prev)
	if err != nil {
		return 0, err
	}
	f.prev = fit.W
	lo, hi := f.rows(k)
	return f.e.negLogLik(fit.W, lo, hi, f.eta, f.mean, f.cov), nil
}

// negLogLik returns Σ_t Z(W phi_t) − <psi_t, W phi_t> over the stored
// transitions [lo, hi), +Inf where the family is not normalisable; eta,
// mean and cov are scratch for the largest block.
func (e *MLE) negLogLik(w []float64, lo, hi int, eta, mean, cov []float64) float64 {
	dphi := e.dphi
	var l float64
	for t := lo; t < hi; t++ {
		phi := e.phi[t*dphi : (t+1)*dphi]
		psi := e.psi[t*e.dpsi : (t+1)*e.dpsi]
		row := 0
		for i, m := range e.blocks {
			for k := range m {
				wk := w[(row+k)*dphi : (row+k+1)*dphi]
				var v float64
				for j, p := range phi {
					v += wk[j] * p
				}
				eta[k] = v
				l -= psi[row+k] * v
			}
			a, ok := e.dist.BlockCumulants(i, eta[:m], mean[:m], cov[:m*m])
			if !ok {
				return math.Inf(1)
			}
			l += a
			row += m
		}
	}
	return l
}
