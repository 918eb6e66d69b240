package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// ColumnKind is what a column of episodes.csv or summary.csv holds, for
// reading the files back.
type ColumnKind int

const (
	// Name is the agent's name: text.
	Name ColumnKind = iota
	// Integer is a non-negative integer (seed, episode, steps, a count).
	Integer
	// Number is a finite number, never empty.
	Number
	// Optional is a finite number, or an empty cell where the value is
	// undefined (NaN): an interval over one seed, regret without the
	// oracle, the W error of the oracle, β of an agent without a
	// confidence set, and so on (see the package documentation).
	Optional
)

// summaryKinds are the kinds of the columns of summary.csv, as
// WriteSummary writes them.
var summaryKinds = map[string]ColumnKind{
	"agent": Name, "episode": Integer, "seeds": Integer,
	"reward_mean": Number, "reward_lo": Optional, "reward_hi": Optional,
	"steps_mean": Number, "steps_lo": Optional, "steps_hi": Optional,
	"cum_reward_mean": Number, "cum_reward_lo": Optional, "cum_reward_hi": Optional,
	"cum_regret_mean": Optional, "cum_regret_lo": Optional, "cum_regret_hi": Optional,
	"plus_count_mean": Number, "plus_count_lo": Optional, "plus_count_hi": Optional,
	"final_return_mean": Number, "final_return_lo": Optional, "final_return_hi": Optional,
	"first_full_median": Optional, "full_seeds": Integer,
	"w_error_mean": Optional, "beta_mean": Optional, "regret_slope": Optional,
	"episode_return_mean": Number, "episode_return_lo": Optional, "episode_return_hi": Optional,
	"episode_length_mean": Number, "episode_length_lo": Optional, "episode_length_hi": Optional,
}

// episodeKinds are the kinds of the columns of episodes.csv other than W,
// its standard errors and the action counts, as WriteEpisodes writes
// them; every w_i_j and se_i_j is Optional, every action_i Integer.
var episodeKinds = map[string]ColumnKind{
	"agent": Name, "seed": Integer, "episode": Integer, "reward": Number, "steps": Integer,
	"cum_reward": Number, "regret": Optional, "cum_regret": Optional, "plus_count": Integer,
	"w_error": Optional, "beta": Optional, "ball_accept": Optional, "lambda": Optional,
	"cond": Optional, "min_eig_n": Optional, "w_step": Optional,
}

// SummaryColumn returns the kind of the summary.csv column name, and
// false for a column smrl does not write.
func SummaryColumn(name string) (ColumnKind, bool) {
	k, ok := summaryKinds[name]
	return k, ok
}

// EpisodesColumn returns the kind of the episodes.csv column name, and
// false for a column smrl does not write.
func EpisodesColumn(name string) (ColumnKind, bool) {
	if k, ok := episodeKinds[name]; ok {
		return k, true
	}
	var i, j int
	if n, err := fmt.Sscanf(name, "action_%d", &i); err == nil && n == 1 && name == fmt.Sprintf("action_%d", i) {
		return Integer, true
	}
	for _, p := range []string{"w", "se"} {
		if n, err := fmt.Sscanf(name, p+"_%d_%d", &i, &j); err == nil && n == 2 && name == fmt.Sprintf("%s_%d_%d", p, i, j) {
			return Optional, true
		}
	}
	return 0, false
}

// legacySummaryColumns is the number of columns of summary.csv before the
// episode_return and episode_length columns were added.
const legacySummaryColumns = 26

// ReadSummary reads a summary.csv that WriteSummary wrote: the header must
// be SummaryHeader, every number finite and empty only in the columns that
// may be undefined (Optional), and the counts integers: episode and seeds
// at least 1, full_seeds at most seeds. Numbers are in shortest round-trip
// form, so the summaries read back are those written. Errors name the file,
// line and column and wrap errs.ErrInvalidInput.
func ReadSummary(path string) ([]Summary, error) {
	recs, err := fsutil.ReadCSV(path, "")
	if err != nil {
		return nil, err
	}
	// Files of earlier versions end before the episode_return columns,
	// which then read as NaN.
	if len(recs) == 0 || !slices.Equal(recs[0], SummaryHeader) && !slices.Equal(recs[0], SummaryHeader[:legacySummaryColumns]) {
		return nil, errs.Invalid(fmt.Errorf("%s line 1: want the header %s", path, strings.Join(SummaryHeader, ",")))
	}
	header := recs[0]
	out := make([]Summary, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		line := i + 2
		cell := func(j int) fsutil.Cell {
			return fsutil.Cell{Path: path, Line: line, Column: j + 1, Name: SummaryHeader[j], Text: rec[j]}
		}
		if rec[0] == "" {
			return nil, cell(0).Errorf("empty agent name")
		}
		// Cells by column name (the header is SummaryHeader, checked above).
		f := map[string]float64{}
		for _, name := range SummaryHeader[len(header):] {
			f[name] = math.NaN()
		}
		n := map[string]int{}
		for j := 1; j < len(rec) && j < len(header); j++ {
			name := SummaryHeader[j]
			var err error
			switch summaryKinds[name] {
			case Integer:
				lo, hi := 1, math.MaxInt
				if name == "full_seeds" {
					lo, hi = 0, n["seeds"]
				}
				n[name], err = cell(j).Int(lo, hi)
			case Number:
				f[name], err = cell(j).Float(false)
			default:
				f[name], err = cell(j).Float(true)
			}
			if err != nil {
				return nil, err
			}
		}
		stat := func(prefix string) Stat {
			return Stat{Mean: f[prefix+"_mean"], Lo: f[prefix+"_lo"], Hi: f[prefix+"_hi"]}
		}
		s := Summary{Agent: rec[0], Episode: n["episode"], Seeds: n["seeds"],
			Reward: stat("reward"), Steps: stat("steps"), CumReward: stat("cum_reward"), CumRegret: stat("cum_regret"),
			PlusCount: stat("plus_count"), FinalReturn: stat("final_return"),
			FirstFullMedian: f["first_full_median"], FullSeeds: n["full_seeds"],
			WErrorMean: f["w_error_mean"], BetaMean: f["beta_mean"], RegretSlope: f["regret_slope"],
			EpisodeReturn: stat("episode_return"), EpisodeLength: stat("episode_length")}
		out = append(out, s)
	}
	return out, nil
}
