//go:build !race

package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/plotting"
)

// This test draws about a hundred figures: too slow for the race detector
// (40 s), which TestSweepDrawsPointsInParallel serves.

// The sweep figures and report are drawn from sweep.csv; plot --in
// redraws them and every point's, in place or elsewhere; a truncated
// sweep.csv is refused.
func TestSweepFiguresAndPlot(t *testing.T) {
	s := tinySweep(t)
	root := filepath.Join(t.TempDir(), "sweep")
	var figs []string
	// The sweep's figures in PNG, its points' in SVG (half the CPU of a
	// PNG; a run's PNGs are checked by the runs' tests).
	so := SweepOptions{Format: "png", Options: Options{OutDir: root, Plot: func(dir string) error {
		_, err := Figures(dir, "svg")
		return err
	}}}
	if err := RunSweep(context.Background(), s, so); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sweep_regret_planner.tau", "sweep_reward_planner.n_rollouts", "sweep_heatmap_regret"} {
		figs = append(figs, filepath.Join(root, "plots", name+".png"))
	}
	for _, f := range append(figs, filepath.Join(root, s.Points[0].Name, "plots", "cum_reward.svg"), filepath.Join(root, plotting.ReportFile)) {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	report := string(readFile(t, root, plotting.ReportFile))
	for _, want := range []string{"`planner.tau` ∈ {2, 5} × `planner.n_rollouts` ∈ {4, 12}", "| sm regret | lds regret | sm reward |",
		"(planner.tau=5,planner.n_rollouts=12/report.md)", "![sweep_heatmap_regret](plots/sweep_heatmap_regret.png)"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q:\n%s", want, report)
		}
	}
	out := filepath.Join(t.TempDir(), "figs")
	// svg: the PNGs were checked above; this checks where --out puts them
	// (TestPlotSnapshotWithUnusedSection checks plot --in in place).
	got, err := PlotSweep(root, out, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(got, " "), "sweep_regret_planner.tau.svg") || !strings.Contains(strings.Join(got, " "), s.Points[1].Name+"/w_error.svg") {
		t.Errorf("plot --out drew %v", got)
	}
	for _, f := range []string{"sweep_heatmap_regret.svg", plotting.ReportFile, filepath.Join(s.Points[3].Name, "cum_regret.svg")} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("plot --out: missing %s", f)
		}
	}
	b := readFile(t, root, grid.TableFile)
	os.WriteFile(filepath.Join(root, grid.TableFile), b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1], 0o644)
	if _, err := PlotSweep(root, "", "png"); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "has 11 rows but the sweep has 12") {
		t.Errorf("truncated sweep.csv: %v", err)
	}
}
