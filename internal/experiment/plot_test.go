package experiment

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
)

func TestPlotRefusesTruncatedEpisodes(t *testing.T) {
	dir := quickRun(t)
	// svg: what is checked is the refusal, not the rasteriser
	// (TestPlotRefusesFolderAtOutput draws the PNGs of this run).
	if figs, err := Plot(dir, "", "svg"); err != nil || len(figs) == 0 {
		t.Fatalf("complete directory: %v", err)
	}
	p := filepath.Join(dir, "episodes.csv")
	b, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(p, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644)
	_, err := Plot(dir, "", "svg")
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated episodes.csv: err = %v", err)
	}
}

// editCell returns the CSV content b with the cell of column col on line
// (from 1) replaced by text.
func editCell(t *testing.T, b []byte, line int, col, text string) []byte {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	j := slices.Index(recs[0], col)
	if j < 0 {
		t.Fatalf("no column %s", col)
	}
	recs[line-1][j] = text
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.WriteAll(recs)
	return out.Bytes()
}

// A cell smrl did not write (NaN or ±Inf, which smrl writes as an empty
// cell; a count out of the config's range) makes plot fail with one error
// naming the file, line and column, before any figure is drawn.
func TestPlotRefusesEditedCells(t *testing.T) {
	dir := quickRun(t) // 3 seeds, 4 episodes, agents sm, lds, oracle
	orig := map[string][]byte{}
	for _, f := range []string{results.EpisodesFile, results.SummaryFile} {
		orig[f] = readFile(t, dir, f)
	}
	for _, tc := range []struct {
		file, col, text string
		line            int
		errHas          string
	}{
		{results.SummaryFile, "cum_reward_mean", "NaN", 3, `summary.csv line 3, column 10 (cum_reward_mean): "NaN" is not a finite number`},
		{results.SummaryFile, "w_error_mean", "Inf", 2, `summary.csv line 2, column 24 (w_error_mean): "Inf" is not a finite number`},
		{results.SummaryFile, "beta_mean", "-Inf", 2, `summary.csv line 2, column 25 (beta_mean): "-Inf" is not a finite number`},
		{results.SummaryFile, "seeds", "999", 2, `summary.csv line 2, column 3 (seeds): 999 is out of range [1, 3]`},
		{results.SummaryFile, "episode", "-5", 2, `summary.csv line 2, column 2 (episode): -5 is out of range [1, 4]`},
		{results.EpisodesFile, "reward", "NaN", 4, `episodes.csv line 4, column 4 (reward): "NaN" is not a finite number`},
		{results.EpisodesFile, "ball_accept", "+Inf", 2, `episodes.csv line 2, column 12 (ball_accept): "+Inf" is not a finite number`},
		{results.EpisodesFile, "seed", "999", 2, `episodes.csv line 2, column 2 (seed): 999 is out of range [0, 2]`},
		{results.EpisodesFile, "steps", "11", 2, `episodes.csv line 2, column 5 (steps): 11 is out of range [1, 10]`},
	} {
		t.Run(tc.file+"/"+tc.col+"="+tc.text, func(t *testing.T) {
			for f, b := range orig {
				os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			os.WriteFile(filepath.Join(dir, tc.file), editCell(t, orig[tc.file], tc.line, tc.col, tc.text), 0o644)
			out := filepath.Join(t.TempDir(), "figs")
			_, err := Plot(dir, out, "png")
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), filepath.Join(dir, tc.errHas)) {
				t.Fatalf("err = %v, want %q", err, tc.errHas)
			}
			if _, err := os.Stat(out); err == nil { // made by Plot, removed when drawing failed
				t.Errorf("the refused plot left %s behind", out)
			}
		})
	}
}

// --in naming a file, or nothing, is refused with the reason.
func TestPlotRefusesFileAsDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "episodes.csv")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{file: "is a file, not a results directory", filepath.Join(dir, "none"): "not found"} {
		if _, err := Plot(path, "", "png"); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("Plot(%s) = %v, want invalid input saying %q", path, err, want)
		}
	}
}

// --out naming the results directory itself (also with a trailing slash)
// is a redraw in place: the figures go to DIR/plots, not flat into DIR.
func TestPlotOutSameAsIn(t *testing.T) {
	dir := quickRun(t)
	figs, err := Plot(dir, dir+"/", "png")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if filepath.Dir(f) != filepath.Join(dir, "plots") {
			t.Errorf("figure %s is not in %s", f, filepath.Join(dir, "plots"))
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, "*.png")); len(ents) > 0 {
		t.Errorf("figures written flat into the results directory: %v", ents)
	}
}

// A figure or report path of the results directory that holds a folder
// is refused, naming it, before any figure is redrawn.
func TestPlotRefusesFolderAtOutput(t *testing.T) {
	base := quickRun(t)
	if _, err := Plot(base, "", "png"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		filepath.Join(plotsDir, "return.png"),
		filepath.Join(plotsDir, "performance_profile.png"),
		"report.md",
		"report.html",
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "r")
			if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(p, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			_, err := Plot(dir, "", "png")
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), p+" is a folder") {
				t.Fatalf("err = %v, want invalid input naming %s", err, p)
			}
			sameTree(t, dir, before, "refused plot")
		})
	}
}

// A results directory whose config.yaml holds the section of a part the
// run did not use (as the snapshots of earlier smrl versions hold every
// section) is drawn, and its report is titled after the config; a sweep
// point's likewise.
func TestPlotSnapshotWithUnusedSection(t *testing.T) {
	addMPPI := func(t *testing.T, dir string) {
		t.Helper()
		p := filepath.Join(dir, results.ConfigFile)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(b), "\nplanner:\n", "\nplanner:\n  mppi:\n    temperature: 1\n", 1)
		if s == string(b) {
			t.Fatalf("%s has no planner section", p)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := quick(t)
	dir := quickRun(t)
	addMPPI(t, dir)
	// svg: what is checked is that the snapshot loads, not the rasteriser.
	if _, err := Plot(dir, "", "svg"); err != nil {
		t.Fatalf("plot of a snapshot with an unused section: %v", err)
	}
	if md := readFile(t, dir, "report.md"); !bytes.HasPrefix(md, []byte("# smrl results: "+c.Name+"\n")) {
		t.Errorf("report.md is not titled after the config %q:\n%.80s", c.Name, md)
	}
	s, root := tinySweepRun(t)
	addMPPI(t, filepath.Join(root, s.Points[0].Name))
	got, err := PlotSweep(root, "", "svg")
	if err != nil {
		t.Fatalf("plot of a sweep whose point snapshot has an unused section: %v", err)
	}
	// plot --in draws the sweep's figures and its points' in place (the
	// check TestSweepFiguresAndPlot made with a sweep of its own).
	if !strings.Contains(strings.Join(got, " "), "sweep_regret_planner.tau.svg") || !strings.Contains(strings.Join(got, " "), s.Points[1].Name+"/plots/w_error.svg") {
		t.Errorf("plot --in drew %v", got)
	}
}
