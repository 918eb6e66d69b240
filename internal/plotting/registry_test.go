package plotting

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
)

// testFigure is a figure registered by this test file alone, as a new
// figure's file registers itself: it draws the first agent's mean
// cumulative reward, only for a results directory that holds
// testFigureMarker (so that the package's other tests never see it).
const (
	testFigure        = "test_figure"
	testFigureMarker  = "test_figure.txt"
	testFigureCaption = "A figure registered from a _test.go file."
)

func init() {
	register(Figure{
		Name: testFigure, Order: 1000, Source: FromSummary, Columns: "cum_reward_mean", Places: InRun,
		Caption: testFigureCaption,
		Doc:     DocLine{When: "a test asks for it", Shows: "the first agent's mean cumulative reward"},
		run: func(in *runInputs) *drawing {
			if _, err := os.Stat(filepath.Join(in.dir, testFigureMarker)); err != nil {
				return nil
			}
			return &drawing{build: func(c draw.Canvas) error {
				p := newPlot("Test figure", "episode", "cumulative reward")
				ss := summarySeries(in.sum, nil, func(r summaryRow) (float64, float64, float64) {
					return r.CumRewardMean, r.CumRewardLo, r.CumRewardHi
				})
				return bandFigure(c, p, ss[:1])
			}}
		},
	})
}

