package results

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestMeanCI(t *testing.T) {
	// t_{0.975, 4} = 2.776445105 (standard tables); sd of 1..5 is sqrt(2.5).
	s := MeanCI([]float64{1, 2, 3, 4, 5})
	h := 2.776445105 * math.Sqrt(2.5) / math.Sqrt(5)
	if !testutil.AbsWithin(s.Mean, 3, 1e-15) || !testutil.AbsWithin(s.Lo, (3-h), 1e-8) || !testutil.AbsWithin(s.Hi, (3+h), 1e-8) {
		t.Errorf("MeanCI = %+v, want 3 ± %g", s, h)
	}
	if one := MeanCI([]float64{7}); one.Mean != 7 || !math.IsNaN(one.Lo) || !math.IsNaN(one.Hi) {
		t.Errorf("one value: %+v", one)
	}
	if nan := MeanCI([]float64{1, math.NaN()}); !math.IsNaN(nan.Mean) {
		t.Errorf("NaN input: %+v", nan)
	}
}

func TestRowsPairRegretWithOracleOfSameSeed(t *testing.T) {
	res := &record.Result{
		Trials: []record.Trial{{Agent: "sm", Seed: 0}, {Agent: "sm", Seed: 1}, {Agent: "oracle", Seed: 0}, {Agent: "oracle", Seed: 1}},
		Episodes: [][]record.Episode{
			{{Episode: 1, Reward: 3, Steps: 4, WError: 0.5, Beta: 2.5, Accept: 0.25, W: []float64{1, 2}}, {Episode: 2, Reward: 4, WError: 0.25, Beta: 3, W: []float64{1, 1}}},
			{{Episode: 1, Reward: 1, Beta: 1.5, W: []float64{0, 0}}, {Episode: 2, Reward: 2, Beta: 2, W: []float64{0, 0}}},
			{{Episode: 1, Reward: 5, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(), W: []float64{1, 1}}, {Episode: 2, Reward: 5, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(), W: []float64{1, 1}}},
			{{Episode: 1, Reward: 2, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(), W: []float64{1, 1}}, {Episode: 2, Reward: 9, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(), W: []float64{1, 1}}},
		},
	}
	rows := Rows(res)
	want := []struct{ cum, reg, cumReg float64 }{{3, 2, 2}, {7, 1, 3}, {1, 1, 1}, {3, 7, 8}, {5, 0, 0}, {10, 0, 0}, {2, 0, 0}, {11, 0, 0}}
	for i, w := range want {
		r := rows[i]
		if r.CumReward != w.cum || r.Regret != w.reg || r.CumRegret != w.cumReg {
			t.Errorf("row %d (%s seed %d ep %d): cum %g regret %g cum regret %g, want %+v", i, r.Agent, r.Seed, r.Episode, r.CumReward, r.Regret, r.CumRegret, w)
		}
	}
	var b bytes.Buffer
	if err := WriteEpisodes(&b, rows, 1, 2); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "agent,seed,episode,reward,steps,cum_reward,regret,cum_regret,plus_count,w_error,beta,ball_accept,w_0_0,w_0_1" {
		t.Errorf("header %q", lines[0])
	}
	if lines[1] != "sm,0,1,3,4,3,2,2,0,0.5,2.5,0.25,1,2" || lines[5] != "oracle,0,1,5,0,5,0,0,0,,,,1,1" {
		t.Errorf("rows %q / %q", lines[1], lines[5])
	}
	// Without an oracle the regret cells are empty.
	res.Trials, res.Episodes = res.Trials[:2], res.Episodes[:2]
	b.Reset()
	WriteEpisodes(&b, Rows(res), 1, 2)
	if l := strings.Split(b.String(), "\n")[1]; l != "sm,0,1,3,4,3,,,0,0.5,2.5,0.25,1,2" {
		t.Errorf("no oracle: %q", l)
	}
	// W of different lengths (agents with different families): the shorter
	// leaves its trailing cells empty.
	short := []Row{{Agent: "lds", Seed: 0, Episode: 1, Reward: 1, Steps: 2, Regret: math.NaN(), CumRegret: math.NaN(), WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(), W: []float64{5, 6}},
		{Agent: "sm", Seed: 0, Episode: 1, Reward: 1, Steps: 2, Regret: math.NaN(), CumRegret: math.NaN(), WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(), W: []float64{1, 2, 3, 4}}}
	if d := WDims(short, 2); d != 2 {
		t.Errorf("WDims = %d, want 2", d)
	}
	b.Reset()
	WriteEpisodes(&b, short, 2, 2)
	if l := strings.Split(b.String(), "\n"); l[0] != "agent,seed,episode,reward,steps,cum_reward,regret,cum_regret,plus_count,w_error,beta,ball_accept,w_0_0,w_0_1,w_1_0,w_1_1" ||
		l[1] != "lds,0,1,1,2,0,,,0,,,,5,6,," || l[2] != "sm,0,1,1,2,0,,,0,,,,1,2,3,4" {
		t.Errorf("mixed W lengths: %q", l[:3])
	}
	sums := Summarise(Rows(res), 10)
	if len(sums) != 2 || sums[1].CumReward.Mean != 5 || sums[1].Seeds != 2 || sums[0].BetaMean != 2 || sums[1].BetaMean != 2.5 {
		t.Errorf("summary %+v", sums)
	}
}

