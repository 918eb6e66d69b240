package plotting

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/fsutil"
)

// File names inside a results directory.
const (
	episodesFile = "episodes.csv"
	summaryFile  = "summary.csv"
)

// table is a parsed CSV file: its header, its records and the line on which
// each record starts, for error messages.
type table struct {
	path   string
	col    map[string]int // column name → index
	header []string
	rows   [][]string
	lines  []int
}

// readTable reads a whole CSV file and checks that every column in required
// is present. Errors name the file and, for content errors, the line.
//
// smrl ends every file it writes with a newline: a file without one was
// cut short (mid-number, perhaps) and is refused.
func readTable(path string, required []string) (*table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Invalid(fmt.Errorf("reading %s: %w", path, err))
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil, errs.Invalid(fmt.Errorf("%s does not end with a newline: the file is truncated", path))
	}
	return parseTable(path, bytes.NewReader(data), required)
}

// parseTable is readTable on an open reader; path only names the input.
func parseTable(path string, rd io.Reader, required []string) (*table, error) {
	r := csv.NewReader(rd)
	header, err := r.Read()
	if err == io.EOF {
		return nil, lineErr(path, 1, errors.New("empty file, want a header"))
	}
	if err != nil {
		return nil, csvErr(path, err)
	}
	t := &table{path: path, col: make(map[string]int, len(header)), header: header}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		header[i] = h
		if _, dup := t.col[h]; dup {
			return nil, lineErr(path, 1, fmt.Errorf("duplicate column %q", h))
		}
		t.col[h] = i
	}
	for _, name := range required {
		if _, ok := t.col[name]; !ok {
			return nil, lineErr(path, 1, fmt.Errorf("missing column %q (header is %q, want at least %q)",
				name, strings.Join(header, ","), strings.Join(required, ",")))
		}
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(path, err)
		}
		line, _ := r.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		t.rows = append(t.rows, rec)
		t.lines = append(t.lines, line)
	}
	if len(t.rows) == 0 {
		return nil, lineErr(path, 2, errors.New("no data rows"))
	}
	return t, nil
}

// lineErr formats an error as "FILE line N: ..." and marks it as invalid
// input.
func lineErr(path string, line int, err error) error {
	return errs.Invalid(fmt.Errorf("%s line %d: %w", path, line, err))
}

// csvErr converts an encoding/csv error into lineErr form.
func csvErr(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return lineErr(path, pe.Line, pe.Err)
	}
	return fmt.Errorf("reading %s: %w", path, err)
}

// cell returns row i's cell in column name, for parsing with errors that
// name the file, line and column (fsutil.Cell: NaN and ±Inf, which smrl
// never writes, are refused).
func (t *table) cell(i int, name string) fsutil.Cell {
	j := t.col[name]
	return fsutil.Cell{Path: t.path, Line: t.lines[i], Column: j + 1, Name: name, Text: t.rows[i][j]}
}

// float parses a required numeric cell: a finite number.
func (t *table) float(i int, name string) (float64, error) { return t.cell(i, name).Float(false) }

// optFloat parses a numeric cell that is empty where smrl writes NaN (an
// undefined value): empty is NaN, anything else a finite number.
func (t *table) optFloat(i int, name string) (float64, error) { return t.cell(i, name).Float(true) }

// integer parses an integer cell in [lo, hi].
func (t *table) integer(i int, name string, lo, hi int) (int, error) {
	return t.cell(i, name).Int(lo, hi)
}

// upTo is the bound n of a count from the config, or no bound when n is
// not known (0).
func upTo(n int) int {
	if n > 0 {
		return n
	}
	return math.MaxInt
}

// has reports whether the file has the column name.
func (t *table) has(name string) bool {
	_, ok := t.col[name]
	return ok
}

// agent returns the non-empty agent name of row i.
func (t *table) agent(i int, name string) (string, error) {
	c := t.cell(i, name)
	if c.Text == "" {
		return "", c.Errorf("empty name")
	}
	return c.Text, nil
}