// TestRegisteredFigureEndToEnd checks that a figure registered from a
// _test.go file is drawn for a results directory that calls for it, after
// every built-in figure, and listed with its caption in report.md and
// report.html; and that it is among the files a fresh run removes.
func TestRegisteredFigureEndToEnd(t *testing.T) {
	if !slices.Contains(FigureNames, testFigure) {
		t.Errorf("FigureNames %v lacks the registered %s", FigureNames, testFigure)
	}
	dir := copyResults(t, fixtureResults)
	figs, err := RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if strings.Contains(f, testFigure) {
			t.Fatalf("%s drawn without its marker file: %v", testFigure, figs)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, testFigureMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	figs, err = RunFigures(dir, filepath.Join(dir, "plots"), nil, Options{Format: "svg"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "plots", testFigure+".svg")
	if len(figs) == 0 || figs[len(figs)-1] != want {
		t.Fatalf("RunFigures wrote %v, want %s last", figs, want)
	}
	if fi, err := os.Stat(want); err != nil || fi.Size() == 0 {
		t.Fatalf("%s not written: %v", want, err)
	}
	if err := Report(dir, figs); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	wantMD := fmt.Sprintf("\n### %s\n\n%s\n\n![%s](plots/%s.svg)\n", testFigure, testFigureCaption, testFigure, testFigure)
	if !strings.HasSuffix(string(md), wantMD) {
		t.Errorf("report.md does not end with the test figure %q:\n%s", wantMD, md)
	}
	html, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`<figure id="` + testFigure + `">`, "<figcaption>" + testFigureCaption + "</figcaption>", `alt="` + testFigure + `"`} {
		if !strings.Contains(string(html), s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
}

// TestFigureOrder checks that the registry keeps the order of the files
// and reports smrl has always written (byte-identical reports).
func TestFigureOrder(t *testing.T) {
	want := []string{FigCumReward, FigReturn, FigReturnSteps, FigSteps, FigCumRegret, FigRegretLogLog, FigPlusCount, FigActions, FigWError, FigMDP, FigDensities, FigMarginals, FigIntervals, FigProfile, testFigure}
	if !slices.Equal(FigureNames, want) {
		t.Errorf("FigureNames = %v, want %v", FigureNames, want)
	}
	got := GridFigureNames([]string{"a", "b"})
	wantGrid := []string{"sweep_regret_a", "sweep_reward_a", "sweep_return_a", "sweep_regret_b", "sweep_reward_b", "sweep_return_b", "sweep_heatmap_regret", "sweep_heatmap_reward", FigIntervals, FigProfile}
	if !slices.Equal(got, wantGrid) {
		t.Errorf("GridFigureNames = %v, want %v", got, wantGrid)
	}
}

// TestFigureCaptions checks every registered figure of a report has a
// caption, and that the sweep report finds a per-key figure's caption by
// its prefix alone.
func TestFigureCaptions(t *testing.T) {
	for _, f := range Figures() {
		if f.Places&(InRun|InSweep) != 0 && f.Caption == "" {
			t.Errorf("figure %s appears in a report without a caption", f.Name)
		}
	}
	if c := sweepCaption(GridFigReturn + "_planner.tau"); !strings.HasPrefix(c, "Mean return over the last 20 episodes") {
		t.Errorf("sweep caption of %s_planner.tau = %q", GridFigReturn, c)
	}
	if c := sweepCaption(GridFigHeatmapRegret + "_x"); c != "" {
		t.Errorf("a figure not per key matched by prefix: %q", c)
	}
	if c := runCaption(GridFigReward, 1); c != "" {
		t.Errorf("a sweep figure has a run caption: %q", c)
	}
	if c := runCaption(FigReturn, 5); !strings.HasSuffix(c, "moving averages over 5 episodes.") {
		t.Errorf("run caption of the smoothed %s = %q", FigReturn, c)
	}
	if c := runCaption(FigCumReward, 5); strings.Contains(c, "Smoothed") {
		t.Errorf("run caption of the unsmoothed %s = %q", FigCumReward, c)
	}
}

// figureTableHead is the header of the figure table in docs/outputs.md.
const figureTableHead = "| figure | drawn when | drawn from | shows |\n| --- | --- | --- | --- |\n"

// figureTable renders the figure table of docs/outputs.md from the
// registry: a row per figure but the test's own, in registry order.
func figureTable() string {
	var b strings.Builder
	b.WriteString(figureTableHead)
	for _, f := range Figures() {
		if f.Name == testFigure {
			continue
		}
		name := f.Doc.Figure
		if name == "" {
			name = "`" + f.Name + "`"
			if f.PerKey {
				name = "`" + f.Name + "_KEY`"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s: %s | %s |\n", name, f.Doc.When, f.Source, f.Columns, f.Doc.Shows)
	}
	return b.String()
}

// TestFigureTableInDocs checks that the figure table of docs/outputs.md is
// the registry's, row for row (each figure's docs line). -update rewrites
// it: go test ./internal/plotting -run TestFigureTableInDocs -update
func TestFigureTableInDocs(t *testing.T) {
	for _, f := range Figures() {
		if f.Doc.When == "" || f.Doc.Shows == "" || f.Columns == "" {
			t.Errorf("figure %s has no docs line or columns", f.Name)
		}
	}
	path := filepath.Join("..", "..", "docs", "outputs.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "| figure | drawn when |")
	if start < 0 {
		t.Fatalf("%s has no figure table", path)
	}
	end := strings.Index(doc[start:], "\n\n")
	if end < 0 {
		t.Fatalf("%s: the figure table does not end", path)
	}
	end += start + 1
	want := figureTable()
	if doc[start:end] == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the figure table of %s is not the registry's (rerun with -update):\ngot:\n%s\nwant:\n%s", path, doc[start:end], want)
}

// TestRegisterRefusesDuplicates checks a second figure of a registered
// name or order is refused at init, where it would otherwise overwrite
// another's file.
func TestRegisterRefusesDuplicates(t *testing.T) {
	saved, savedNames := slices.Clone(registry), slices.Clone(FigureNames)
	defer func() { registry, FigureNames = saved, savedNames }()
	for _, f := range []Figure{{Name: FigReturn, Order: 5000}, {Name: "other", Order: 10}, {Name: "nodraw", Order: 5001, Places: InRun}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("register(%s, order %d) did not panic", f.Name, f.Order)
				}
			}()
			register(f)
		}()
	}
}

// The actions figure draws at most maxFigureActions actions: a set of
// hundreds made its legend cover the panel, so it is left out and the
// counts stay in episodes.csv.
func TestActionsFigureBoundsActions(t *testing.T) {
	var fig *Figure
	for _, f := range Figures() {
		if f.Name == FigActions {
			fig = &f
		}
	}
	if fig == nil {
		t.Fatal("no actions figure registered")
	}
	for _, tc := range []struct {
		actions int
		drawn   bool
	}{{2, true}, {maxFigureActions, true}, {maxFigureActions + 1, false}, {200, false}} {
		in := &runInputs{shares: &actionShares{actions: tc.actions}}
		if got := fig.run(in) != nil; got != tc.drawn {
			t.Errorf("%d actions: drawn %v, want %v", tc.actions, got, tc.drawn)
		}
	}
}
