package results

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// ReadSummary reads a summary.csv that WriteSummary wrote: the header must
// be SummaryHeader and every cell a number (empty for NaN). Numbers are in
// shortest round-trip form, so the summaries read back are those written.
// Errors name the file and line and wrap errs.ErrInvalidInput.
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
		f := make([]float64, len(rec))
		for j, c := range rec[1:] {
			if c == "" {
				f[j+1] = math.NaN()
				continue
			}
			if f[j+1], err = strconv.ParseFloat(c, 64); err != nil {
				return nil, errs.Invalid(fmt.Errorf("%s line %d: %s: %q is not a number", path, line, SummaryHeader[j+1], c))
			}
		}
		// Columns in the order of SummaryHeader.
		s := Summary{Agent: rec[0], Episode: int(f[1]), Seeds: int(f[2]), RewardMean: f[3],
			Reward: Stat{f[3], f[4], f[5]}, Steps: Stat{f[6], f[7], f[8]},
			CumReward: Stat{f[9], f[10], f[11]}, CumRegret: Stat{f[12], f[13], f[14]},
			PlusCount: Stat{f[15], f[16], f[17]}, FinalReturn: Stat{f[18], f[19], f[20]},
			FirstFullMedian: f[21], FullSeeds: int(f[22]), WErrorMean: f[23], BetaMean: f[24], RegretSlope: f[25]}
		out = append(out, s)
	}
	return out, nil
}
