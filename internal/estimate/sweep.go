package estimate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/stats"
)

// streamSweep is the base of the PCG streams of Sweep.
const streamSweep = 0x5eed_5ee9_0000

// SweepOptions selects what Sweep does; sizes, repeats, λ, the seed and the
// number of workers come from the config (estimate.sweep_n,
// estimate.repeats, lambda, seed, workers).
type SweepOptions struct {
	// Methods are the estimators to run, in output order; nil means all.
	Methods []string
	// Progress, when not nil, receives a line on the data sets fitted so
	// far every ProgressEvery (default 5 s); nothing for a quick sweep.
	Progress      io.Writer
	ProgressEvery time.Duration
}

// SweepRow is the error of one method on one data set.
type SweepRow struct {
	Method         string
	N, Repeat      int
	FrobeniusError float64
	// HeldOutLogLik is the mean log-likelihood log P_Ŵ(s'|s, a) of the
	// method's model (sm, mle: the configured family; lds: s' ~ N(Ŵ phi, I))
	// on HeldOutN fresh transitions; NaN when the family has no
	// log-partition function (not a product family).
	HeldOutLogLik float64
	// RelativeEfficiency is MSE_mle / MSE_method at this n, MSE the mean
	// of |Ŵ − W0|_F² over the repeats (1 for mle; below 1 when the method
	// is less efficient than the MLE); NaN without an mle column. Filled
	// by Sweep.
	RelativeEfficiency float64
}

// HeldOutN is the number of held-out transitions of a sweep's held-out
// log-likelihood.
const HeldOutN = 1000

// streamHeldOut tags the PCG streams of the held-out transitions.
const streamHeldOut = 0x4e1d_0a7

// Sweep fits every method on fresh data for every n of
// config.Estimate.SweepN (ascending, duplicates dropped) and every repeat
// r < config.Estimate.Repeats. The data of (n, r) are drawn from
// rand.NewPCG(seed, SweepStream(n, r)), so they do not depend on the
// methods, the other sizes or the number of workers. The rows are in
// canonical order: method (in the order given), then n, then repeat.
func Sweep(ctx context.Context, c *config.Config, opt SweepOptions) ([]SweepRow, error) {
	methods, err := ParseMethods(opt.Methods)
	if err != nil {
		return nil, err
	}
	sizes, mdp, err := sweepSetup(c, methods)
	if err != nil {
		return nil, err
	}
	var jobs []sweepPoint
	for _, n := range sizes {
		for r := range c.Estimate.Repeats {
			jobs = append(jobs, sweepPoint{n, r})
		}
	}
	results, err := fitSweepJobs(ctx, c, mdp, methods, jobs, opt)
	if err != nil {
		return nil, err
	}
	rows := make([]SweepRow, 0, len(methods)*len(jobs))
	for m, name := range methods {
		for j, jb := range jobs {
			rows = append(rows, SweepRow{Method: name, N: jb.n, Repeat: jb.r, FrobeniusError: results[j][m].err, HeldOutLogLik: results[j][m].loglik})
		}
	}
	relativeEfficiency(rows)
	return rows, nil
}

// sweepSetup checks the sweep of c before any fit (sizes to sweep, memory
// of the largest, a true W0) and returns its sizes, ascending without
// duplicates, and its MDP.
func sweepSetup(c *config.Config, methods []string) ([]int, *env.MDP, error) {
	sizes := slices.Clone(c.Estimate.SweepN)
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if len(sizes) == 0 {
		return nil, nil, errs.Invalid(fmt.Errorf("estimate.sweep_n: no sample sizes to sweep"))
	}
	if err := checkMethodMemory(c, methods); err != nil {
		return nil, nil, err
	}
	if err := c.CheckDataMemory(sizes[len(sizes)-1]); err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("estimate.sweep_n: %w", err))
	}
	mdp, err := env.New(c)
	if err != nil {
		return nil, nil, errs.Invalid(err)
	}
	if mdp.True == nil {
		return nil, nil, errs.Invalid(fmt.Errorf("estimate.sweep_n: a sweep measures |Ŵ − W0|_F against the true model of env.kind expfam; env.kind %s has no true W0", c.Env.Kind))
	}
	return sizes, mdp, nil
}

// sweepPoint is one data set of the sweep: size n, repeat r.
type sweepPoint struct{ n, r int }