func TestRegretSlope(t *testing.T) {
	var eps, sqrtReg, linReg []float64
	for k := 1; k <= 50; k++ {
		eps = append(eps, float64(k))
		sqrtReg = append(sqrtReg, 3*math.Sqrt(float64(k)))
		linReg = append(linReg, 2*float64(k))
	}
	if b := RegretSlope(eps, sqrtReg); !testutil.AbsWithin(b, 0.5, 1e-12) {
		t.Errorf("√k regret: slope %v, want 0.5", b)
	}
	if b := RegretSlope(eps, linReg); !testutil.AbsWithin(b, 1, 1e-12) {
		t.Errorf("linear regret: slope %v, want 1", b)
	}
	// Only the second half counts: a jump in the first half changes nothing.
	jumped := append([]float64(nil), sqrtReg...)
	jumped[3] = 1000
	if b := RegretSlope(eps, jumped); !testutil.AbsWithin(b, 0.5, 1e-12) {
		t.Errorf("first-half outlier: slope %v, want 0.5", b)
	}
	if b := RegretSlope(eps, make([]float64, 50)); !math.IsNaN(b) {
		t.Errorf("zero regret: slope %v, want NaN", b)
	}
	if b := RegretSlope([]float64{1}, []float64{1}); !math.IsNaN(b) {
		t.Errorf("one episode: slope %v, want NaN", b)
	}
	// Summarise repeats the agent's slope on each of its rows.
	var rows []Row
	for k := 1; k <= 8; k++ {
		rows = append(rows, Row{Agent: "sm", Episode: k, CumRegret: math.Sqrt(float64(k)), Beta: math.NaN()},
			Row{Agent: "oracle", Episode: k, CumRegret: 0, Beta: math.NaN()})
	}
	var b bytes.Buffer
	sums := Summarise(rows, 10)
	if err := WriteSummary(&b, sums); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.Contains(lines[0], ",w_error_mean,beta_mean,regret_slope,") {
		t.Errorf("summary header %q", lines[0])
	}
	for _, s := range sums {
		if s.Agent == "sm" && !testutil.AbsWithin(s.RegretSlope, 0.5, 1e-12) || s.Agent == "oracle" && !math.IsNaN(s.RegretSlope) {
			t.Errorf("%s episode %d: slope %v", s.Agent, s.Episode, s.RegretSlope)
		}
	}
	sm := strings.Split(lines[1], ",")
	j := slices.Index(SummaryHeader, "regret_slope")
	slope, err := strconv.ParseFloat(sm[j], 64)
	if err != nil || !testutil.AbsWithin(slope, 0.5, 1e-12) || sm[j-1] != "" || strings.Split(lines[9], ",")[j] != "" {
		t.Errorf("rows %q / %q: want the slope, empty beta_mean", lines[1], lines[9])
	}
}

