package plotting

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// gridFixture is a sweep of keys with the given values over agents: the
// cumulative regret of agent a at a point is (a's index + 1) × (1 + the
// sum of the point's coordinates), its interval ± 1; the oracle's is 0.
func gridFixture(agents []string, axes ...GridAxis) *GridData {
	d := &GridData{Name: "fixture", Axes: axes, Agents: agents, Seeds: 5, Episodes: 50}
	n := 1
	for _, a := range axes {
		n *= len(a.Labels)
	}
	for i := 0; i < n; i++ {
		coords := make([]int, len(axes))
		rest, sum := i, 0
		for k := len(axes) - 1; k >= 0; k-- {
			coords[k] = rest % len(axes[k].Labels)
			rest /= len(axes[k].Labels)
			sum += coords[k]
		}
		for j, a := range agents {
			reg := float64(j+1) * float64(1+sum)
			if a == "oracle" {
				reg = 0
			}
			d.Cells = append(d.Cells, GridCell{Point: "p" + itoa(i), Coords: coords, Agent: a,
				CumRegret:   GridStat{reg, reg - 1, reg + 1},
				CumReward:   GridStat{100 - reg, 99 - reg, 101 - reg},
				FinalReturn: GridStat{2, 1.5, 2.5}, RegretSlope: 0.5})
		}
	}
	return d
}

func names(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)))
	}
	sort.Strings(out)
	return out
}

func TestGridFigures(t *testing.T) {
	tau := GridAxis{Key: "planner.tau", Labels: []string{"1", "2", "5", "10"}, X: []float64{1, 2, 5, 10}, Log: true}
	rollout := GridAxis{Key: "planner.rollout", Labels: []string{"sample", "mean"}}
	dir := t.TempDir()

	// Two keys: a line figure per metric and key, and the heat map.
	figs, err := GridFigures(gridFixture([]string{"sm", "lds", "oracle"}, tau, rollout), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sweep_heatmap_regret", "sweep_regret_planner.rollout", "sweep_regret_planner.tau", "sweep_reward_planner.rollout", "sweep_reward_planner.tau"}
	if got := names(figs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("figures %v, want %v", got, want)
	}
	for _, f := range figs {
		if !contains(GridFigureNames([]string{"planner.tau", "planner.rollout"}), strings.TrimSuffix(filepath.Base(f), ".png")) {
			t.Errorf("%s is not in GridFigureNames", f)
		}
	}
	// The heat map spans the colour map: the smallest regret (sm at the
	// first point, 1) is drawn blue, the largest (lds at the last, 2 × 5 =
	// 10) red, in the cells and the colour bar.
	img := decodePNG(t, filepath.Join(dir, "sweep_heatmap_regret.png"))
	blue, red := [3]uint8{59, 76, 192}, [3]uint8{180, 4, 38}
	if nb, nr := countNear(img, blue, 12), countNear(img, red, 12); nb < 2000 || nr < 2000 {
		t.Errorf("heat map: %d blue and %d red pixels, want cells of both", nb, nr)
	}
	// Panels per agent: the regret figure has sm and lds lines only (the
	// oracle's regret is 0 by definition); the combination lines use the
	// sequential colours, not the agents'.
	img = decodePNG(t, filepath.Join(dir, "sweep_regret_planner.tau.png"))
	if n := countNear(img, [3]uint8{comboColor(0, 2).R, comboColor(0, 2).G, comboColor(0, 2).B}, 8); n < 300 {
		t.Errorf("regret figure: %d pixels of the first combination's colour", n)
	}
	if b := img.Bounds(); b.Dx() <= 800 {
		t.Errorf("a figure of two panels is %d px wide", b.Dx())
	}

	// One key: one panel, a line per agent in its own colour; no heat map;
	// without an oracle no regret figure; with terminating episodes the
	// return figure.
	dir = t.TempDir()
	d := gridFixture([]string{"sm", "lds"}, tau)
	for i := range d.Cells {
		d.Cells[i].CumRegret = GridStat{math.NaN(), math.NaN(), math.NaN()}
	}
	d.Terminates = true
	figs, err = GridFigures(d, dir, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(figs), " "); got != "sweep_return_planner.tau sweep_reward_planner.tau" {
		t.Errorf("one key, no oracle, terminating: figures %s", got)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "sweep_reward_planner.tau.svg"))
	for _, want := range []string{"Cumulative reward after 50 episodes vs planner.tau (mean, 95% CI over 5 seeds)", "#0072B2", "#D55E00"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("one-key reward figure lacks %q", want)
		}
	}

	// Three keys: no heat map; more than 10 combinations are cut, and the
	// title says so.
	many := GridAxis{Key: "lambda", Labels: []string{"1", "2", "3", "4", "5", "6"}, X: []float64{1, 2, 3, 4, 5, 6}}
	dir = t.TempDir()
	figs, err = GridFigures(gridFixture([]string{"sm", "oracle"}, tau, rollout, many), dir, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 6 {
		t.Errorf("three keys: %v", names(figs))
	}
	svg, _ = os.ReadFile(filepath.Join(dir, "sweep_regret_planner.tau.svg"))
	if !strings.Contains(string(svg), "(first 10 of 12 combinations)") {
		t.Error("the cut combinations are not named in the title")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestGridReport(t *testing.T) {
	tau := GridAxis{Key: "planner.tau", Labels: []string{"1", "5"}, X: []float64{1, 5}}
	d := gridFixture([]string{"sm", "oracle"}, tau)
	dir := t.TempDir()
	figs, err := GridFigures(d, filepath.Join(dir, "plots"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := GridReport(d, dir, figs, []string{filepath.Join(dir, "planner.tau=1"), filepath.Join(dir, "planner.tau=5")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	for _, want := range []string{
		"# smrl sweep: fixture",
		"Grid: `planner.tau` ∈ {1, 5}; 2 points.",
		"| planner.tau | sm regret | sm reward | oracle reward | point |",
		"| 5 | 2 [1, 3] | 98 [97, 99] | 100 [99, 101] | [p1](planner.tau=5/report.md) |",
		"![sweep_regret_planner.tau](plots/sweep_regret_planner.tau.png)",
		"Cumulative regret against the oracle after the last episode",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q:\n%s", want, b)
		}
	}
}