// fitSweepJobs fits every method on the data of every job, on c.Workers
// goroutines (all cores when <= 0), and returns results[j][m], the outcome
// of method m on job j. The first failing job (in job order) stops the
// others and its error is returned; a cancelled ctx returns an error
// wrapping errs.ErrInterrupted.
func fitSweepJobs(ctx context.Context, c *config.Config, mdp *env.MDP, methods []string, jobs []sweepPoint, opt SweepOptions) ([][]jobResult, error) {
	results := make([][]jobResult, len(jobs))
	errsAt := make([]error, len(jobs))
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	signal := ctx // a stop signal, not a failed job's cancel below
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var fitted atomic.Int64
	stop := heartbeat(opt.Progress, opt.ProgressEvery, func(el time.Duration) string {
		d := fitted.Load()
		eta := "?"
		if d > 0 {
			eta = time.Duration(el.Seconds() / float64(d) * float64(int64(len(jobs))-d) * float64(time.Second)).Round(time.Second).String()
		}
		return fmt.Sprintf("sweep: %d of %d data sets fitted, ETA %s", d, len(jobs), eta)
	})
	defer stop()
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				var res []jobResult
				err := errs.Protect(func() (err error) {
					res, err = runSweepJob(mdp, c, methods, jobs[j].n, jobs[j].r)
					return err
				})
				results[j], errsAt[j] = res, err
				fitted.Add(1)
				if err != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for j := range jobs {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	// A signal abandons the fits in flight, as smrl estimate's single fit:
	// they write only into results, which nobody reads after this returns,
	// and the sweep's file is written by the caller.
	if _, err := interruptible(signal, "the fits in flight were", func() (struct{}, error) {
		wg.Wait()
		return struct{}{}, nil
	}); err != nil {
		return nil, err
	}
	for _, err := range errsAt {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted(err)
	}
	return results, nil
}

// relativeEfficiency fills RelativeEfficiency of every row: MSE_mle(n) /
// MSE_method(n), NaN when there is no mle row at n or a zero MSE.
func relativeEfficiency(rows []SweepRow) {
	type key struct {
		m string
		n int
	}
	sum, cnt := map[key]float64{}, map[key]int{}
	for _, r := range rows {
		k := key{r.Method, r.N}
		sum[k] += r.FrobeniusError * r.FrobeniusError
		cnt[k]++
	}
	for i := range rows {
		r := &rows[i]
		mle, ok := cnt[key{"mle", r.N}]
		r.RelativeEfficiency = math.NaN()
		own := sum[key{r.Method, r.N}] / float64(cnt[key{r.Method, r.N}])
		if ok && mle > 0 && own > 0 {
			r.RelativeEfficiency = (sum[key{"mle", r.N}] / float64(mle)) / own
		}
	}
}

// jobResult is the outcome of one method on one data set.
type jobResult struct{ err, loglik float64 }

// SweepStream returns the PCG stream of the data of size n, repeat r.
func SweepStream(n, r int) uint64 {
	return splitmix(splitmix(streamSweep^uint64(n)) ^ uint64(r))
}

// splitmix is the SplitMix64 finaliser, a bijective mixer.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// runSweepJob is sweepJob; tests replace it to check that a panic in a
// worker becomes an error.
var runSweepJob = sweepJob

// sweepJob draws one data set and returns the error of every method (at
// the λ cross-validated on the data set when lambda is cv) and
// its held-out log-likelihood on HeldOutN transitions drawn from the
// stream splitmix(SweepStream(n, r) ^ streamHeldOut).
func sweepJob(mdp *env.MDP, c *config.Config, methods []string, n, r int) ([]jobResult, error) {
	data := Draw(mdp, n, rand.New(rand.NewPCG(c.Seed, SweepStream(n, r))))
	phi := Features(mdp, data)
	test := Draw(mdp, HeldOutN, rand.New(rand.NewPCG(c.Seed, splitmix(SweepStream(n, r)^streamHeldOut))))
	testPhi := Features(mdp, test)
	for _, d := range []*dataset.Transitions{data, test} {
		if err := checkDrawn(mdp, d); err != nil {
			return nil, fmt.Errorf("n = %d, repeat %d: %w", n, r, err)
		}
	}
	out := make([]jobResult, len(methods))
	lambda := c.Lambda
	if c.LambdaCV { // λ chosen on this data set, for every method
		cv, err := CrossValidate(mdp, phi, data, c.CV.Grid, c.CV.Folds, fmt.Sprintf("the data set of n = %d", n))
		if err != nil {
			return nil, fmt.Errorf("n = %d, repeat %d: %w", n, r, err)
		}
		lambda = cv.Lambda
	}
	for m, name := range methods {
		w, err := Fit(name, mdp, phi, data, lambda)
		if err != nil {
			return nil, fmt.Errorf("n = %d, repeat %d: %w", n, r, err)
		}
		out[m] = jobResult{Frobenius(w, mdp.True.W), HeldOutLogLik(name, mdp, w, testPhi, test)}
	}
	return out, nil
}

// HeldOutLogLik returns the mean log-likelihood of the transitions data
// (features phi) under the model of method with parameter w: the
// configured family for sm and mle (log q + <psi, Ŵ phi> − Z(Ŵ phi), Z by
// the family's quadrature), s' ~ N(Ŵ phi, I) for lds; NaN when the family
// is not a product family (no Z) or Z is not finite at some Ŵ phi.
func HeldOutLogLik(method string, mdp *env.MDP, w, phi []float64, data *dataset.Transitions) float64 {
	dphi := mdp.Model.Features.Dim()
	n := data.Len()
	var sum float64
	if method == "lds" {
		ds := data.StateDim
		eta := make([]float64, ds)
		for t := range n {
			linearRows(w, phi[t*dphi:(t+1)*dphi], eta)
			for k, x := range data.NextState(t) {
				d := x - eta[k]
				sum -= 0.5*d*d + 0.5*math.Log(2*math.Pi)
			}
		}
		return sum / float64(n)
	}
	dist, ok := mdp.Model.Family.(expfam.Blocked)
	if !ok {
		return math.NaN()
	}
	dpsi := dist.StatDim()
	eta := make([]float64, dpsi)
	psi := make([]float64, dpsi)
	blocks := dist.Blocks()
	widest := 0
	for _, m := range blocks {
		widest = max(widest, m)
	}
	grad, hess := make([]float64, widest), make([]float64, widest*widest)
	for t := range n {
		linearRows(w, phi[t*dphi:(t+1)*dphi], eta)
		var logZ float64
		row := 0
		for i, m := range blocks {
			a, ok := dist.BlockCumulants(i, eta[row:row+m], grad[:m], hess[:m*m])
			if !ok || math.IsInf(a, 0) || math.IsNaN(a) {
				return math.NaN()
			}
			logZ += a
			row += m
		}
		next := data.NextState(t)
		dist.Psi(next, psi)
		l := dist.LogBase(next) - logZ
		for k, e := range eta {
			l += e * psi[k]
		}
		sum += l
	}
	return sum / float64(n)
}

// linearRows writes eta = W phi for a row-major W with len(phi) columns.
func linearRows(w, phi, eta []float64) {
	d := len(phi)
	for k := range eta {
		var s float64
		for j, p := range phi {
			s += w[k*d+j] * p
		}
		eta[k] = s
	}
}

// SweepHeader is the header of the CSV written by WriteSweep;
// SweepHeaderV1 is the header of the files of earlier versions, which
// smrl also replaces.
const (
	SweepHeader   = "method,n,repeat,frobenius_error,held_out_loglik,relative_efficiency"
	SweepHeaderV1 = "method,n,repeat,frobenius_error"
)

// WriteSweep writes rows as CSV (SweepHeader, then one line per row,
// numbers in the shortest form that reads back exactly, NaN as an empty
// cell) to path, atomically (fsutil.WriteAtomic): on error path is left as
// it was.
func WriteSweep(path string, rows []SweepRow) error {
	var b bytes.Buffer
	b.WriteString(SweepHeader + "\n")
	num := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%d,%d,%s,%s,%s\n", r.Method, r.N, r.Repeat, num(r.FrobeniusError), num(r.HeldOutLogLik), num(r.RelativeEfficiency))
	}
	return fsutil.WriteFileAtomic(path, b.Bytes())
}