// Survival statistics of terminating episodes: the mean return over the
// last FinalEpisodes episodes per seed, and the median first full-length
// episode (a seed that never lasts H counts as never).
func TestSurvivalStatistics(t *testing.T) {
	const h = 5
	var rows []Row
	// 25 episodes, 3 seeds; seed s reaches the horizon from episode 3+10s on
	// (seed 2 never: 3+20 > 22 is set below as never by capping steps).
	for s := 0; s < 3; s++ {
		for ep := 1; ep <= 25; ep++ {
			steps := 2
			if ep >= 3+10*s && s < 2 {
				steps = h
			}
			rows = append(rows, Row{Agent: "sm", Seed: s, Episode: ep, Reward: float64(steps), Steps: steps,
				Regret: math.NaN(), CumRegret: math.NaN(), WError: math.NaN(), Beta: math.NaN()})
		}
	}
	sums := Summarise(rows, h)
	last := sums[len(sums)-1]
	// Last 20 episodes (6..25): seed 0 all 5; seed 1 episodes 6..12 are 2 (7
	// of them), 13..25 are 5 (13); seed 2 all 2.
	want := []float64{5, (7*2 + 13*5) / 20.0, 2}
	m := (want[0] + want[1] + want[2]) / 3
	if !testutil.AbsWithin(last.FinalReturn.Mean, m, 1e-12) || !(last.FinalReturn.Lo < m && last.FinalReturn.Hi > m) {
		t.Errorf("final return %+v, want mean %g", last.FinalReturn, m)
	}
	// First full episodes 3, 13, never: the median is 13.
	if last.FirstFullMedian != 13 || last.FullSeeds != 2 || sums[0].FirstFullMedian != 13 {
		t.Errorf("first full median %g with %d seeds, want 13 with 2", last.FirstFullMedian, last.FullSeeds)
	}
	// Two of three never: the median is never (NaN).
	for i := range rows {
		if rows[i].Seed == 1 {
			rows[i].Steps = 2
		}
	}
	if got := Summarise(rows, h)[0]; !math.IsNaN(got.FirstFullMedian) || got.FullSeeds != 1 {
		t.Errorf("one of three seeds full: median %g, %d seeds; want NaN, 1", got.FirstFullMedian, got.FullSeeds)
	}
	var b bytes.Buffer
	if err := Table(&b, sums, Columns{Terminating: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "13 (2 of 3)") || !strings.Contains(b.String(), "return, last 20 ep") {
		t.Errorf("table:\n%s", b.String())
	}
}

// ReadSummary gives back the summaries WriteSummary wrote, NaN included.
func TestReadSummaryRoundTrip(t *testing.T) {
	res := &record.Result{Trials: []record.Trial{{Agent: "sm", Seed: 0}, {Agent: "sm", Seed: 1}, {Agent: "oracle", Seed: 0}, {Agent: "oracle", Seed: 1}}}
	for s := 0; s < 4; s++ {
		var eps []record.Episode
		for k := 1; k <= 3; k++ {
			eps = append(eps, record.Episode{Episode: k, Reward: float64(s*k) / 3, Steps: 10, PlusCount: k, WError: 1 / float64(k+s), Beta: math.NaN(), Accept: math.NaN()})
		}
		res.Episodes = append(res.Episodes, eps)
	}
	sums := Summarise(Rows(res), 10)
	var b bytes.Buffer
	if err := WriteSummary(&b, sums); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), SummaryFile)
	os.WriteFile(p, b.Bytes(), 0o644)
	back, err := ReadSummary(p)
	if err != nil {
		t.Fatal(err)
	}
	// summary.csv holds no seeds' ranges: WithSeedRanges gives them back.
	if back = WithSeedRanges(back, Rows(res)); fmt.Sprintf("%v", back) != fmt.Sprintf("%v", sums) {
		t.Errorf("read back\n%v\nwrote\n%v", back, sums)
	}
	// A cell smrl would not write names the file, line and column: NaN and
	// ±Inf (smrl writes NaN as an empty cell), an empty cell in a column
	// that is always defined, a count that is not a non-negative integer.
	// Rows: sm episodes 1-3, then the oracle's; 2 seeds.
	for _, tc := range []struct {
		line   int
		col    string
		text   string
		errHas string
	}{
		{2, "steps_mean", "ten", `line 2, column 7 (steps_mean): "ten" is not a number`},
		{2, "reward_lo", "NaN", `line 2, column 5 (reward_lo): "NaN" is not a finite number`},
		{3, "cum_regret_mean", "Inf", `line 3, column 13 (cum_regret_mean): "Inf" is not a finite number`},
		{4, "regret_slope", "-Inf", `line 4, column 26 (regret_slope): "-Inf" is not a finite number`},
		{5, "w_error_mean", "+Inf", `line 5, column 24 (w_error_mean): "+Inf" is not a finite number`},
		{2, "cum_reward_mean", "", `line 2, column 10 (cum_reward_mean): empty cell, want a number`},
		{2, "episode", "1.5", `line 2, column 2 (episode): "1.5" is not an integer`},
		{2, "episode", "0", `line 2, column 2 (episode): 0 is less than 1`},
		{3, "seeds", "-5", `line 3, column 3 (seeds): -5 is less than 1`},
		{2, "full_seeds", "3", `line 2, column 23 (full_seeds): 3 is out of range [0, 2]`},
		{2, "agent", "", `line 2, column 1 (agent): empty agent name`},
	} {
		lines := strings.Split(b.String(), "\n")
		cells := strings.Split(lines[tc.line-1], ",")
		cells[slices.Index(SummaryHeader, tc.col)] = tc.text
		lines[tc.line-1] = strings.Join(cells, ",")
		os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
		_, err := ReadSummary(p)
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), p+" "+tc.errHas) {
			t.Errorf("%s = %q on line %d: err = %v, want %q", tc.col, tc.text, tc.line, err, tc.errHas)
		}
	}
}

