package plotting

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// update regenerates the testdata fixtures: go test ./internal/plotting -run TestFixtures -update
var update = flag.Bool("update", false, "regenerate testdata fixtures")

// Fixture directories.
const (
	fixtureResults  = "testdata/results"  // sm, lds, oracle; 3 seeds; 6 episodes
	fixtureNoRegret = "testdata/noregret" // sm, lds; 1 seed; no oracle
	fixtureSweep    = "testdata/sweep.csv"
	fixtureHorizon  = 10
)

// trueW is the fixture's true W (1 × 2) for phi(s, a) = (s, a).
var trueW = []float64{0.8, 0.6}

// fixtureRow is one generated episodes.csv row.
type fixtureRow struct {
	agent             string
	seed, episode     int
	reward, cumReward float64
	regret, cumRegret float64 // NaN without oracle
	plus              int
	wErr              float64 // NaN for the oracle
	w                 []float64
}

// genEpisodes generates consistent episodes for agents over seeds.
func genEpisodes(agents []string, seeds, episodes int, withOracle bool) []fixtureRow {
	base := map[string]float64{"oracle": 6, "sm": 3.5, "lds": 2.5, "mle": 3, "sm-ucb": 3.2, "sm-ps": 3.4}
	learn := map[string]float64{"oracle": 0, "sm": 0.35, "lds": 0.15, "mle": 0.3, "sm-ucb": 0.4, "sm-ps": 0.38}
	var rows []fixtureRow
	oracleReward := map[[2]int]float64{}
	for _, a := range append([]string{"oracle"}, agents...) {
		if a == "oracle" && !withOracle {
			continue
		}
		for seed := range seeds {
			rng := rand.New(rand.NewPCG(uint64(seed)+1, uint64(len(a))))
			cum, cumReg := 0.0, 0.0
			for ep := 1; ep <= episodes; ep++ {
				r := base[a] + learn[a]*float64(ep) + rng.NormFloat64()*0.6
				r = math.Round(r*1000) / 1000
				if a == "oracle" {
					oracleReward[[2]int{seed, ep}] = r
				}
				cum += r
				row := fixtureRow{agent: a, seed: seed, episode: ep, reward: r, cumReward: cum,
					regret: math.NaN(), cumRegret: math.NaN(), wErr: math.NaN()}
				if withOracle {
					row.regret = oracleReward[[2]int{seed, ep}] - r
					cumReg += row.regret
					row.cumRegret = cumReg
				}
				p := int(math.Round(5 + learn[a]*float64(ep)*3 + rng.NormFloat64()))
				row.plus = min(fixtureHorizon, max(0, p))
				if a != "oracle" {
					scale := 1 / math.Sqrt(float64(ep))
					row.w = []float64{
						trueW[0] + scale*(0.5+0.2*rng.NormFloat64()),
						trueW[1] - scale*(0.4+0.2*rng.NormFloat64()),
					}
					if a == "lds" {
						row.w[0] += 0.3
					}
					row.wErr = math.Hypot(row.w[0]-trueW[0], row.w[1]-trueW[1])
				}
				rows = append(rows, row)
			}
		}
	}
	return rows
}

// fmtCell formats a value for a fixture CSV, empty for NaN.
func fmtCell(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 12, 64)
}

// episodesCSV renders rows as episodes.csv.
func episodesCSV(rows []fixtureRow) string {
	var b strings.Builder
	b.WriteString("agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_0_0,w_0_1\n")
	for _, r := range rows {
		w0, w1 := math.NaN(), math.NaN()
		if r.w != nil {
			w0, w1 = r.w[0], r.w[1]
		}
		fmt.Fprintf(&b, "%s,%d,%d,%s,%s,%s,%s,%d,%s,%s,%s\n", r.agent, r.seed, r.episode,
			fmtCell(r.reward), fmtCell(r.cumReward), fmtCell(r.regret), fmtCell(r.cumRegret),
			r.plus, fmtCell(r.wErr), fmtCell(w0), fmtCell(w1))
	}
	return b.String()
}

// tInterval returns the mean and 95% Student-t interval of v.
func tInterval(v []float64) (mean, lo, hi float64) {
	m, sd := meanSD(v)
	if len(v) < 2 || math.IsNaN(m) {
		return m, m, m
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(v) - 1)}.Quantile(0.975)
	h := q * sd / math.Sqrt(float64(len(v)))
	return m, m - h, m + h
}

