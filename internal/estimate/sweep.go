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
	"sync"
	"sync/atomic"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
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
}

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
	sizes := slices.Clone(c.Estimate.SweepN)
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if len(sizes) == 0 {
		return nil, errs.Invalid(fmt.Errorf("estimate.sweep_n: no sample sizes to sweep"))
	}
	repeats := c.Estimate.Repeats
	if err := checkMethodMemory(c, methods); err != nil {
		return nil, err
	}
	if err := c.CheckDataMemory(sizes[len(sizes)-1]); err != nil {
		return nil, errs.Invalid(fmt.Errorf("estimate.sweep_n: %w", err))
	}
	mdp, err := env.New(c)
	if err != nil {
		return nil, errs.Invalid(err)
	}

	type job struct{ n, r int }
	var jobs []job
	for _, n := range sizes {
		for r := range repeats {
			jobs = append(jobs, job{n, r})
		}
	}
	// results[j][m] is the error of method m on job j.
	results := make([][]float64, len(jobs))
	errsAt := make([]error, len(jobs))

	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
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
				var res []float64
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
	wg.Wait()
	for _, err := range errsAt {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted(err)
	}
	rows := make([]SweepRow, 0, len(methods)*len(jobs))
	for m, name := range methods {
		for j, jb := range jobs {
			rows = append(rows, SweepRow{Method: name, N: jb.n, Repeat: jb.r, FrobeniusError: results[j][m]})
		}
	}
	return rows, nil
}

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

// sweepJob draws one data set and returns the error of every method.
func sweepJob(mdp *env.MDP, c *config.Config, methods []string, n, r int) ([]float64, error) {
	data := Draw(mdp, n, rand.New(rand.NewPCG(c.Seed, SweepStream(n, r))))
	phi := Features(mdp, data)
	out := make([]float64, len(methods))
	for m, name := range methods {
		w, err := Fit(name, mdp, phi, data, c.Lambda)
		if err != nil {
			return nil, fmt.Errorf("n = %d, repeat %d: %w", n, r, err)
		}
		out[m] = Frobenius(w, mdp.True.W)
	}
	return out, nil
}

// SweepHeader is the header of the CSV written by WriteSweep.
const SweepHeader = "method,n,repeat,frobenius_error"

// WriteSweep writes rows as CSV (SweepHeader, then one line per row, the
// error in the shortest form that reads back exactly) to path, atomically
// (fsutil.WriteAtomic): on error path is left as it was.
func WriteSweep(path string, rows []SweepRow) error {
	var b bytes.Buffer
	b.WriteString(SweepHeader + "\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%d,%d,%s\n", r.Method, r.N, r.Repeat, strconv.FormatFloat(r.FrobeniusError, 'g', -1, 64))
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