// Every column smrl writes has a kind for the readers; the W columns are
// optional (agents with smaller families leave them empty).
func TestColumnKinds(t *testing.T) {
	for _, c := range SummaryHeader {
		if _, ok := SummaryColumn(c); !ok {
			t.Errorf("summary.csv column %s has no kind", c)
		}
	}
	for _, c := range EpisodesHeader(2, 3, true, true) {
		if _, ok := EpisodesColumn(c); !ok {
			t.Errorf("episodes.csv column %s has no kind", c)
		}
	}
	for name, want := range map[string]bool{"w_1_2": true, "w_10_0": true, "w_1": false, "w_01_2": false, "w_1_2x": false, "x": false} {
		k, ok := EpisodesColumn(name)
		if ok != want || ok && k != Optional {
			t.Errorf("EpisodesColumn(%q) = %v, %v", name, k, ok)
		}
	}
}

// TestEpisodesLambdaColumn: the column lambda exists only when some row
// has a cross-validated λ; it is last, after the se columns, and empty on
// the rows of agents without one.
func TestEpisodesLambdaColumn(t *testing.T) {
	rows := []Row{
		{Agent: "sm", Seed: 0, Episode: 1, W: []float64{1, 2}, SE: []float64{0.1, 0.2}, Lambda: 1e-3, Regret: math.NaN(), CumRegret: math.NaN(), WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN()},
		{Agent: "oracle", Seed: 0, Episode: 1, W: []float64{1, 2}, Regret: math.NaN(), CumRegret: math.NaN(), WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN()},
	}
	var b strings.Builder
	if err := WriteEpisodes(&b, rows, 1, 2); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], ",w_0_0,w_0_1,se_0_0,se_0_1,lambda") || !strings.HasSuffix(lines[1], ",1,2,0.1,0.2,0.001") || !strings.HasSuffix(lines[2], ",1,2,,,") {
		t.Errorf("episodes.csv with a cross-validated λ:\n%s", b.String())
	}
	b.Reset()
	rows[0].Lambda = 0
	if err := WriteEpisodes(&b, rows, 1, 2); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "lambda") {
		t.Errorf("episodes.csv without a cross-validated λ has the column:\n%s", b.String())
	}
}

// t975 is distuv's quantile, on its first call for a df and from its
// table after.
func TestT975IsStudentsTQuantile(t *testing.T) {
	for range 2 {
		for df := 1; df <= 60; df++ {
			want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
			if got := t975(df); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("df %d: %v, distuv %v", df, got, want)
			}
		}
	}
}

// The tables' one number rule: four significant digits, whole numbers
// from 10⁴ on, −0 as 0.
func TestFormatNumber(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{4.77512, "4.775"}, {38.2249, "38.22"}, {0.138449, "0.1384"}, {10, "10"}, {6.5, "6.5"},
		{-123.14, "-123.1"}, {1234.56, "1235"}, {9999.6, "10000"}, {12345.6, "12346"}, {-250000, "-250000"},
		{0.000012345, "1.234e-05"}, {math.Copysign(0, -1), "0"}, {1e20, "1e+20"},
	} {
		if got := FormatNumber(c.x); got != c.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}
