package aggregate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
)

// Metric names, in the order of aggregate.csv.
const (
	Mean          = "mean"
	Median        = "median"
	IQM           = "iqm"
	OptimalityGap = "optimality_gap"
)

// Metrics lists the metrics of aggregate.csv in order.
var Metrics = []string{Mean, Median, IQM, OptimalityGap}

// ProfilePoints is the number of thresholds τ of the performance profile.
const ProfilePoints = 51

// ErrNoScores is returned for data without any score.
var ErrNoScores = errors.New("no scores to aggregate")

// Stratum holds the per-seed scores of every agent of one run (one point
// of a sweep): Scores[agent][i] is the score of seed Seeds[agent][i].
type Stratum struct {
	Scores map[string][]float64
	Seeds  map[string][]int
}

// FromRows returns the stratum of a run from its rows (episodes.csv, in
// canonical order) with the score of st: the mean reward per episode of
// each (agent, seed), or with st.Score "final" the mean over its last
// st.FinalEpisodes episodes (all of them when it has fewer). Agents are
// returned in row order.
func FromRows(rows []results.Row, st config.Stats) (Stratum, []string) {
	s := Stratum{Scores: map[string][]float64{}, Seeds: map[string][]int{}}
	var agents []string
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Agent == rows[i].Agent && rows[j].Seed == rows[i].Seed {
			j++
		}
		from := i
		if st.Score == "final" && j-i > st.FinalEpisodes {
			from = j - st.FinalEpisodes
		}
		var sum float64
		for _, r := range rows[from:j] {
			sum += r.Reward
		}
		a := rows[i].Agent
		if _, ok := s.Scores[a]; !ok {
			agents = append(agents, a)
		}
		s.Scores[a] = append(s.Scores[a], sum/float64(j-from))
		s.Seeds[a] = append(s.Seeds[a], rows[i].Seed)
		i = j
	}
	return s, agents
}

// Estimate is a value with its 95% bootstrap interval.
type Estimate struct{ Value, Lo, Hi float64 }

// MetricRow is one row of aggregate.csv.
type MetricRow struct {
	Agent, Metric string
	Estimate
}

// ImprovementRow is one row of improvement.csv: the probability that a run
// of X scores higher than a run of Y.
type ImprovementRow struct {
	X, Y string
	Estimate
}

// ProfileRow is one row of profile.csv: the fraction of an agent's runs
// with score > Tau.
type ProfileRow struct {
	Agent string
	Tau   float64
	Estimate
}

// Result holds the contents of the three files.
type Result struct {
	Metrics     []MetricRow
	Improvement []ImprovementRow
	Profile     []ProfileRow
}

