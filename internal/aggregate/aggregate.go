package aggregate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
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

// oracle is the agent that plans with the true model: the reference of the
// optimality gap.
const oracle = "oracle"

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
	res := &Result{}
	for _, a := range agents {
		res.agent(strata, a, taus, reps, seed)
	}
	for _, x := range agents {
		for _, y := range agents {
			if x != y {
				res.Improvement = append(res.Improvement, improvement(strata, x, y, reps, seed))
			}
		}
	}
	return res, nil
}

// stream returns the random stream of name under the master seed.
func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte("smrl aggregate\x00" + name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// gaps returns, per stratum, max(o − x, 0) for each seed of agent a with o
// the oracle's score of that seed; ok is false when some stratum lacks the
// oracle or one of a's seeds.
func gaps(strata []Stratum, a string) (g [][]float64, ok bool) {
	for _, s := range strata {
		os, oseeds := s.Scores[oracle], s.Seeds[oracle]
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

	rng := stream(seed, a)
	boot := [4][]float64{}
	for m := range boot {
		boot[m] = make([]float64, reps)
	}
	// The profile's replicate values are k/n: count them per τ instead of
	// storing and sorting B values for each of the τ.
	counts := make([]int, len(taus)*(n+1))
	for r := range reps {
		x, gp = x[:0], gp[:0]
		for k, s := range sc {
			for range s {
				j := rng.IntN(len(s))
				x = append(x, s[j])
				if hasGap {
					gp = append(gp, g[k][j])
				}
			}
		}
		slices.Sort(x)
		boot[0][r], boot[1][r], boot[2][r] = mean(x), median(x), iqm(x)
		if hasGap {
			boot[3][r] = mean(gp)
		}
		// x is sorted and taus ascending: one merge walk.
		j := 0
		for t, tau := range taus {
			for j < n && x[j] <= tau {
				j++
			}
			counts[t*(n+1)+n-j]++
		}
	}
	for m, name := range Metrics {
		if m == 3 && !hasGap {
			continue
		}
		slices.Sort(boot[m])
		res.Metrics = append(res.Metrics, MetricRow{Agent: a, Metric: name,
			Estimate: Estimate{point[m], Percentile(boot[m], 0.025), Percentile(boot[m], 0.975)}})
	}
	for t, tau := range taus {
		c := counts[t*(n+1) : (t+1)*(n+1)]
		res.Profile = append(res.Profile, ProfileRow{Agent: a, Tau: tau,
			Estimate: Estimate{prof[t], countPercentile(c, reps, 0.025) / float64(n), countPercentile(c, reps, 0.975) / float64(n)}})
	}
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
	xs, ys := make([]float64, widest), make([]float64, widest)
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
	rng := stream(seed, x+"\x00"+y)
	boot := make([]float64, reps)
	for r := range boot {
		var p float64
		for k := range strata {
			a, b := xs[:len(sx[k])], ys[:len(sy[k])]
			for i := range a {
				a[i] = sx[k][rng.IntN(len(a))]
			}
			for i := range b {
				b[i] = sy[k][rng.IntN(len(b))]
			}
			p += wins(a, b)
		}
		boot[r] = p / float64(len(strata))
	}
	slices.Sort(boot)
	return ImprovementRow{X: x, Y: y, Estimate: Estimate{value, Percentile(boot, 0.025), Percentile(boot, 0.975)}}
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
