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
}

// episodeKinds are the kinds of the columns of episodes.csv before the W
// columns, as WriteEpisodes writes them; every w_i_j is Optional.
var episodeKinds = map[string]ColumnKind{
	"agent": Name, "seed": Integer, "episode": Integer, "reward": Number, "steps": Integer,
	"cum_reward": Number, "regret": Optional, "cum_regret": Optional, "plus_count": Integer,
	"w_error": Optional, "beta": Optional, "ball_accept": Optional,
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
	if n, err := fmt.Sscanf(name, "w_%d_%d", &i, &j); err == nil && n == 2 && name == fmt.Sprintf("w_%d_%d", i, j) {
		return Optional, true
	}
	return 0, false
}

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
	if len(recs) == 0 || !slices.Equal(recs[0], SummaryHeader) {
		return nil, errs.Invalid(fmt.Errorf("%s line 1: want the header %s", path, strings.Join(SummaryHeader, ",")))
	}
	out := make([]Summary, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		line := i + 2
		cell := func(j int) fsutil.Cell {
			return fsutil.Cell{Path: path, Line: line, Column: j + 1, Name: SummaryHeader[j], Text: rec[j]}
		}
		if rec[0] == "" {
			return nil, cell(0).Errorf("empty agent name")
		}
		// Columns in the order of SummaryHeader; the integers at 1, 2, 22.
		f := make([]float64, len(rec))
		n := make([]int, len(rec))
		for j := 1; j < len(rec); j++ {
			switch summaryKinds[SummaryHeader[j]] {
			case Integer:
				lo, hi := 1, math.MaxInt
				if SummaryHeader[j] == "full_seeds" {
					lo, hi = 0, n[2]
				}
				n[j], err = cell(j).Int(lo, hi)
			case Number:
				f[j], err = cell(j).Float(false)
			default:
				f[j], err = cell(j).Float(true)
			}
			if err != nil {
				return nil, err
			}
		}
		s := Summary{Agent: rec[0], Episode: n[1], Seeds: n[2],
			Reward: Stat{f[3], f[4], f[5]}, Steps: Stat{f[6], f[7], f[8]},
			CumReward: Stat{f[9], f[10], f[11]}, CumRegret: Stat{f[12], f[13], f[14]},
			PlusCount: Stat{f[15], f[16], f[17]}, FinalReturn: Stat{f[18], f[19], f[20]},
			FirstFullMedian: f[21], FullSeeds: n[22], WErrorMean: f[23], BetaMean: f[24], RegretSlope: f[25]}
		out = append(out, s)
	}
	return out, nil
}