// summaryColumns are the columns summary.csv must have.
var summaryColumns = []string{
	"agent", "episode", "seeds", "reward_mean",
	"cum_reward_mean", "cum_reward_lo", "cum_reward_hi",
	"cum_regret_mean", "cum_regret_lo", "cum_regret_hi",
	"plus_count_mean", "plus_count_lo", "plus_count_hi",
	"w_error_mean",
}

// summaryRow is one row of summary.csv. Empty optional cells are NaN.
type summaryRow struct {
	Episode, Seeds                          int
	RewardMean                              float64
	CumRewardMean, CumRewardLo, CumRewardHi float64
	CumRegretMean, CumRegretLo, CumRegretHi float64
	PlusCountMean, PlusCountLo, PlusCountHi float64
	WErrorMean                              float64
	RewardLo, RewardHi                      float64 // NaN in files from before they were written
	StepsMean, StepsLo, StepsHi             float64 // likewise
	FinalReturnMean, FinalReturnLo          float64 // likewise; per agent
	FinalReturnHi, FirstFullMedian          float64
	FullSeeds                               float64
	EpisodeReturn, EpisodeLength            [3]float64 // mean, lo, hi per agent; NaN in older files
}

// summaryData is a parsed summary.csv: agents in legend order and each
// agent's rows sorted by episode.
type summaryData struct {
	Agents []string
	Rows   map[string][]summaryRow
	// SEBand is, per agent and episode, the mean over seeds of ‖SE(Ŵ)‖_F,
	// the Frobenius norm of the standard-error matrix of episodes.csv's
	// se_k_j columns (stats.save_se); nil when the file has none.
	SEBand map[string]map[int]float64
}

// summaryNumbers are the numeric columns of summary.csv other than the
// counts, in the kinds smrl writes them (results.SummaryColumn): optional
// ones are empty where undefined (intervals with one seed, regret without
// an oracle). Columns beyond summaryColumns were added later and are absent
// (NaN) in older results directories. field is where a row keeps the
// value (nil: checked only).
var summaryNumbers = []struct {
	name     string
	optional bool
	field    func(r *summaryRow) *float64
}{
	{"reward_mean", false, func(r *summaryRow) *float64 { return &r.RewardMean }},
	{"cum_reward_mean", false, func(r *summaryRow) *float64 { return &r.CumRewardMean }},
	{"plus_count_mean", false, func(r *summaryRow) *float64 { return &r.PlusCountMean }},
	{"cum_reward_lo", true, func(r *summaryRow) *float64 { return &r.CumRewardLo }},
	{"cum_reward_hi", true, func(r *summaryRow) *float64 { return &r.CumRewardHi }},
	{"plus_count_lo", true, func(r *summaryRow) *float64 { return &r.PlusCountLo }},
	{"plus_count_hi", true, func(r *summaryRow) *float64 { return &r.PlusCountHi }},
	{"cum_regret_mean", true, func(r *summaryRow) *float64 { return &r.CumRegretMean }},
	{"cum_regret_lo", true, func(r *summaryRow) *float64 { return &r.CumRegretLo }},
	{"cum_regret_hi", true, func(r *summaryRow) *float64 { return &r.CumRegretHi }},
	{"w_error_mean", true, func(r *summaryRow) *float64 { return &r.WErrorMean }},
	{"reward_lo", true, func(r *summaryRow) *float64 { return &r.RewardLo }},
	{"reward_hi", true, func(r *summaryRow) *float64 { return &r.RewardHi }},
	{"steps_mean", false, func(r *summaryRow) *float64 { return &r.StepsMean }},
	{"steps_lo", true, func(r *summaryRow) *float64 { return &r.StepsLo }},
	{"steps_hi", true, func(r *summaryRow) *float64 { return &r.StepsHi }},
	{"final_return_mean", false, func(r *summaryRow) *float64 { return &r.FinalReturnMean }},
	{"final_return_lo", true, func(r *summaryRow) *float64 { return &r.FinalReturnLo }},
	{"final_return_hi", true, func(r *summaryRow) *float64 { return &r.FinalReturnHi }},
	{"first_full_median", true, func(r *summaryRow) *float64 { return &r.FirstFullMedian }},
	{"beta_mean", true, nil},
	{"regret_slope", true, nil},
	{"episode_return_mean", false, func(r *summaryRow) *float64 { return &r.EpisodeReturn[0] }},
	{"episode_return_lo", true, func(r *summaryRow) *float64 { return &r.EpisodeReturn[1] }},
	{"episode_return_hi", true, func(r *summaryRow) *float64 { return &r.EpisodeReturn[2] }},
	{"episode_length_mean", false, func(r *summaryRow) *float64 { return &r.EpisodeLength[0] }},
	{"episode_length_lo", true, func(r *summaryRow) *float64 { return &r.EpisodeLength[1] }},
	{"episode_length_hi", true, func(r *summaryRow) *float64 { return &r.EpisodeLength[2] }},
}