// Compute returns the aggregate metrics of agents (in that order) over the
// strata with reps bootstrap replicates drawn from streams keyed by seed
// (see the package documentation). Every agent must have at least one
// score in every stratum.
func Compute(strata []Stratum, agents []string, reps int, seed uint64) (*Result, error) {
	if reps < 1 {
		return nil, fmt.Errorf("aggregate: %d bootstrap replicates, want >= 1", reps)
	}
	if len(strata) == 0 || len(agents) == 0 {
		return nil, ErrNoScores
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, s := range strata {
		for _, a := range agents {
			if len(s.Scores[a]) == 0 {
				return nil, fmt.Errorf("aggregate: agent %s has no score in stratum %d: %w", a, k, ErrNoScores)
			}
			for _, x := range s.Scores[a] {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("aggregate: agent %s has the score %v", a, x)
				}
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	taus := []float64{lo} // every score equal: one threshold
	if hi > lo {
		taus = make([]float64, ProfilePoints)
		for i := range taus {
			taus[i] = lo + (hi-lo)*float64(i)/float64(ProfilePoints-1)
		}
	}
	// Each agent and each ordered pair draws from its own stream (stream),
	// so they run in parallel and are put together in order: the same
	// result on any number of cores.
	perAgent := make([]Result, len(agents))
	var pairs [][2]string
	for _, x := range agents {
		for _, y := range agents {
			if x != y {
				pairs = append(pairs, [2]string{x, y})
			}
		}
	}
	improvements := make([]ImprovementRow, len(pairs))
	var wg sync.WaitGroup
	work := make(chan func(), len(agents)+len(pairs))
	for i, a := range agents {
		work <- func() { perAgent[i].agent(strata, a, taus, reps, seed) }
	}
	for i, p := range pairs {
		work <- func() { improvements[i] = improvement(strata, p[0], p[1], reps, seed) }
	}
	close(work)
	// A worker's panic is its error (errs.Protect), as in every pool of
	// smrl: the caller reports it, and the process ends as it should.
	failed := make([]error, min(runtime.GOMAXPROCS(0), cap(work)))
	for w := range failed {
		wg.Go(func() {
			for f := range work {
				if failed[w] == nil {
					failed[w] = errs.Protect(func() error { f(); return nil })
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(failed...); err != nil {
		return nil, fmt.Errorf("aggregate: %w", err)
	}
	res := &Result{Improvement: improvements}
	for _, r := range perAgent {
		res.Metrics = append(res.Metrics, r.Metrics...)
		res.Profile = append(res.Profile, r.Profile...)
	}
	return res, nil
}

// stream returns the random stream of name under the master seed.
func stream(seed uint64, name string) resampler {
	h := fnv.New64a()
	h.Write([]byte("smrl aggregate\x00" + name))
	pcg := rand.NewPCG(seed, h.Sum64())
	return resampler{pcg: pcg, rng: rand.New(pcg)}
}

// resampler draws the bootstrap's indices from a stream: rng, which draws
// from pcg.
type resampler struct {
	pcg *rand.PCG
	rng *rand.Rand
}

// is32bit is math/rand/v2's: there IntN takes another path.
const is32bit = ^uint(0)>>32 == 0

// intN returns rng.IntN(n) (n > 0), on 64-bit platforms with math/rand/v2's
// arithmetic (Lemire's multiply-and-reject of Rand.uint64n) on pcg
// directly: the same values and the same draws, without rand.Rand's
// interface call per draw. TestResamplerIsIntN checks it.
func (r resampler) intN(n int) int {
	if is32bit {
		return r.rng.IntN(n)
	}
	u := uint64(n)
	if u&(u-1) == 0 {
		return int(r.pcg.Uint64() & (u - 1))
	}
	hi, lo := bits.Mul64(r.pcg.Uint64(), u)
	if lo < u {
		thresh := -u % u
		for lo < thresh {
			hi, lo = bits.Mul64(r.pcg.Uint64(), u)
		}
	}
	return int(hi)
}

// gaps returns, per stratum, max(o − x, 0) for each seed of agent a with o
// the baseline's (the oracle's) score of that seed; ok is false when some
// stratum lacks the baseline or one of a's seeds.
func gaps(strata []Stratum, a string) (g [][]float64, ok bool) {
	for _, s := range strata {
		base := s.baseline()
		os, oseeds := s.Scores[base], s.Seeds[base]
		if len(os) == 0 {
			return nil, false
		}
		row := make([]float64, len(s.Scores[a]))
		for i, sd := range s.Seeds[a] {
			j := slices.Index(oseeds, sd)
			if j < 0 {
				return nil, false
			}
			row[i] = max(os[j]-s.Scores[a][i], 0)
		}
		g = append(g, row)
	}
	return g, true
}

// baseline returns the agent of the stratum whose registration declares it
// the regret baseline (config.IsBaseline: the oracle), the first in name
// order if there were several, "" if none.
func (s Stratum) baseline() string {
	var out []string
	for a := range s.Scores {
		if config.IsBaseline(a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return slices.Min(out)
}

// agent adds the metrics and the profile of agent a.
func (res *Result) agent(strata []Stratum, a string, taus []float64, reps int, seed uint64) {
	g, hasGap := gaps(strata, a)
	sc := make([][]float64, len(strata)) // a's scores per stratum
	n := 0
	for k, s := range strata {
		sc[k] = s.Scores[a]
		n += len(sc[k])
	}
	x := make([]float64, 0, n)
	gp := make([]float64, 0, n)
	for k := range sc {
		x = append(x, sc[k]...)
		if hasGap {
			gp = append(gp, g[k]...)
		}
	}
	slices.Sort(x)
	point := [4]float64{mean(x), median(x), iqm(x), math.NaN()}
	if hasGap {
		point[3] = mean(gp)
	}
	prof := make([]float64, len(taus))
	for t, tau := range taus {
		prof[t] = float64(above(x, tau)) / float64(n)
	}

	boot := [4][]float64{}
	for m := range boot {
		boot[m] = make([]float64, reps)
	}
	if !hasGap {
		g = nil
	}
	counts := newReplicates(sc, g, x, taus).run(stream(seed, a), boot)
	for m, name := range Metrics {
		if m == 3 && !hasGap {
			continue
		}
		lo, hi := bootInterval(boot[m])
		res.Metrics = append(res.Metrics, MetricRow{Agent: a, Metric: name, Estimate: Estimate{point[m], lo, hi}})
	}
	for t, tau := range taus {
		c := counts[t*(n+1) : (t+1)*(n+1)]
		res.Profile = append(res.Profile, ProfileRow{Agent: a, Tau: tau,
			Estimate: Estimate{prof[t], countPercentile(c, reps, 0.025) / float64(n), countPercentile(c, reps, 0.975) / float64(n)}})
	}
}

// replicates draws the stratified bootstrap replicates of one agent's
// scores and their statistics. A replicate is a multiset of the original
// scores, so it is drawn as multiplicities over the distinct scores (in
// ascending order) and written out in that order: the sorted replicate,
// the very values a sort of the drawn values gives and in the same order,
// without sorting B times. Its mean, median and IQM are then computed from
// it exactly as from the sorted draws (the same sums in the same order:
// the same bits), the gap's mean is summed in the order of the draws as
// before, and the profile counter steps once per distinct score drawn at
// a position in τ found once per distinct score.
//
// The one case where writing out by value is not a sort's result is a
// −0 among the scores (−0 == +0, and a sort leaves their order
// unspecified); scores from FromRows are never −0 (a sum started at +0
// is not), and for any other caller the replicates are then drawn and
// sorted as values (sorted).
type replicates struct {
	sc   [][]float64 // the scores per stratum
	g    [][]float64 // the gaps per stratum, nil without a baseline
	rank [][]int     // rank[k][j]: the index in u of sc[k][j]
	u    []float64   // the distinct scores, ascending
	end  []int       // end[r]: the first τ ≥ u[r] (sort.SearchFloat64s)
	pc   *profileCounter
	n    int
	// sorted: draw the values and sort them (a −0 among the scores).
	sorted bool
}

// newReplicates prepares the replicates of the scores sc (and gaps g, or
// nil) whose values in ascending order are x.
func newReplicates(sc, g [][]float64, x []float64, taus []float64) *replicates {
	r := &replicates{sc: sc, g: g, n: len(x), pc: newProfileCounter(taus, len(x))}
	for _, v := range x {
		if v == 0 && math.Signbit(v) {
			r.sorted = true
			return r
		}
	}
	for i, v := range x {
		if i == 0 || v != x[i-1] {
			r.u = append(r.u, v)
			r.end = append(r.end, sort.SearchFloat64s(taus, v))
		}
	}
	r.rank = make([][]int, len(sc))
	for k, s := range sc {
		r.rank[k] = make([]int, len(s))
		for j, v := range s {
			r.rank[k][j], _ = slices.BinarySearch(r.u, v)
		}
	}
	return r
}

// run draws len(boot[0]) replicates from rng in the order of the original
// loop (per replicate, per stratum, one index per score), stores the mean,
// median, IQM and (with gaps) the gap's mean of replicate i in boot[·][i],
// and returns the profile's counts (profileCounter.counts).
func (r *replicates) run(rng resampler, boot [4][]float64) []int {
	x := make([]float64, 0, r.n)
	cnt := make([]int, len(r.u))
	for i := range boot[0] {
		x = x[:0]
		clear(cnt)
		gsum := 0.0
		for k, s := range r.sc {
			for range s {
				j := rng.intN(len(s))
				if r.sorted {
					x = append(x, s[j])
				} else {
					cnt[r.rank[k][j]]++
				}
				if r.g != nil {
					gsum += r.g[k][j]
				}
			}
		}
		if r.sorted {
			slices.Sort(x)
			r.pc.add(x)
		} else {
			for v, c := range cnt {
				for range c {
					x = append(x, r.u[v])
				}
			}
			r.pc.addCounts(cnt, r.end)
		}
		boot[0][i], boot[1][i], boot[2][i] = mean(x), median(x), iqm(x)
		if r.g != nil {
			boot[3][i] = gsum / float64(r.n)
		}
	}
	return r.pc.counts()
}

// profileCounter counts, over replicates of n sorted values, how many
// replicates have k values above τ_t, for every t and k.
type profileCounter struct {
	taus []float64 // ascending
	n    int
	diff []int // (len(taus)+1)×(n+1): the counts' differences along t
}

func newProfileCounter(taus []float64, n int) *profileCounter {
	return &profileCounter{taus: taus, n: n, diff: make([]int, (len(taus)+1)*(n+1))}
}

// add counts the replicate x (sorted, n values). #{x ≤ τ_t} is a step
// function of t with at most n steps, found by binary search: each run of
// equal counts costs two entries of diff, not one per τ.
func (c *profileCounter) add(x []float64) {
	n, taus := c.n, c.taus
	t := 0
	for j := 0; j <= n && t < len(taus); j++ {
		end := len(taus) // #{x ≤ τ} = j on [t, end): x[j] > τ there
		if j < n {
			end = t + sort.SearchFloat64s(taus[t:], x[j]) // the first τ ≥ x[j]
		}
		if end > t {
			c.diff[t*(n+1)+n-j]++
			c.diff[end*(n+1)+n-j]--
			t = end
		}
	}
}

// addCounts is add of the sorted replicate that holds cnt[r] copies of
// the r-th distinct value (ascending), whose first τ at or above it is
// τ_end[r]: add's steps, taken once per run of equal values (only a run's
// first value can move past a τ, and add's search from t finds end[r]
// since every τ before t lies below the earlier values).
func (c *profileCounter) addCounts(cnt, end []int) {
	n, nt := c.n, len(c.taus)
	t, j := 0, 0
	for r, m := range cnt {
		if t == nt {
			return
		}
		if m == 0 {
			continue
		}
		if e := end[r]; e > t {
			c.diff[t*(n+1)+n-j]++
			c.diff[e*(n+1)+n-j]--
			t = e
		}
		j += m
	}
	if t < nt { // j = n: every value at or below the remaining τ
		c.diff[t*(n+1)]++
		c.diff[nt*(n+1)]--
	}
}

// counts returns counts[t·(n+1) + k], the number of replicates with k
// values above τ_t.
func (c *profileCounter) counts() []int {
	w := c.n + 1
	counts := make([]int, len(c.taus)*w)
	run := make([]int, w)
	for t := range c.taus {
		for k := range run {
			run[k] += c.diff[t*w+k]
			counts[t*w+k] = run[k]
		}
	}
	return counts
}

// improvement returns P(X > Y) + ½ P(X = Y), averaged over strata, with
// its interval from independent stratified resamples of X and Y.
func improvement(strata []Stratum, x, y string, reps int, seed uint64) ImprovementRow {
	sx, sy := make([][]float64, len(strata)), make([][]float64, len(strata))
	widest := 0
	for k, s := range strata {
		sx[k], sy[k] = s.Scores[x], s.Scores[y]
		widest = max(widest, len(sx[k]), len(sy[k]))
	}
	wins := func(xs, ys []float64) float64 {
		var w float64
		for _, u := range xs {
			for _, v := range ys {
				if u > v {
					w++
				} else if u == v {
					w += 0.5
				}
			}
		}
		return w / float64(len(xs)*len(ys))
	}
	var value float64
	for k := range strata {
		value += wins(sx[k], sy[k])
	}
	value /= float64(len(strata))
	tables := make([]winTable, len(strata))
	for k := range strata {
		tables[k] = newWinTable(sx[k], sy[k])
	}
	ca, cb := make([]int, widest), make([]int, widest+1)
	rng := stream(seed, x+"\x00"+y)
	boot := make([]float64, reps)
	for r := range boot {
		var p float64
		for k := range strata {
			nx, ny := len(sx[k]), len(sy[k])
			p += float64(tables[k].halfWins(rng, ca[:nx], cb[:ny+1])) / 2 / float64(nx*ny)
		}
		boot[r] = p / float64(len(strata))
	}
	lo, hi := bootInterval(boot)
	return ImprovementRow{X: x, Y: y, Estimate: Estimate{value, lo, hi}}
}

// winTable scores a replicate of one stratum's comparison of X with Y in
// half-wins (2 per pair x_i > y_j, 1 per tie): with the draws as
// multiplicities a_i of x_i and b_j of y_j, the count is
// Σ_i a_i·(2·B(y < x_i) + B(y = x_i)) = Σ_i a_i·(P[lt_i] + P[le_i]), P the
// prefix sums of the b over the y in ascending order and lt_i, le_i the
// numbers of y below and at or below x_i. Integers throughout: the count
// of the pair-by-pair table exactly, in O(nx + ny) per replicate instead of
// O(nx·ny); wins' w is count/2.
type winTable struct {
	rankY  []int // rankY[j]: y_j's position among the y in ascending order
	lt, le []int // per x_i: #{y < x_i}, #{y ≤ x_i}
}

func newWinTable(xs, ys []float64) winTable {
	order := make([]int, len(ys))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(i, j int) bool { return ys[order[i]] < ys[order[j]] })
	w := winTable{rankY: make([]int, len(ys)), lt: make([]int, len(xs)), le: make([]int, len(xs))}
	for pos, j := range order {
		w.rankY[j] = pos
	}
	for i, u := range xs {
		for _, v := range ys {
			if v < u {
				w.lt[i]++
			}
			if v <= u {
				w.le[i]++
			}
		}
	}
	return w
}

// halfWins draws a replicate of x (len(a) indices) and of y (len(b)−1
// indices) from rng, in that order, and returns its count of half-wins; a
// and b are scratch.
func (w winTable) halfWins(rng resampler, a, b []int) int {
	nx, ny := len(a), len(b)-1
	clear(a)
	clear(b)
	for range nx {
		a[rng.intN(nx)]++
	}
	for range ny {
		b[1+w.rankY[rng.intN(ny)]]++
	}
	for m := 1; m <= ny; m++ { // b[m] = P[m]: the draws among the m smallest y
		b[m] += b[m-1]
	}
	c := 0
	for i, m := range a {
		c += m * (b[w.lt[i]] + b[w.le[i]])
	}
	return c
}

// above returns the number of values of the sorted x that exceed tau.
func above(x []float64, tau float64) int {
	i, _ := slices.BinarySearchFunc(x, tau, func(v, t float64) int {
		if v <= t {
			return -1
		}
		return 1
	})
	return len(x) - i
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// median returns the median of the sorted x (the mean of the two middle
// values for an even length, as numpy.median).
func median(x []float64) float64 {
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// IQMOf returns the interquartile mean of x (any order; x is not changed):
// scipy.stats.trim_mean(x, 0.25), the mean of the sorted values after
// dropping ⌊N/4⌋ from each end.
func IQMOf(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return iqm(s)
}

// iqm is IQMOf of a sorted slice.
func iqm(x []float64) float64 {
	cut := len(x) / 4 // int(0.25 * nobs) of scipy's trim_mean
	return mean(x[cut : len(x)-cut])
}

// Percentile returns the p-quantile (0 <= p <= 1) of the sorted values v
// by linear interpolation between order statistics (numpy.percentile's
// default, Hyndman and Fan's type 7): with h = (len(v) − 1)·p, v[⌊h⌋] +
// (h − ⌊h⌋)(v[⌊h⌋+1] − v[⌊h⌋]).
func Percentile(v []float64, p float64) float64 {
	h := float64(len(v)-1) * p
	i := int(math.Floor(h))
	if i >= len(v)-1 {
		return v[len(v)-1]
	}
	return v[i] + (h-float64(i))*(v[i+1]-v[i])
}

// bootInterval returns the 95% percentile interval of the replicates v:
// Percentile(sorted v, 0.025) and Percentile(sorted v, 0.975), the same
// bits, from the two pairs of order statistics they need, found by
// selection (O(len v) against a sort's O(len v · log len v)); v is
// reordered. No value may be NaN.
func bootInterval(v []float64) (lo, hi float64) {
	lo, from := selectPercentileFrom(v, 0.025, 0)
	hi, _ = selectPercentileFrom(v, 0.975, from)
	return lo, hi
}

// selectPercentile is Percentile(sorted v, p) of v in any order (v is
// reordered).
func selectPercentile(v []float64, p float64) float64 {
	x, _ := selectPercentileFrom(v, p, 0)
	return x
}

// selectPercentileFrom is selectPercentile for v whose first from values
// are its from smallest (v[:from] ≤ v[from:]), which the selection then
// leaves alone; it returns the position up to which that holds after it
// (a later, higher percentile's from).
func selectPercentileFrom(v []float64, p float64, from int) (x float64, next int) {
	h := float64(len(v)-1) * p
	i := int(math.Floor(h))
	if i >= len(v)-1 {
		return nthElement(v[from:], len(v)-1-from), len(v) - 1
	}
	if i < from { // never for the callers: a lower percentile came first
		from = 0
	}
	a := nthElement(v[from:], i-from)
	b := slices.Min(v[i+1:]) // v[:i] ≤ v[i] ≤ v[i+1:] after the selection
	return a + (h-float64(i))*(b-a), i + 1
}

// nthElement returns the k-th smallest value of v (0-based) and reorders v
// so that v[:k] ≤ v[k] ≤ v[k+1:]: Hoare's selection with a median-of-three
// pivot. No value may be NaN.
func nthElement(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		// v[lo:j+1] ≤ pivot, v[j+1:i] = pivot, v[i:hi+1] ≥ pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// countPercentile is Percentile of the reps values k with multiplicities
// counts[k] (ascending k).
func countPercentile(counts []int, reps int, p float64) float64 {
	at := func(pos int) float64 { // the value at sorted position pos
		for k, c := range counts {
			if pos < c {
				return float64(k)
			}
			pos -= c
		}
		return float64(len(counts) - 1)
	}
	h := float64(reps-1) * p
	i := int(math.Floor(h))
	lo := at(i)
	if i >= reps-1 {
		return lo
	}
	return lo + (h-float64(i))*(at(i+1)-lo)
}
