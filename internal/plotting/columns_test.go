package plotting

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
)

// The readers check every column smrl writes, and a number may be empty
// exactly where results writes NaN for an undefined value.
func TestColumnKindsAgreeWithResults(t *testing.T) {
	check := func(file string, header []string, optional map[string]bool, counts []string, kind func(string) (results.ColumnKind, bool)) {
		for _, name := range header {
			opt, ok := optional[name]
			k, _ := kind(name)
			switch {
			case wColumn.MatchString(name):
			case !ok && !slices.Contains(counts, name):
				t.Errorf("%s column %s is not checked", file, name)
			case ok && opt != (k == results.Optional):
				t.Errorf("%s column %s: optional %v, but results' kind is %v", file, name, opt, k)
			}
		}
	}
	optional := map[string]bool{}
	for _, c := range summaryNumbers {
		optional[c.name] = c.optional
	}
	check(summaryFile, results.SummaryHeader, optional, []string{"agent", "episode", "seeds", "full_seeds"}, results.SummaryColumn)
	optional = map[string]bool{}
	for _, c := range episodeNumbers {
		optional[c.name] = c.optional
	}
	check(episodesFile, append(results.EpisodesHeader(1, 2, false, true), results.TrailingHeader(true, 0)...), optional, []string{"agent", "seed", "episode", "steps", "plus_count"}, results.EpisodesColumn)
}

// What smrl writes passes the readers with the run's config as bounds:
// empty cells (one seed's intervals, no oracle, β, ball_accept and lambda
// of agents without them) and episodes that end before the horizon included.
func TestReadersAcceptWhatResultsWrites(t *testing.T) {
	const seeds, episodes, horizon = 1, 4, 10
	res := &record.Result{}
	for _, a := range []string{"sm", "sm-ucb"} {
		res.Trials = append(res.Trials, record.Trial{Agent: a, Seed: 0})
		var eps []record.Episode
		for k := 1; k <= episodes; k++ {
			e := record.Episode{Episode: k, Reward: 0.5 * float64(k), Steps: horizon - k%2, PlusCount: k,
				WError: 1 / float64(k), Beta: math.NaN(), Accept: math.NaN(), W: []float64{1, float64(k)}}
			if a == "sm-ucb" {
				e.Beta, e.Accept = 2, 0.5
				e.Lambda = 0.1 // lambda: cv (the sm rows leave the cell empty)
			}
			eps = append(eps, e)
		}
		res.Episodes = append(res.Episodes, eps)
	}
	rows := results.Rows(res)
	dir := t.TempDir()
	var ep, sum bytes.Buffer
	if err := results.WriteEpisodes(&ep, rows, 1, 2); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(&sum, results.Summarise(rows, horizon)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, episodesFile), ep.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, summaryFile), sum.Bytes(), 0o644)
	opt := Options{Horizon: horizon, Episodes: episodes, Seeds: seeds}
	if _, err := readSummary(filepath.Join(dir, summaryFile), opt); err != nil {
		t.Errorf("summary.csv: %v", err)
	}
	if _, err := readEpisodes(filepath.Join(dir, episodesFile), opt); err != nil {
		t.Errorf("episodes.csv: %v", err)
	}
}