// summaryCSV aggregates rows over seeds into summary.csv.
func summaryCSV(rows []fixtureRow) string {
	type key struct {
		agent string
		ep    int
	}
	groups := map[key][]fixtureRow{}
	var order []key
	for _, r := range rows {
		k := key{r.agent, r.episode}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	col := func(g []fixtureRow, f func(fixtureRow) float64) []float64 {
		v := make([]float64, len(g))
		for i, r := range g {
			v[i] = f(r)
		}
		return v
	}
	var b strings.Builder
	b.WriteString(strings.Join(summaryColumns, ",") + "\n")
	for _, k := range order {
		g := groups[k]
		rm, _, _ := tInterval(col(g, func(r fixtureRow) float64 { return r.reward }))
		cm, cl, ch := tInterval(col(g, func(r fixtureRow) float64 { return r.cumReward }))
		gm, gl, gh := tInterval(col(g, func(r fixtureRow) float64 { return r.cumRegret }))
		pm, pl, ph := tInterval(col(g, func(r fixtureRow) float64 { return float64(r.plus) }))
		wm, _ := meanSD(col(g, func(r fixtureRow) float64 { return r.wErr }))
		cells := []string{k.agent, strconv.Itoa(k.ep), strconv.Itoa(len(g))}
		for _, x := range []float64{rm, cm, cl, ch, gm, gl, gh, pm, pl, ph, wm} {
			cells = append(cells, fmtCell(x))
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return b.String()
}

// sweepCSV generates an estimation-error sweep for two methods.
func sweepCSV() string {
	var b strings.Builder
	b.WriteString("method,n,repeat,frobenius_error\n")
	rng := rand.New(rand.NewPCG(7, 7))
	for _, m := range []struct {
		name string
		c    float64
	}{{"sm", 2}, {"mle", 1.2}} {
		for _, n := range []int{10, 30, 100, 300, 1000, 3000} {
			for rep := range 5 {
				e := m.c / math.Sqrt(float64(n)) * math.Exp(0.25*rng.NormFloat64())
				fmt.Fprintf(&b, "%s,%d,%d,%s\n", m.name, n, rep, fmtCell(e))
			}
		}
	}
	return b.String()
}

// fixtureFiles are the fixtures' paths and generated contents.
func fixtureFiles() map[string]string {
	full := genEpisodes([]string{"sm", "lds"}, 3, 6, true)
	noReg := genEpisodes([]string{"sm", "lds"}, 1, 6, false)
	return map[string]string{
		filepath.Join(fixtureResults, episodesFile):  episodesCSV(full),
		filepath.Join(fixtureResults, summaryFile):   summaryCSV(full),
		filepath.Join(fixtureNoRegret, episodesFile): episodesCSV(noReg),
		filepath.Join(fixtureNoRegret, summaryFile):  summaryCSV(noReg),
		fixtureSweep: sweepCSV(),
	}
}

// TestFixtures checks that the checked-in fixtures are what the generator
// makes (summary.csv consistent with episodes.csv), or rewrites them with
// -update.
func TestFixtures(t *testing.T) {
	for path, want := range fixtureFiles() {
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if msg := csvClose(string(got), want); msg != "" {
			t.Errorf("%s differs from the generator's output (%s); run go test -run TestFixtures -update", path, msg)
		}
	}
}

// csvClose compares two CSV texts cell by cell, numbers with a relative
// tolerance (so that floating-point contraction on other architectures does
// not matter), and describes the first difference.
func csvClose(got, want string) string {
	gl := strings.Split(strings.TrimSpace(got), "\n")
	wl := strings.Split(strings.TrimSpace(want), "\n")
	if len(gl) != len(wl) {
		return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
	}
	for i := range gl {
		gc, wc := strings.Split(gl[i], ","), strings.Split(wl[i], ",")
		if len(gc) != len(wc) {
			return fmt.Sprintf("line %d: %d cells, want %d", i+1, len(gc), len(wc))
		}
		for j := range gc {
			if gc[j] == wc[j] {
				continue
			}
			g, err1 := strconv.ParseFloat(gc[j], 64)
			w, err2 := strconv.ParseFloat(wc[j], 64)
			if err1 != nil || err2 != nil || !testutil.Within(g, w, 1e-9) {
				return fmt.Sprintf("line %d cell %d: %q, want %q", i+1, j+1, gc[j], wc[j])
			}
		}
	}
	return ""
}
