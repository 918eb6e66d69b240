// Package results turns runner output into the files of a results
// directory and reads them back.
//
//	episodes.csv  one row per (agent, seed, episode), canonical order:
//	              agents in config order, seeds ascending, episodes from 1
//	              agent,seed,episode,reward,cum_reward,regret,cum_regret,
//	              plus_count,w_error,beta,ball_accept,w_0_0,w_0_1,…
//	summary.csv   per (agent, episode): mean and 95% Student-t interval over
//	              seeds of cum_reward, cum_regret and plus_count; mean
//	              w_error and beta; and the agent's regret_slope
//	config.yaml   the fully resolved config
//	metadata.json versions, command line, times
//
// regret = oracle reward − agent reward on the same seed and episode (empty
// when the oracle is not run); w_error = |Ŵ − W0|_F (empty for the oracle);
// beta = β_k, the radius of the confidence set an optimistic (-ucb) agent
// planned with in the episode (empty for other agents); ball_accept = the
// fraction of the parameters a -ucb or -ps agent drew in the episode that
// fell in the ball |W|_F ≤ max(b_star, |Ŵ|_F) (empty when none were drawn).
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

	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Row is one line of episodes.csv.
type Row struct {
	Agent     string
	Seed      int
	Episode   int
	Reward    float64
	CumReward float64
	Regret    float64 // NaN when unknown
	CumRegret float64 // NaN when unknown
	PlusCount int
	WError    float64 // NaN when not applicable
	Beta      float64 // NaN when not applicable
	Accept    float64 // NaN when not applicable
	W         []float64
}

// Rows flattens a runner result, adding cumulative sums and the regret
// against the oracle of the same seed.
func Rows(res *runner.Result) []Row {
	oracle := map[int][]runner.Episode{}
	for i, t := range res.Trials {
		if t.Agent == "oracle" {
			oracle[t.Seed] = res.Episodes[i]
		}
	}
	var rows []Row
	for i, t := range res.Trials {
		var cum, cumReg float64
		or, hasOracle := oracle[t.Seed]
		for k, e := range res.Episodes[i] {
			cum += e.Reward
			r := Row{Agent: t.Agent, Seed: t.Seed, Episode: e.Episode, Reward: e.Reward, CumReward: cum,
				Regret: math.NaN(), CumRegret: math.NaN(), PlusCount: e.PlusCount, WError: e.WError, Beta: e.Beta, Accept: e.Accept, W: e.W}
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

// EpisodesHeader returns the header of episodes.csv for d_psi×d_phi W.
func EpisodesHeader(dpsi, dphi int) []string {
	h := []string{"agent", "seed", "episode", "reward", "cum_reward", "regret", "cum_regret", "plus_count", "w_error", "beta", "ball_accept"}
	for k := 0; k < dpsi; k++ {
		for j := 0; j < dphi; j++ {
			h = append(h, fmt.Sprintf("w_%d_%d", k, j))
		}
	}
	return h
}

// num formats a float for the CSV files: shortest round-trip form, empty
// for NaN.
func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Stat is a mean with a 95% Student-t interval.
type Stat struct{ Mean, Lo, Hi float64 }

// MeanCI returns the mean of xs and the 95% Student-t interval
// mean ± t_{0.975, n−1} s/√n. With one value there is no interval: Lo and
// Hi are NaN (empty cells in summary.csv). NaN values make the result NaN.
func MeanCI(xs []float64) Stat {
	n := float64(len(xs))
	if len(xs) == 0 {
		return Stat{math.NaN(), math.NaN(), math.NaN()}
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= n
	if len(xs) == 1 || math.IsNaN(m) {
		return Stat{m, math.NaN(), math.NaN()}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	sd := math.Sqrt(ss / (n - 1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975)
	h := t * sd / math.Sqrt(n)
	return Stat{m, m - h, m + h}
}

// Summary is one line of summary.csv.
type Summary struct {
	Agent                           string
	Episode                         int
	Seeds                           int
	RewardMean                      float64
	CumReward, CumRegret, PlusCount Stat
	WErrorMean                      float64
	BetaMean                        float64 // NaN for agents without a confidence set
	RegretSlope                     float64 // per agent; NaN when undefined
}

// SummaryHeader is the header of summary.csv.
var SummaryHeader = []string{"agent", "episode", "seeds", "reward_mean",
	"cum_reward_mean", "cum_reward_lo", "cum_reward_hi",
	"cum_regret_mean", "cum_regret_lo", "cum_regret_hi",
	"plus_count_mean", "plus_count_lo", "plus_count_hi", "w_error_mean",
	"beta_mean", "regret_slope"}

// Summarise aggregates rows over seeds, per agent (in first-seen order) and
// episode.
func Summarise(rows []Row) []Summary {
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
			out = append(out, Summary{
				Agent: a, Episode: ep, Seeds: len(g),
				RewardMean: mean(col(func(r Row) float64 { return r.Reward })),
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
		for i := lo; i < hi; i++ {
			out[i].RegretSlope = slope
		}
		lo = hi
	}
	return out
}

// RegretSlope is the slope b of log R = a + b log k over the second half of
// the episodes (stats.RegretFit); NaN when it is undefined. k are episodes,
// R mean cumulative regrets; √K growth is b = 0.5.
func RegretSlope(episodes, regret []float64) float64 {
	_, b, _, _, ok := stats.RegretFit(episodes, regret)
	if !ok {
		return math.NaN()
	}
	return b
}