// readSummary reads and validates DIR/summary.csv: every cell as smrl
// writes it (numbers finite, empty only where the value may be undefined,
// counts integers), with episode and seeds at most opt.Episodes and
// opt.Seeds when those are known (positive).
func readSummary(path string, opt Options) (*summaryData, error) {
	t, err := readTable(path, summaryColumns)
	if err != nil {
		return nil, err
	}
	d := &summaryData{Rows: map[string][]summaryRow{}}
	seen := map[string]map[int]bool{}
	for i := range t.rows {
		a, err := t.agent(i, "agent")
		if err != nil {
			return nil, err
		}
		var r summaryRow
		if r.Episode, err = t.integer(i, "episode", 1, upTo(opt.Episodes)); err != nil {
			return nil, err
		}
		if r.Seeds, err = t.integer(i, "seeds", 1, upTo(opt.Seeds)); err != nil {
			return nil, err
		}
		for _, c := range summaryNumbers {
			dst := new(float64)
			if c.field != nil {
				dst = c.field(&r)
			}
			*dst = math.NaN() // a later column, absent in older files
			if !t.has(c.name) {
				continue
			}
			if *dst, err = t.cell(i, c.name).Float(c.optional); err != nil {
				return nil, err
			}
		}
		r.FullSeeds = math.NaN()
		if t.has("full_seeds") {
			n, err := t.integer(i, "full_seeds", 0, r.Seeds)
			if err != nil {
				return nil, err
			}
			r.FullSeeds = float64(n)
		}
		if seen[a] == nil {
			seen[a] = map[int]bool{}
			d.Agents = append(d.Agents, a)
		}
		if seen[a][r.Episode] {
			return nil, lineErr(path, t.lines[i], fmt.Errorf("duplicate row for agent %q episode %d", a, r.Episode))
		}
		seen[a][r.Episode] = true
		d.Rows[a] = append(d.Rows[a], r)
	}
	// Agents stay in the file's order, the config's: the order of the
	// terminal table, the report and every legend.
	for _, rows := range d.Rows {
		sort.Slice(rows, func(i, j int) bool { return rows[i].Episode < rows[j].Episode })
	}
	return d, nil
}

// hasRegret reports whether any agent other than the oracle has a regret.
func (d *summaryData) hasRegret() bool {
	for a, rows := range d.Rows {
		if config.IsBaseline(a) {
			continue
		}
		for _, r := range rows {
			if !math.IsNaN(r.CumRegretMean) {
				return true
			}
		}
	}
	return false
}

// terminates reports whether some agent's mean episode length is below the
// horizon: the episodes end at terminal states.
func (d *summaryData) terminates(horizon int) bool {
	for _, rows := range d.Rows {
		for _, r := range rows {
			if horizon > 0 && r.StepsMean < float64(horizon) {
				return true
			}
		}
	}
	return false
}

