package plotting

import (
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestPlotCheck writes every figure, for the fixtures and for a larger
// generated run (6 agents, 50 episodes), plus the sweep figure and the
// report, into $SMRL_PLOTCHECK_DIR so that a person can look at them. It is
// skipped when the variable is unset.
func TestPlotCheck(t *testing.T) {
	root := os.Getenv("SMRL_PLOTCHECK_DIR")
	if root == "" {
		t.Skip("SMRL_PLOTCHECK_DIR not set")
	}
	big := filepath.Join(root, "big")
	rows := genEpisodes([]string{"sm", "lds", "mle", "sm-ucb", "sm-ps", "custom"}, 5, 50, true)
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(big, episodesFile), []byte(episodesCSV(rows)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(big, summaryFile), []byte(summaryCSV(rows)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{fixtureResults, fixtureNoRegret, big} {
		name := filepath.Base(dir)
		for _, format := range []string{"png", "svg", "pdf"} {
			out := filepath.Join(root, name, "plots-"+format)
			figs, err := RunFigures(dir, out, gaussSource{sigma: 0.6}, Options{Format: format, Horizon: fixtureHorizon})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(figs)
		}
	}
	for _, format := range []string{"png", "svg", "pdf"} {
		if err := SweepFigure(fixtureSweep, filepath.Join(root, "sweep."+format), Options{Format: format}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RunFigures(fixtureResults, filepath.Join(root, "small"), gaussSource{sigma: 0.6},
		Options{Width: 400 * vg.Inch / 96, Height: 300 * vg.Inch / 96}); err != nil {
		t.Fatal(err)
	}
	if _, err := RunFigures(fixtureResults, filepath.Join(root, "large"), gaussSource{sigma: 0.6},
		Options{Width: 1600 * vg.Inch / 96, Height: 1000 * vg.Inch / 96}); err != nil {
		t.Fatal(err)
	}
	figs, err := RunFigures(big, filepath.Join(big, "plots"), gaussSource{sigma: 0.6}, Options{Horizon: fixtureHorizon})
	if err != nil {
		t.Fatal(err)
	}
	if err := Report(big, figs); err != nil {
		t.Fatal(err)
	}
}
