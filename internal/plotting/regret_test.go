package plotting

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func TestRegretFit(t *testing.T) {
	var eps, sq, lin []float64
	for k := 1; k <= 40; k++ {
		eps = append(eps, float64(k))
		sq = append(sq, 2.5*math.Sqrt(float64(k)))
		lin = append(lin, 0.7*float64(k))
	}
	a, b, lo, hi, ok := stats.RegretFit(eps, sq)
	if !ok || !testutil.AbsWithin(b, 0.5, 1e-12) || !testutil.AbsWithin(math.Exp(a), 2.5, 1e-9) || lo != 21 || hi != 40 {
		t.Errorf("√k: a = %v, b = %v over [%v, %v], want b = 0.5, e^a = 2.5 over [21, 40]", a, b, lo, hi)
	}
	if _, b, _, _, _ := stats.RegretFit(eps, lin); !testutil.AbsWithin(b, 1, 1e-12) {
		t.Errorf("linear: b = %v, want 1", b)
	}
	// Non-positive and missing points are left out; fewer than two: no fit.
	few := slices.Clone(sq)
	for i := 20; i < 39; i++ {
		few[i] = 0
	}
	few[21] = math.NaN()
	if _, _, _, _, ok := stats.RegretFit(eps, few); ok {
		t.Error("a fit from one point")
	}
	// The same slope as summary.csv's regret_slope, which records a falling
	// curve's (the last one's b < 0) as 0.
	for _, reg := range [][]float64{sq, lin, few, {3, 1, 4, 1, 5, 9, 2, 6}} {
		_, b, _, _, ok := stats.RegretFit(eps[:len(reg)], reg)
		want := results.RegretSlope(eps[:len(reg)], reg)
		if ok != !math.IsNaN(want) || ok && !testutil.AbsWithin(max(b, 0), want, 1e-12) {
			t.Errorf("slope %v (ok %v), results.RegretSlope %v", b, ok, want)
		}
	}
	if got := slopeText(-1e-15, true); got != "0.00" {
		t.Errorf("slopeText(−1e-15) = %q, want 0.00", got)
	}
	if got := slopeText(0.4987, true) + slopeText(0, false); got != "0.50–" {
		t.Errorf("slopeText = %q", got)
	}
}

// regretSummary writes a summary.csv with per-agent mean cumulative regret
// reg(k) for k = 1..episodes.
func regretSummary(t *testing.T, episodes int, reg map[string]func(k float64) float64, order []string) string {
	t.Helper()
	s := strings.Join(summaryColumns, ",") + "\n"
	for _, a := range order {
		for ep := 1; ep <= episodes; ep++ {
			r := reg[a](float64(ep))
			s += strings.Join([]string{a, itoa(ep), "4", "1", "1", "1", "1",
				ftoa(r), ftoa(r - 1), ftoa(r + 1), "5", "5", "5", ""}, ",") + "\n"
		}
	}
	return s
}

