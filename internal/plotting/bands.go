package plotting

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"

	"github.com/smrl-dev/smrl/internal/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// span is the range [Lo, Hi] of the seeds' values of one quantity at one
// (agent, episode).
type span struct{ Lo, Hi float64 }

// seedSpans holds, per episodes.csv column, agent and episode, the range
// of the seeds' values: the bounds that the 95% bands of the figures are
// clipped to. A Student-t interval over few seeds is wide (t = 12.7 for
// two) and can leave what is possible (a CartPole return above H, a
// pendulum return above 0); the range of the observed values never does,
// and a band clipped to it is still an interval for the mean.
type seedSpans struct {
	r map[string]map[string]map[int]span
	// seeds holds, per column, agent and seed, the seed's values by
	// episode (for Options.SeedLines).
	seeds map[string]map[string]map[int]plotter.XYs
}

// readSeedSpans reads the ranges of the columns cols of episodes.csv at
// path, which readEpisodes has validated (cells it cannot parse are
// skipped: they are empty, undefined values), and with seedLines each
// seed's values too. A column the file lacks has no ranges.
func readSeedSpans(path string, cols []string, seedLines bool) (seedSpans, error) {
	f, err := os.Open(path)
	if err != nil {
		return seedSpans{}, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return seedSpans{}, fmt.Errorf("reading %s: %w", path, err)
	}
	agentCol, epCol := slices.Index(head, "agent"), slices.Index(head, "episode")
	idx := map[string]int{}
	out := seedSpans{r: map[string]map[string]map[int]span{}, seeds: map[string]map[string]map[int]plotter.XYs{}}
	for _, c := range cols {
		if j := slices.Index(head, c); j >= 0 {
			idx[c] = j
			out.r[c] = map[string]map[int]span{}
			out.seeds[c] = map[string]map[int]plotter.XYs{}
		}
	}
	seedCol := -1 // no seed lines
	if seedLines {
		seedCol = slices.Index(head, "seed")
	}
	if agentCol < 0 || epCol < 0 {
		return out, nil
	}
	for {
		rec, err := r.Read()
		if err != nil {
			break // io.EOF; readEpisodes reported any other error
		}
		if len(rec) != len(head) {
			continue
		}
		ep, err := strconv.Atoi(rec[epCol])
		if err != nil {
			continue
		}
		agent := rec[agentCol]
		for c, j := range idx {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil || !isFinite(v) {
				continue
			}
			byAgent := out.r[c][agent]
			if byAgent == nil {
				byAgent = map[int]span{}
				out.r[c][agent] = byAgent
			}
			s, ok := byAgent[ep]
			if !ok {
				s = span{v, v}
			}
			byAgent[ep] = span{math.Min(s.Lo, v), math.Max(s.Hi, v)}
			if seedCol >= 0 {
				if seed, err := strconv.Atoi(rec[seedCol]); err == nil {
					if out.seeds[c][agent] == nil {
						out.seeds[c][agent] = map[int]plotter.XYs{}
					}
					out.seeds[c][agent][seed] = append(out.seeds[c][agent][seed], plotter.XY{X: float64(ep), Y: v})
				}
			}
		}
	}
	return out, nil
}

// readSeedRows reads the rows of episodes.csv at path that the results
// table's intervals are computed from (agent, seed, episode, reward,
// steps, cumulative reward and regret, plus count), for the seeds' ranges
// of the report's table (results.WithSeedRanges). A file without one of
// those columns (an older one), or that cannot be read, gives no rows: the
// table then shows its intervals unclipped. readEpisodes has validated
// the cells; an empty (undefined) cell reads as NaN.
func readSeedRows(path string) []results.Row {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true // a run's W columns can make a row long: streamed, not held
	head, err := r.Read()
	if err != nil {
		return nil
	}
	col := map[string]int{}
	for _, name := range []string{"agent", "seed", "episode", "reward", "steps", "cum_reward", "cum_regret", "plus_count"} {
		j := slices.Index(head, name)
		if j < 0 {
			return nil
		}
		col[name] = j
	}
	num := func(rec []string, name string) float64 {
		v, err := strconv.ParseFloat(rec[col[name]], 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	var rows []results.Row
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			return nil
		}
		seed, err1 := strconv.Atoi(rec[col["seed"]])
		ep, err2 := strconv.Atoi(rec[col["episode"]])
		steps, err3 := strconv.Atoi(rec[col["steps"]])
		plus, err4 := strconv.Atoi(rec[col["plus_count"]])
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil
		}
		rows = append(rows, results.Row{Agent: rec[col["agent"]], Seed: seed, Episode: ep, Reward: num(rec, "reward"), Steps: steps,
			CumReward: num(rec, "cum_reward"), CumRegret: num(rec, "cum_regret"), PlusCount: plus, WError: math.NaN(), Beta: math.NaN()})
	}
}

// clip narrows the bands of ss (one series per agent, named after it, with
// episodes as X) to the seeds' range of column col, by the rule of the
// tables (results.ClipToRange). Series or points without a range keep
// their band.
func (sp seedSpans) clip(ss []series, col string) {
	for _, s := range ss {
		byEp := sp.r[col][s.Name]
		if byEp == nil {
			continue
		}
		for i := range s.Lo {
			r, ok := byEp[int(s.X[i])]
			if !ok {
				continue
			}
			s.Lo[i], s.Hi[i] = results.ClipToRange(s.Lo[i], s.Hi[i], r.Lo, r.Hi)
		}
	}
}

// smooth replaces the mean and band of every series of ss by their
// trailing moving averages over k points (fewer at the start); k <= 1
// leaves them. Undefined (NaN) values are left out of a window.
func smooth(ss []series, k int) {
	if k <= 1 {
		return
	}
	for i := range ss {
		for _, v := range [][]float64{ss[i].Y, ss[i].Lo, ss[i].Hi} {
			if v == nil {
				continue
			}
			orig := append([]float64(nil), v...)
			for j := range v {
				var sum float64
				n := 0
				for _, x := range orig[max(0, j-k+1) : j+1] {
					if isFinite(x) {
						sum += x
						n++
					}
				}
				if n > 0 && isFinite(orig[j]) {
					v[j] = sum / float64(n)
				}
			}
		}
	}
}

// smoothNote is the title suffix of a figure smoothed over k episodes.
func smoothNote(k int) string {
	if k <= 1 {
		return ""
	}
	return fmt.Sprintf("; moving average over %d episodes", k)
}

// addSeedLines draws, under the series of ss, one thin line per seed of
// each agent of ss: its values of column col by episode, smoothed over k
// episodes like the means.
func (sp seedSpans) addSeedLines(p *plot.Plot, ss []series, col string, k int) error {
	for _, s := range ss {
		bySeed := sp.seeds[col][s.Name]
		seeds := make([]int, 0, len(bySeed))
		for seed := range bySeed {
			seeds = append(seeds, seed)
		}
		sort.Ints(seeds)
		for _, seed := range seeds {
			pts := append(plotter.XYs(nil), bySeed[seed]...)
			sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
			one := series{Y: make([]float64, len(pts))}
			for i := range pts {
				one.Y[i] = pts[i].Y
			}
			smooth([]series{one}, k)
			for i := range pts {
				pts[i].Y = one.Y[i]
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return fmt.Errorf("seed %d of %s: %w", seed, s.Name, err)
			}
			l.Color = withAlpha(s.Style.Color, seedLineAlpha)
			l.Width = vg.Points(0.6)
			addLean(p, l)
		}
	}
	return nil
}

// seedLineAlpha is the opacity of the per-seed lines.
const seedLineAlpha = 0.45