// returnIsLength reports whether every row's mean return equals its mean
// length, as with a reward of 1 per step: a length figure would repeat the
// return figure.
func (d *summaryData) returnIsLength() bool {
	for _, rows := range d.Rows {
		for _, r := range rows {
			if math.IsNaN(r.StepsMean) || r.RewardMean != r.StepsMean || r.RewardLo != r.StepsLo && !(math.IsNaN(r.RewardLo) && math.IsNaN(r.StepsLo)) {
				return false
			}
		}
	}
	return len(d.Rows) > 0
}

// maxSeeds is the largest seed count of any row.
func (d *summaryData) maxSeeds() int {
	n := 0
	for _, rows := range d.Rows {
		for _, r := range rows {
			n = max(n, r.Seeds)
		}
	}
	return n
}

// episodeColumns are the columns episodes.csv must have, before the
// variable number of w_i_j columns.
var episodeColumns = []string{
	"agent", "seed", "episode", "reward", "cum_reward", "regret",
	"cum_regret", "plus_count", "w_error",
}

// episodeNumbers are the numeric columns of episodes.csv other than the
// counts and W, in the kinds smrl writes them (results.EpisodesColumn):
// optional ones are empty where undefined. beta and ball_accept are absent
// in older files, lambda without lambda: cv, the refit diagnostics cond,
// min_eig_n and w_step in files of earlier versions.
var episodeNumbers = []struct {
	name     string
	optional bool
}{
	{"reward", false}, {"cum_reward", false},
	{"regret", true}, {"cum_regret", true}, {"w_error", true},
	{"beta", true}, {"ball_accept", true}, {"lambda", true},
	{"cond", true}, {"min_eig_n", true}, {"w_step", true},
}

// wColumn matches the names of the estimated-W columns, w_i_j.
var wColumn = regexp.MustCompile(`^w_(\d+)_(\d+)$`)

// seColumn matches the names of the standard-error columns, se_i_j.
var seColumn = regexp.MustCompile(`^se_(\d+)_(\d+)$`)

// seBands returns, per agent and episode, the mean over seeds of ‖SE‖_F =
// sqrt(Σ_kj se_kj²) of the rows of episodes.csv at path with se cells
// (stats.save_se), nil when it has no se columns. Cells are read as
// readEpisodes validates them (finite, or empty).
func seBands(path string, required []string) (map[string]map[int]float64, error) {
	t, err := readTable(path, required)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, name := range t.header {
		if seColumn.MatchString(name) {
			cols = append(cols, name)
		}
	}
	if len(cols) == 0 {
		return nil, nil
	}
	type key struct {
		agent string
		ep    int
	}
	sum, cnt := map[key]float64{}, map[key]int{}
	for i := range t.rows {
		a, err := t.agent(i, "agent")
		if err != nil {
			return nil, err
		}
		ep, err := t.integer(i, "episode", 1, math.MaxInt32)
		if err != nil {
			return nil, err
		}
		var q float64
		has := false
		for _, c := range cols {
			v, err := t.optFloat(i, c)
			if err != nil {
				return nil, err
			}
			if !math.IsNaN(v) {
				q += v * v
				has = true
			}
		}
		if has {
			k := key{a, ep}
			sum[k] += math.Sqrt(q)
			cnt[k]++
		}
	}
	out := map[string]map[int]float64{}
	for k, s := range sum {
		if out[k.agent] == nil {
			out[k.agent] = map[int]float64{}
		}
		out[k.agent][k.ep] = s / float64(cnt[k])
	}
	return out, nil
}

// finalW is one agent's estimated W at the last episode of its first seed.
type finalW struct {
	Seed, Episode int
	W             []float64 // row-major; nil when the cells are empty
}

