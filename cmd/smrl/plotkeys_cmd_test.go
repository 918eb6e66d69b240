package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --smooth on compare is the config key plot.smooth: the run's config.yaml
// keeps it, and its figures (drawn by smrl plot as by the run, from
// config.yaml) are smoothed unless --smooth says otherwise; a plot key out
// of range is exit 2 naming it.
func TestPlotKeysOnRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	code, _, errOut := run(t, "compare", "--config", "../../configs/quick.yaml", "--out", dir, "--seeds", "2", "--episodes", "4",
		"--smooth", "3", "--set", "plot.font_size=16", "--no-plots", "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "plot:\n  smooth: 3\n") || !strings.Contains(string(cfg), "font_size: 16") {
		t.Errorf("config.yaml lacks the plot keys:\n%s", cfg)
	}
	const note = "moving average over 3 episodes"
	ret := filepath.Join(dir, "plots", "return.svg")
	if code, _, errOut := run(t, "plot", "--in", dir, "--plot-format", "svg", "-q"); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(ret); !strings.Contains(string(b), note) {
		t.Errorf("smrl plot did not keep the run's plot.smooth")
	}
	if code, _, errOut := run(t, "plot", "--in", dir, "--plot-format", "svg", "--smooth", "0", "-q"); code != 0 {
		t.Fatalf("plot --smooth 0: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(ret); strings.Contains(string(b), "moving average") {
		t.Errorf("smrl plot --smooth 0 still smoothed")
	}
	for _, kv := range []string{"plot.font_size=2", "plot.width=50", "plot.smooth=-1"} {
		code, stdout, stderr := run(t, "compare", "--config", "../../configs/quick.yaml", "--out", filepath.Join(t.TempDir(), "x"), "--set", kv, "-q")
		wantUsage(t, code, stdout, stderr, strings.Split(kv, "=")[0])
	}
}