func TestRegretLogLogFigure(t *testing.T) {
	const episodes = "agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_0_0\n" +
		"sm,0,1,1,1,,,5,0.5,1\n"
	reg := map[string]func(float64) float64{
		"oracle": func(float64) float64 { return 0 },
		"sm":     func(k float64) float64 { return 3 * math.Sqrt(k) },
		"lds":    func(k float64) float64 { return 2 * k },
		"sm-ucb": func(float64) float64 { return 0 },                   // never positive: left out
		"sm-ps":  func(k float64) float64 { return math.Max(0, k-45) }, // positive for k > 45 only
	}
	dir := writeResults(t, episodes, regretSummary(t, 50, reg, []string{"oracle", "sm", "lds", "sm-ucb", "sm-ps"}))
	paths, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "plots", FigRegretLogLog+".svg")
	if !slices.Contains(paths, want) {
		t.Fatalf("wrote %v, want %s", paths, want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	// sm-ps: points k = 46..50 are positive, all in the second half.
	slopePS := results.RegretSlope([]float64{46, 47, 48, 49, 50}, []float64{1, 2, 3, 4, 5})
	for _, label := range []string{"sm (slope 0.50)", "lds (slope 1.00)", "sm-ps (slope " + slopeText(slopePS, true) + ")",
		"√k reference (slope 0.5)", "fit over k &gt; K/2", "log scale"} {
		if !strings.Contains(svg, label) {
			t.Errorf("figure lacks the text %q", label)
		}
	}
	for _, absent := range []string{"sm-ucb", "oracle"} {
		if strings.Contains(svg, absent) {
			t.Errorf("figure shows %q, which has no positive regret", absent)
		}
	}

	// No agent with positive regret: cum_regret is drawn, regret_loglog not.
	zero := map[string]func(float64) float64{
		"oracle": func(float64) float64 { return 0 },
		"sm":     func(k float64) float64 { return -k },
	}
	dir = writeResults(t, episodes, regretSummary(t, 10, zero, []string{"oracle", "sm"}))
	paths, err = RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".png"))
	}
	if !slices.Equal(names, []string{FigCumReward, FigReturn, FigCumRegret, FigPlusCount}) {
		t.Errorf("figures %v, want cum_reward, return, cum_regret, plus_count", names)
	}
}

// The log–log fit lines are drawn before (under) every data curve, with
// no halo, so that they never hide the data; they are dotted in the
// agent's colour, unlike the grey dashed √k guide; a falling regret curve
// gets the label "slope 0, falling" and no fit line.
func TestRegretFitLinesUnderDataAndFallingCurves(t *testing.T) {
	const episodes = "agent,seed,episode,reward,cum_reward,regret,cum_regret,plus_count,w_error,w_0_0\n" +
		"sm,0,1,1,1,,,5,0.5,1\n"
	reg := map[string]func(float64) float64{
		"oracle": func(float64) float64 { return 0 },
		"sm":     func(k float64) float64 { return 3 * math.Sqrt(k) },
		"lds":    func(k float64) float64 { return 2 * k },
		"mle":    func(k float64) float64 { return 100 / k }, // falls throughout
	}
	dir := writeResults(t, episodes, regretSummary(t, 50, reg, []string{"oracle", "sm", "lds", "mle"}))
	if _, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{Format: "svg"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "plots", FigRegretLogLog+".svg"))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	firstData, lastFit := len(svg), -1
	for _, a := range []string{"sm", "lds", "mle"} {
		hex := strings.ToUpper(strings.TrimPrefix(hexColor(AgentStyle(a).Color), "#"))
		data := strings.Index(svg, "stroke:#"+hex+";stroke-width:1.8")
		fit := strings.Index(svg, "stroke:#"+hex+";stroke-width:2;stroke-dasharray:1,3")
		if data < 0 {
			t.Fatalf("no data curve of %s", a)
		}
		firstData = min(firstData, data)
		if a == "mle" {
			if fit >= 0 {
				t.Error("a falling curve got a fit line")
			}
			continue
		}
		if fit < 0 {
			t.Fatalf("no dotted fit line of %s", a)
		}
		lastFit = max(lastFit, fit)
	}
	if lastFit > firstData {
		t.Error("a fit line is drawn after (over) a data curve")
	}
	if strings.Contains(svg, "stroke:#FFFFFF;stroke-width:4") {
		t.Error("a white halo is drawn")
	}
	if !strings.Contains(svg, "stroke-dasharray:6,4") {
		t.Error("no long-dashed √k guide")
	}
	for _, label := range []string{"sm (slope 0.50)", "lds (slope 1.00)", "mle (slope 0, falling)"} {
		if !strings.Contains(svg, label) {
			t.Errorf("figure lacks %q", label)
		}
	}
	if strings.Contains(svg, "slope -") || strings.Contains(svg, "slope −") {
		t.Error("a negative slope is printed")
	}
}