// readEpisodes reads and validates DIR/episodes.csv and returns, per agent,
// the W of the last episode of the smallest seed (seed 0 in a complete run).
// Every cell must be as smrl writes it (numbers finite, empty only where
// the value may be undefined, counts integers), with seed below opt.Seeds,
// episode at most opt.Episodes and steps at most opt.Horizon when those
// are known (positive), and plus_count at most steps.
func readEpisodes(path string, opt Options) (map[string]finalW, error) {
	t, err := readTable(path, episodeColumns)
	if err != nil {
		return nil, err
	}
	fw, err := newFinalWs(t)
	if err != nil {
		return nil, err
	}
	acols := actionColumns(t)
	for i := range t.rows {
		if err := fw.key(i, opt); err != nil {
			return nil, err
		}
		steps := upTo(opt.Horizon) // older files have no steps column
		if t.has("steps") {
			if steps, err = t.integer(i, "steps", 1, upTo(opt.Horizon)); err != nil {
				return nil, err
			}
		}
		if _, err := t.integer(i, "plus_count", 0, steps); err != nil {
			return nil, err
		}
		for _, c := range episodeNumbers {
			if !t.has(c.name) {
				continue
			}
			if _, err := t.cell(i, c.name).Float(c.optional); err != nil {
				return nil, err
			}
		}
		if err := actionCells(t, i, steps, acols); err != nil {
			return nil, err
		}
		if err := fw.row(i); err != nil {
			return nil, err
		}
	}
	return fw.out, nil
}

// readWFile reads and validates the w.csv at path (format version 2,
// results.WFile): per agent the W of the last episode of its smallest
// seed, as readEpisodes reads it from episodes.csv in version 1. Its
// agent, seed and episode cells are checked like episodes.csv's.
func readWFile(path string, opt Options) (map[string]finalW, error) {
	t, err := readTable(path, []string{"agent", "seed", "episode"})
	if err != nil {
		return nil, err
	}
	fw, err := newFinalWs(t)
	if err != nil {
		return nil, err
	}
	for i := range t.rows {
		if err := fw.key(i, opt); err != nil {
			return nil, err
		}
		if err := fw.row(i); err != nil {
			return nil, err
		}
	}
	return fw.out, nil
}

// finalWs collects, from a table with the columns agent, seed, episode
// and w_i_j (episodes.csv of format version 1, or w.csv), each agent's
// final W: that of the last episode of its smallest seed.
type finalWs struct {
	t     *table
	wcols []string // w_i_j in row-major order
	seen  map[wKey]bool
	out   map[string]finalW
	cur   wKey // the key of the row key read last
}

// wKey is a row's (agent, seed, episode).
type wKey struct {
	agent         string
	seed, episode int
}

// newFinalWs finds t's W columns.
func newFinalWs(t *table) (*finalWs, error) {
	type wcol struct {
		i, j int
		name string
	}
	var wcols []wcol
	for _, name := range t.header {
		m := wColumn.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		i, err1 := strconv.Atoi(m[1])
		j, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			return nil, lineErr(t.path, 1, fmt.Errorf("bad W column name %q", name))
		}
		wcols = append(wcols, wcol{i, j, name})
	}
	sort.Slice(wcols, func(a, b int) bool {
		if wcols[a].i != wcols[b].i {
			return wcols[a].i < wcols[b].i
		}
		return wcols[a].j < wcols[b].j
	})
	fw := &finalWs{t: t, seen: map[wKey]bool{}, out: map[string]finalW{}}
	for _, c := range wcols {
		fw.wcols = append(fw.wcols, c.name)
	}
	return fw, nil
}

