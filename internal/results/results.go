// Package results turns the records of a run (package record) into the
// files of a results directory and reads them back.
//
//	episodes.csv  one row per (agent, seed, episode), canonical order:
//	              agents in config order, seeds ascending, episodes from 1
//	              agent,seed,episode,reward,steps,cum_reward,regret,cum_regret,
//	              plus_count,w_error,beta,ball_accept,w_0_0,w_0_1,…
//	summary.csv   per (agent, episode): mean and 95% Student-t interval over
//	              seeds of cum_reward, cum_regret, plus_count, reward and
//	              steps; mean w_error and beta; and per agent its
//	              regret_slope, final_return, first_full_median, full_seeds
//	              and episode_return, episode_length (the mean return and
//	              length per episode over all its episodes)
//	config.yaml   the fully resolved config
//	metadata.json versions, command line, times
//
// steps is the episode's length (H unless it reached a terminal state);
// w_i_j is row i, column j of the agent's Ŵ (its own family's shape: agents
// whose W has fewer rows than the widest leave the remaining cells empty);
// regret = oracle reward − agent reward on the same seed and episode (empty
// when the oracle is not run); w_error = |Ŵ − W0|_F (empty for the oracle);
// beta = β_k, the radius of the confidence set an optimistic (-ucb) agent
// planned with in the episode (empty for other agents); ball_accept = the
// fraction of the parameters a -ucb or -ps agent drew in the episode that
// fell in the ball |W|_F ≤ max(b_star, |Ŵ|_F) (empty when none were drawn).
// With stats.save_se the columns se_i_j of the standard errors of Ŵ follow
// the w_i_j; with lambda: cv the last column, lambda, is the λ the
// episode's refit chose by cross-validation (empty for agents that fit
// nothing). The columns cond, min_eig_n and w_step follow (when some
// agent refits): the condition number of V + λI of the episode's refit,
// the smallest eigenvalue of V over n (transitions so far) and
// |Ŵ_k − Ŵ_(k−1)|_F (empty for agents that fit nothing); then, for a
// discrete action set env.actions, action_i = the episode's steps that
// played env.actions[i]. Results of earlier versions lack these last
// columns.
// regret_slope is the
// slope b of the least-squares fit log R̄_k = a + b log k over the second
// half of the episodes (k > K/2, K the agent's last episode) with R̄_k the
// mean cumulative regret over seeds, using the episodes where R̄_k > 0 (at
// least two, else empty); √K growth is b = 0.5, linear growth b = 1. It is
// a per-agent number, repeated on each of the agent's rows.
// Numbers are written with strconv 'g' and shortest precision, so files are
// byte-identical for identical results.
package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Row is one line of episodes.csv.
type Row struct {
	Agent     string
	Seed      int
	Episode   int
	Reward    float64
	Steps     int
	CumReward float64
	Regret    float64 // NaN when unknown
	CumRegret float64 // NaN when unknown
	PlusCount int
	WError    float64 // NaN when not applicable
	Beta      float64 // NaN when not applicable
	Accept    float64 // NaN when not applicable
	W         []float64
	SE        []float64 // standard errors of W (stats.save_se), else nil
	Lambda    float64   // the cross-validated λ of the episode's refit (lambda: cv), else 0
	// Diag diagnoses the episode's refit (record.Episode.Diag): nil for
	// agents that fit nothing and in results of earlier versions.
	Diag    *record.Diag
	Actions []int // steps per action of env.actions; nil for a box or earlier versions
}

