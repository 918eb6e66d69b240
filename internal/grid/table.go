package grid

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// TableFile is the sweep table at a sweep directory's root.
const TableFile = "sweep.csv"

// Stat is a mean with its 95% interval (NaN: empty in the file).
type Stat struct{ Mean, Lo, Hi float64 }

// Row is one line of sweep.csv: one agent at one grid point, at the last
// episode of its point (values as in that point's summary.csv).
type Row struct {
	Point   string   // the point's directory name
	Values  []string // the point's value texts, per axis
	Agent   string
	Seeds   int
	Episode int // the last episode
	// CumReward and CumRegret are the cumulative reward and regret after
	// the last episode, over seeds; FinalReturn the mean return of the last
	// 20 episodes.
	CumReward, CumRegret, FinalReturn Stat
	RegretSlope                       float64
	WError                            float64 // mean |Ŵ − W0|_F after the last episode
}

// Header is the header of sweep.csv for grid g: point, one column per
// swept key (named by the key), agent, seeds (left out when seeds is a
// swept key: its column holds the same number), episode, then the
// statistics.
func (g *Grid) Header() []string {
	h := []string{"point"}
	h = append(h, g.Keys()...)
	h = append(h, "agent")
	if !slices.Contains(g.Keys(), "seeds") {
		h = append(h, "seeds")
	}
	return append(h, "episode",
		"cum_reward_mean", "cum_reward_lo", "cum_reward_hi",
		"cum_regret_mean", "cum_regret_lo", "cum_regret_hi", "regret_slope",
		"final_return_mean", "final_return_lo", "final_return_hi", "w_error_mean")
}

// tableRequired are the statistics of sweep.csv that are never empty; the
// others are empty where undefined: an interval with one seed, regret
// without the oracle, the regret slope of a curve without two positive
// points, the W error of the oracle.
var tableRequired = map[string]bool{"cum_reward_mean": true, "final_return_mean": true}

func num(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteTable writes sweep.csv content: rows in the order given (points in
// grid order, agents in config order). Numbers are in Go's shortest
// round-trip form, NaN as an empty cell.
func (g *Grid) WriteTable(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(g.Header()); err != nil {
		return err
	}
	seedsSwept := slices.Contains(g.Keys(), "seeds")
	for _, r := range rows {
		rec := append([]string{r.Point}, r.Values...)
		rec = append(rec, r.Agent)
		if !seedsSwept {
			rec = append(rec, strconv.Itoa(r.Seeds))
		}
		rec = append(rec, strconv.Itoa(r.Episode))
		for _, s := range []Stat{r.CumReward, r.CumRegret} {
			rec = append(rec, num(s.Mean), num(s.Lo), num(s.Hi))
		}
		rec = append(rec, num(r.RegretSlope), num(r.FinalReturn.Mean), num(r.FinalReturn.Lo), num(r.FinalReturn.Hi), num(r.WError))
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadTable reads the sweep.csv at path of sweep s and checks it against
// s: the header, and one row per point and agent in order, with the
// point's name and values, the seeds and last episode of the point's
// config, and statistics that are finite numbers (empty only where smrl
// writes NaN: see tableRequired). A file that disagrees (truncated,
// edited, from another sweep) is an error naming the file, line and
// column, wrapping errs.ErrInvalidInput.
func (s *Sweep) ReadTable(path string) ([]Row, error) {
	recs, err := fsutil.ReadCSV(path, "the sweep has not finished (or was sharded and not merged)")
	if err != nil {
		return nil, err
	}
	want := s.Grid.Header()
	if len(recs) == 0 || !slices.Equal(recs[0], want) {
		return nil, errs.Invalid(fmt.Errorf("%s line 1: header is not that of this sweep: want %s", path, strings.Join(want, ",")))
	}
	if n, m := len(recs)-1, s.Rows(); n != m {
		return nil, errs.Invalid(fmt.Errorf("%s has %d rows but the sweep has %d (%d points and their agents): the file is truncated or from another sweep", path, n, m, len(s.Points)))
	}
	// The (point, agent) of each row, in order.
	var rowPoint []Point
	var rowAgent []string
	for _, p := range s.Points {
		for _, a := range p.Config.Agents {
			rowPoint, rowAgent = append(rowPoint, p), append(rowAgent, a)
		}
	}
	nk := len(s.Grid.Axes)
	seedsSwept := slices.Contains(s.Grid.Keys(), "seeds")
	var rows []Row
	for i, rec := range recs[1:] {
		line := i + 2
		p, agent := rowPoint[i], rowAgent[i]
		fail := func(format string, args ...any) error {
			return errs.Invalid(fmt.Errorf("%s line %d: "+format, append([]any{path, line}, args...)...))
		}
		if rec[0] != p.Name || !slices.Equal(rec[1:1+nk], s.Grid.Texts(p.Coords)) || rec[1+nk] != agent {
			return nil, fail("want point %s, agent %s: the file is from another sweep or was edited", p.Name, agent)
		}
		r := Row{Point: p.Name, Values: rec[1 : 1+nk], Agent: agent}
		cell := func(j int) fsutil.Cell {
			return fsutil.Cell{Path: path, Line: line, Column: j + 1, Name: want[j], Text: rec[j]}
		}
		// The point's last summary row: every seed, the last episode.
		integer := func(j int, want int, key string) (int, error) {
			v, err := cell(j).Int(1, math.MaxInt)
			if err == nil && v != want {
				err = cell(j).Errorf("%d, but the point's config has %s = %d: the file was edited or is from another sweep", v, key, want)
			}
			return v, err
		}
		j := 2 + nk
		if seedsSwept {
			r.Seeds = p.Config.Seeds
		} else {
			if r.Seeds, err = integer(j, p.Config.Seeds, "seeds"); err != nil {
				return nil, err
			}
			j++
		}
		if r.Episode, err = integer(j, p.Config.Episodes, "episodes"); err != nil {
			return nil, err
		}
		j++
		f := make([]float64, len(rec)-j)
		for k := range f {
			if f[k], err = cell(j + k).Float(!tableRequired[want[j+k]]); err != nil {
				return nil, err
			}
		}
		r.CumReward = Stat{f[0], f[1], f[2]}
		r.CumRegret = Stat{f[3], f[4], f[5]}
		r.RegretSlope = f[6]
		r.FinalReturn = Stat{f[7], f[8], f[9]}
		r.WError = f[10]
		rows = append(rows, r)
	}
	return rows, nil
}