// key reads and checks row i's agent, seed (below opt.Seeds) and episode
// (at most opt.Episodes), which no earlier row may repeat.
func (fw *finalWs) key(i int, opt Options) error {
	t := fw.t
	a, err := t.agent(i, "agent")
	if err != nil {
		return err
	}
	seed, err := t.integer(i, "seed", 0, upTo(opt.Seeds)-1)
	if err != nil {
		return err
	}
	ep, err := t.integer(i, "episode", 1, upTo(opt.Episodes))
	if err != nil {
		return err
	}
	k := wKey{a, seed, ep}
	if fw.seen[k] {
		return lineErr(t.path, t.lines[i], fmt.Errorf("duplicate row for agent %q seed %d episode %d", a, seed, ep))
	}
	fw.seen[k] = true
	fw.cur = k
	return nil
}

// row reads the W of row i, whose key was read last, and keeps it when it
// is its agent's final one. An agent's W fills a prefix of the cells
// (agents with smaller families leave the trailing ones empty).
func (fw *finalWs) row(i int) error {
	t := fw.t
	w := make([]float64, len(fw.wcols))
	filled := 0
	for n, c := range fw.wcols {
		var err error
		if w[n], err = t.optFloat(i, c); err != nil {
			return err
		}
		if !math.IsNaN(w[n]) {
			if filled != n {
				return lineErr(t.path, t.lines[i], fmt.Errorf("the W cell %s is set after an empty one", c))
			}
			filled++
		}
	}
	w = w[:filled]
	if filled == 0 {
		w = nil
	}
	k := fw.cur
	cur, ok := fw.out[k.agent]
	if !ok || k.seed < cur.Seed || (k.seed == cur.Seed && k.episode > cur.Episode) {
		fw.out[k.agent] = finalW{Seed: k.seed, Episode: k.episode, W: w}
	}
	return nil
}

// actionColumns are the action counts' columns action_0, action_1, … of t.
func actionColumns(t *table) []string {
	var cols []string
	for k := 0; t.has(fmt.Sprintf("action_%d", k)); k++ {
		cols = append(cols, fmt.Sprintf("action_%d", k))
	}
	return cols
}

// actionCells checks the action counts (columns cols, actionColumns) of
// row i: each an integer in [0, steps], or empty (a trial an earlier
// version ran, in a run resumed by this one), and together steps when set.
func actionCells(t *table, i, steps int, cols []string) error {
	sum, set := 0, false
	for _, name := range cols {
		if t.rows[i][t.col[name]] == "" {
			continue
		}
		n, err := t.integer(i, name, 0, steps)
		if err != nil {
			return err
		}
		sum += n
		set = true
	}
	if set && sum != steps {
		return lineErr(t.path, t.lines[i], fmt.Errorf("the action counts sum to %d, the row's steps are %d", sum, steps))
	}
	return nil
}

// sweepPoint is the error of one method at one n, aggregated over repeats.
type sweepPoint struct {
	N                  float64
	Mean, SD, Min, Max float64
	Repeats            int
}

// band is the point's interval in the sweep figure, mean ± 1.96·sd/√R,
// with the smallest repeat (or the mean) as its lower end where that
// interval reaches 0, which a log axis cannot show.
func (pt sweepPoint) band() (lo, hi float64) {
	half := 1.96 * pt.SD / math.Sqrt(float64(pt.Repeats))
	lo = pt.Mean - half
	if lo <= 0 {
		lo = pt.Min
		if lo <= 0 {
			lo = pt.Mean // all-zero repeats except some: no lower band
		}
	}
	return lo, pt.Mean + half
}

// sweepData is a parsed sweep CSV: methods in file order.
type sweepData struct {
	Methods []string
	Points  map[string][]sweepPoint // sorted by N
}

// sweepColumns are the columns of the estimation-error sweep CSV.
var sweepColumns = []string{"method", "n", "repeat", "frobenius_error"}