// Slope is the fitted exponent of a method's error: the least-squares slope
// of log(mean error over repeats) on log n. OK is false with fewer than two
// sizes or a zero mean error.
type Slope struct {
	Method string
	Slope  float64
	OK     bool
}

// Slopes fits one Slope per method, in the order the methods first appear in
// rows.
func Slopes(rows []SweepRow) []Slope {
	type key struct {
		m string
		n int
	}
	sum := map[key]float64{}
	cnt := map[key]int{}
	var methods []string
	sizes := map[string][]int{}
	for _, r := range rows {
		k := key{r.Method, r.N}
		if !slices.Contains(methods, r.Method) {
			methods = append(methods, r.Method)
		}
		if cnt[k] == 0 {
			sizes[r.Method] = append(sizes[r.Method], r.N)
		}
		sum[k] += r.FrobeniusError
		cnt[k]++
	}
	out := make([]Slope, 0, len(methods))
	for _, m := range methods {
		var xs, ys []float64
		ok := len(sizes[m]) >= 2
		for _, n := range sizes[m] {
			mean := sum[key{m, n}] / float64(cnt[key{m, n}])
			if !(mean > 0) {
				ok = false
				break
			}
			xs = append(xs, math.Log(float64(n)))
			ys = append(ys, math.Log(mean))
		}
		s := Slope{Method: m}
		if ok {
			_, s.Slope, s.OK = stats.LineFit(xs, ys)
		}
		out = append(out, s)
	}
	return out
}

// Efficiencies formats the relative efficiency of every method but mle
// per n ("sm n=100 0.37, n=1000 0.69"), methods separated by "; "; "" when
// the rows have no mle.
func Efficiencies(rows []SweepRow) string {
	var parts []string
	var cur string
	seen := map[[2]any]bool{}
	for _, r := range rows {
		if r.Method == "mle" || math.IsNaN(r.RelativeEfficiency) || seen[[2]any{r.Method, r.N}] {
			continue
		}
		seen[[2]any{r.Method, r.N}] = true
		if cur != r.Method {
			parts = append(parts, r.Method)
			cur = r.Method
		} else {
			parts[len(parts)-1] += ","
		}
		parts[len(parts)-1] += fmt.Sprintf(" n=%d %.3g", r.N, r.RelativeEfficiency)
	}
	return strings.Join(parts, "; ")
}