// Rows flattens the result of a run, adding cumulative sums and the regret
// against the baseline of the same seed (the agent whose registration
// declares it, config.IsBaseline: the oracle).
func Rows(res *record.Result) []Row {
	oracle := map[int][]record.Episode{}
	for i, t := range res.Trials {
		if config.IsBaseline(t.Agent) {
			oracle[t.Seed] = res.Episodes[i]
		}
	}
	var rows []Row
	for i, t := range res.Trials {
		var cum, cumReg float64
		or, hasOracle := oracle[t.Seed]
		for k, e := range res.Episodes[i] {
			cum += e.Reward
			r := Row{Agent: t.Agent, Seed: t.Seed, Episode: e.Episode, Reward: e.Reward, Steps: e.Steps, CumReward: cum,
				Regret: math.NaN(), CumRegret: math.NaN(), PlusCount: e.PlusCount, WError: e.WError, Beta: e.Beta, Accept: e.Accept, W: e.W, SE: e.SE, Lambda: e.Lambda,
				Diag: e.Diag, Actions: e.Actions}
			if hasOracle && k < len(or) {
				r.Regret = or[k].Reward - e.Reward
				cumReg += r.Regret
				r.CumRegret = cumReg
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// EpisodesHeader returns the header of episodes.csv for W of up to d_psi
// rows and d_phi columns, followed, with se, by the columns se_k_j of its
// standard errors (stats.save_se) and, with lambda, by the column lambda
// of the cross-validated λ (lambda: cv).
func EpisodesHeader(dpsi, dphi int, se bool, lambda bool) []string {
	h := []string{"agent", "seed", "episode", "reward", "steps", "cum_reward", "regret", "cum_regret", "plus_count", "w_error", "beta", "ball_accept"}
	prefixes := []string{"w"}
	if se {
		prefixes = append(prefixes, "se")
	}
	for _, p := range prefixes {
		for k := 0; k < dpsi; k++ {
			for j := 0; j < dphi; j++ {
				h = append(h, fmt.Sprintf("%s_%d_%d", p, k, j))
			}
		}
	}
	if lambda {
		h = append(h, "lambda")
	}
	return h
}

// TrailingHeader returns the columns of episodes.csv after those of
// EpisodesHeader: with diag the refit diagnostics cond, min_eig_n and
// w_step, then action_0 … action_{k−1} for k discrete actions. They come
// last so that the columns of earlier versions keep their positions; a
// results directory written before them has none.
func TrailingHeader(diag bool, actions int) []string {
	var h []string
	if diag {
		h = append(h, "cond", "min_eig_n", "w_step")
	}
	for i := range actions {
		h = append(h, fmt.Sprintf("action_%d", i))
	}
	return h
}

// trailing returns what TrailingHeader's columns rows have: diag when
// some row has refit diagnostics, and the number of action counts.
func trailing(rows []Row) (diag bool, actions int) {
	for _, r := range rows {
		diag = diag || r.Diag != nil
		actions = max(actions, len(r.Actions))
	}
	return diag, actions
}

// num formats a float for the CSV files: shortest round-trip form, empty
// for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Stat is a mean with a 95% Student-t interval and, when Ranged, the
// range [Min, Max] of the values over seeds it was computed from.
// summary.csv holds Mean, Lo and Hi only: a Stat read back from it is not
// Ranged until WithSeedRanges gives it the range.
type Stat struct {
	Mean, Lo, Hi float64
	Min, Max     float64
	Ranged       bool
}

// MeanCI returns the mean of xs, the 95% Student-t interval
// mean ± t_{0.975, n−1} s/√n and the range of xs. With one value there is
// no interval: Lo and Hi are NaN (empty cells in summary.csv). NaN values
// make the result NaN, and leave it without a range.
func MeanCI(xs []float64) Stat {
	n := float64(len(xs))
	if len(xs) == 0 {
		return Stat{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= n
	st := Stat{Mean: m, Lo: math.NaN(), Hi: math.NaN()}
	if math.IsNaN(m) {
		return st
	}
	st.Min, st.Max, st.Ranged = slices.Min(xs), slices.Max(xs), true
	if len(xs) == 1 {
		return st
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / (n - 1))
	h := t975(len(xs)-1) * sd / math.Sqrt(n)
	st.Lo, st.Hi = m-h, m+h
	return st
}

// ClipToRange narrows the interval [lo, hi] to the range [lower, upper] of the
// seeds' values: a Student-t interval over few seeds is wide (t = 12.7 for
// two) and can leave what is possible (a pendulum return above 0, a
// CartPole return above H), which the seeds' range never does. The
// figures' bands and the tables' intervals are clipped by this one rule.
// A NaN end stays NaN.
func ClipToRange(lo, hi, lower, upper float64) (float64, float64) {
	if !math.IsNaN(lo) && !math.IsInf(lo, 0) {
		lo = math.Min(math.Max(lo, lower), upper)
	}
	if !math.IsNaN(hi) && !math.IsInf(hi, 0) {
		hi = math.Max(math.Min(hi, upper), lower)
	}
	return lo, hi
}

// Clipped returns s's interval clipped to its seeds' range (ClipToRange)
// and whether that changed it; without a range, the interval as it is.
func (s Stat) Clipped() (lo, hi float64, clipped bool) {
	if !s.Ranged || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return s.Lo, s.Hi, false
	}
	lo, hi = ClipToRange(s.Lo, s.Hi, s.Min, s.Max)
	return lo, hi, lo != s.Lo || hi != s.Hi
}

// tQuantiles holds t975 by degrees of freedom: a run asks for the same
// few (seeds − 1) once per agent and episode, and the quantile is an
// inverse incomplete beta function.
var tQuantiles sync.Map

// t975 returns t_{0.975, df}, the 0.975-quantile of Student's t with df
// degrees of freedom.
func t975(df int) float64 {
	if t, ok := tQuantiles.Load(df); ok {
		return t.(float64)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
	tQuantiles.Store(df, t)
	return t
}

// Summary is one line of summary.csv.
type Summary struct {
	Agent                           string
	Episode                         int
	Seeds                           int
	CumReward, CumRegret, PlusCount Stat
	Reward, Steps                   Stat
	WErrorMean                      float64
	BetaMean                        float64 // NaN for agents without a confidence set
	RegretSlope                     float64 // per agent; NaN when undefined
	// Per agent, repeated on each of its rows: the mean return over its
	// last FinalEpisodes episodes (mean and 95% interval over seeds of the
	// per-seed means), the median over seeds of the first episode that
	// lasted the whole horizon (NaN when fewer than half the seeds had
	// one) and the number of seeds that had one.
	FinalReturn     Stat
	FirstFullMedian float64
	FullSeeds       int
	// Per agent, repeated on each of its rows: the mean return and the
	// mean length per episode over all its episodes (per-seed means, then
	// mean and 95% interval over seeds).
	EpisodeReturn, EpisodeLength Stat
}

// FinalEpisodes is the number of last episodes final_return averages over.
const FinalEpisodes = 20

// SummaryHeader is the header of summary.csv.
var SummaryHeader = []string{"agent", "episode", "seeds", "reward_mean", "reward_lo", "reward_hi",
	"steps_mean", "steps_lo", "steps_hi",
	"cum_reward_mean", "cum_reward_lo", "cum_reward_hi",
	"cum_regret_mean", "cum_regret_lo", "cum_regret_hi",
	"plus_count_mean", "plus_count_lo", "plus_count_hi",
	"final_return_mean", "final_return_lo", "final_return_hi", "first_full_median", "full_seeds",
	"w_error_mean", "beta_mean", "regret_slope",
	"episode_return_mean", "episode_return_lo", "episode_return_hi",
	"episode_length_mean", "episode_length_lo", "episode_length_hi"}

// Summarise aggregates rows over seeds, per agent (in first-seen order) and
// episode. horizon is H, for the episodes that lasted it.
func Summarise(rows []Row, horizon int) []Summary {
	type key struct {
		agent string
		ep    int
	}
	var agents []string
	group := map[key][]Row{}
	maxEp := map[string]int{}
	for _, r := range rows {
		if !slices.Contains(agents, r.Agent) {
			agents = append(agents, r.Agent)
		}
		k := key{r.Agent, r.Episode}
		group[k] = append(group[k], r)
		maxEp[r.Agent] = max(maxEp[r.Agent], r.Episode)
	}
	var out []Summary
	for _, a := range agents {
		for ep := 1; ep <= maxEp[a]; ep++ {
			g := group[key{a, ep}]
			if len(g) == 0 {
				continue
			}
			col := func(f func(Row) float64) []float64 {
				xs := make([]float64, len(g))
				for i, r := range g {
					xs[i] = f(r)
				}
				return xs
			}
			mean := func(xs []float64) float64 { return MeanCI(xs).Mean }
			reward := MeanCI(col(func(r Row) float64 { return r.Reward }))
			out = append(out, Summary{
				Agent: a, Episode: ep, Seeds: len(g),
				Reward:     reward,
				Steps:      MeanCI(col(func(r Row) float64 { return float64(r.Steps) })),
				CumReward:  MeanCI(col(func(r Row) float64 { return r.CumReward })),
				CumRegret:  MeanCI(col(func(r Row) float64 { return r.CumRegret })),
				PlusCount:  MeanCI(col(func(r Row) float64 { return float64(r.PlusCount) })),
				WErrorMean: mean(col(func(r Row) float64 { return r.WError })),
				BetaMean:   mean(col(func(r Row) float64 { return r.Beta })),
			})
		}
	}
	// The regret slope of each agent, from its mean cumulative regret.
	for lo := 0; lo < len(out); {
		hi := lo
		for hi < len(out) && out[hi].Agent == out[lo].Agent {
			hi++
		}
		eps := make([]float64, 0, hi-lo)
		reg := make([]float64, 0, hi-lo)
		for _, s := range out[lo:hi] {
			eps = append(eps, float64(s.Episode))
			reg = append(reg, s.CumRegret.Mean)
		}
		slope := RegretSlope(eps, reg)
		final, firstFull, full := survival(rows, out[lo].Agent, eps[len(eps)-1], horizon)
		ret, length := perEpisode(rows, out[lo].Agent)
		for i := lo; i < hi; i++ {
			out[i].RegretSlope = slope
			out[i].FinalReturn, out[i].FirstFullMedian, out[i].FullSeeds = final, firstFull, full
			out[i].EpisodeReturn, out[i].EpisodeLength = ret, length
		}
		lo = hi
	}
	return out
}

// WithSeedRanges returns sums with the seeds' ranges of their Stats taken
// from Summarise(rows) (rows those summaries were computed from), matched
// by agent and episode: for summaries read back from summary.csv, which
// does not hold the ranges. Mean, Lo and Hi are kept as they are; a
// summary without a counterpart in rows stays without ranges.
func WithSeedRanges(sums []Summary, rows []Row) []Summary {
	type key struct {
		agent string
		ep    int
	}
	by := map[key]Summary{}
	for _, s := range Summarise(rows, 0) {
		by[key{s.Agent, s.Episode}] = s
	}
	ranged := func(dst *Stat, src Stat) {
		dst.Min, dst.Max, dst.Ranged = src.Min, src.Max, src.Ranged
	}
	out := slices.Clone(sums)
	for i := range out {
		s := &out[i]
		r, ok := by[key{s.Agent, s.Episode}]
		if !ok || r.Seeds != s.Seeds {
			continue
		}
		ranged(&s.CumReward, r.CumReward)
		ranged(&s.CumRegret, r.CumRegret)
		ranged(&s.PlusCount, r.PlusCount)
		ranged(&s.Reward, r.Reward)
		ranged(&s.Steps, r.Steps)
		ranged(&s.FinalReturn, r.FinalReturn)
		ranged(&s.EpisodeReturn, r.EpisodeReturn)
		ranged(&s.EpisodeLength, r.EpisodeLength)
	}
	return out
}

// survival returns an agent's final return (per-seed mean return over its
// last FinalEpisodes episodes up to lastEp, then mean and interval over
// seeds), the median over seeds of the first episode that lasted horizon
// steps (a seed without one counts as never, i.e. +∞; NaN when the median
// is never) and the number of seeds with one.
func survival(rows []Row, agent string, lastEp float64, horizon int) (final Stat, firstFull float64, full int) {
	from := int(lastEp) - FinalEpisodes + 1
	sum, n := map[int]float64{}, map[int]int{}
	first := map[int]int{}
	var seeds []int
	for _, r := range rows {
		if r.Agent != agent {
			continue
		}
		if _, ok := n[r.Seed]; !ok {
			seeds = append(seeds, r.Seed)
			n[r.Seed] = 0
		}
		if r.Episode >= from {
			sum[r.Seed] += r.Reward
			n[r.Seed]++
		}
		if r.Steps == horizon && (first[r.Seed] == 0 || r.Episode < first[r.Seed]) {
			first[r.Seed] = r.Episode
		}
	}
	means := make([]float64, 0, len(seeds))
	firsts := make([]float64, 0, len(seeds))
	for _, s := range seeds {
		means = append(means, sum[s]/float64(n[s]))
		f := math.Inf(1)
		if first[s] > 0 {
			f = float64(first[s])
			full++
		}
		firsts = append(firsts, f)
	}
	slices.Sort(firsts)
	k := len(firsts)
	med := firsts[(k-1)/2]
	if k%2 == 0 {
		med = 0.5 * (firsts[k/2-1] + firsts[k/2])
	}
	if math.IsInf(med, 0) {
		med = math.NaN()
	}
	return MeanCI(means), med, full
}

// perEpisode returns an agent's mean return and mean length per episode
// over all its episodes: each seed's mean, then mean and 95% interval over
// seeds (seeds in first-seen order).
func perEpisode(rows []Row, agent string) (ret, length Stat) {
	type acc struct {
		ret, steps float64
		n          int
	}
	var seeds []int
	per := map[int]*acc{}
	for _, r := range rows {
		if r.Agent != agent {
			continue
		}
		a := per[r.Seed]
		if a == nil {
			a = &acc{}
			per[r.Seed] = a
			seeds = append(seeds, r.Seed)
		}
		a.ret += r.Reward
		a.steps += float64(r.Steps)
		a.n++
	}
	rs := make([]float64, len(seeds))
	ls := make([]float64, len(seeds))
	for i, s := range seeds {
		a := per[s]
		rs[i], ls[i] = a.ret/float64(a.n), a.steps/float64(a.n)
	}
	return MeanCI(rs), MeanCI(ls)
}

// RegretSlope is the growth exponent of cumulative regret: the slope b of
// log R = a + b log k over the second half of the episodes
// (stats.RegretFit), NaN when it is undefined. k are episodes, R mean
// cumulative regrets; √K growth is b = 0.5, linear growth 1. A falling
// curve (b < 0: the agent collected more reward than the oracle over the
// second half) does not grow: R is bounded there, R = O(k^0), so its
// exponent is 0, not the fitted b.
func RegretSlope(episodes, regret []float64) float64 {
	_, b, _, _, ok := stats.RegretFit(episodes, regret)
	if !ok {
		return math.NaN()
	}
	return max(b, 0)
}