// readSweep reads and aggregates an estimation-error sweep CSV.
func readSweep(path string) (*sweepData, error) {
	t, err := readTable(path, sweepColumns)
	if err != nil {
		return nil, err
	}
	type key struct {
		method string
		n      int
	}
	vals := map[key][]float64{}
	type top struct {
		e   float64
		row int
	}
	largest := map[key]top{} // each point's largest error and its row, for a message
	reps := map[key]map[int]bool{}
	d := &sweepData{Points: map[string][]sweepPoint{}}
	for i := range t.rows {
		m, err := t.agent(i, "method")
		if err != nil {
			return nil, err
		}
		n, err := t.integer(i, "n", 1, math.MaxInt)
		if err != nil {
			return nil, err
		}
		rep, err := t.integer(i, "repeat", 0, math.MaxInt)
		if err != nil {
			return nil, err
		}
		e, err := t.float(i, "frobenius_error")
		if err != nil {
			return nil, err
		}
		if e < 0 {
			return nil, t.cell(i, "frobenius_error").Errorf("%v is negative", e)
		}
		k := key{m, n}
		if reps[k] == nil {
			reps[k] = map[int]bool{}
		}
		if reps[k][rep] {
			return nil, lineErr(path, t.lines[i], fmt.Errorf("duplicate row for method %q n %d repeat %d", m, n, rep))
		}
		reps[k][rep] = true
		if _, ok := d.Points[m]; !ok {
			d.Methods = append(d.Methods, m)
			d.Points[m] = nil
		}
		if vals[k] == nil {
			d.Points[m] = append(d.Points[m], sweepPoint{N: float64(n)})
		}
		if l, ok := largest[k]; !ok || e > l.e {
			largest[k] = top{e, i}
		}
		vals[k] = append(vals[k], e)
	}
	for _, m := range d.Methods {
		pts := d.Points[m]
		for i := range pts {
			v := vals[key{m, int(pts[i].N)}]
			pts[i].Repeats = len(v)
			pts[i].Mean, pts[i].SD = meanSD(v)
			pts[i].Min, pts[i].Max = v[0], v[0]
			for _, x := range v {
				pts[i].Min = math.Min(pts[i].Min, x)
				pts[i].Max = math.Max(pts[i].Max, x)
			}
			// A finite error so large that the figure's values overflow (the
			// mean, its band, or c = mean·√n of the c/√n guide) cannot be
			// drawn: refused, naming the cell, as a cell out of range is.
			_, hi := pts[i].band()
			if !isFinite(pts[i].Mean) || !isFinite(hi) || !isFinite(pts[i].Mean*math.Sqrt(pts[i].N)) {
				c := t.cell(largest[key{m, int(pts[i].N)}].row, "frobenius_error")
				return nil, c.Errorf("%s is too large to draw: the mean, its 95%% band or the c/√n guide of method %s at n = %d overflows a float64", c.Text, m, int(pts[i].N))
			}
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].N < pts[j].N })
	}
	return d, nil
}

// meanSD returns the mean and the sample standard deviation of v (0 for a
// single value). Finite values whose sum or squared deviations overflow
// are summed again scaled by the largest magnitude, so that the result is
// infinite only when the mean or sd themselves do not fit a float64.
func meanSD(v []float64) (mean, sd float64) {
	mean, sd = meanSDScaled(v, 1)
	if math.IsInf(mean, 0) || math.IsInf(sd, 0) {
		scale := 0.0
		for _, x := range v {
			scale = math.Max(scale, math.Abs(x))
		}
		if scale > 0 && !math.IsInf(scale, 0) {
			mean, sd = meanSDScaled(v, scale)
			mean, sd = mean*scale, sd*scale
		}
	}
	return mean, sd
}

// meanSDScaled is meanSD of the values of v divided by scale.
func meanSDScaled(v []float64, scale float64) (mean, sd float64) {
	for _, x := range v {
		mean += x / scale
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x/scale - mean) * (x/scale - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// resultsPaths returns the paths of episodes.csv and summary.csv in dir.
func resultsPaths(dir string) (episodes, summary string) {
	return filepath.Join(dir, episodesFile), filepath.Join(dir, summaryFile)
}
