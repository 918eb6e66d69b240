package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Issue 12, crashes 10: plot refuses a truncated summary.csv, and plot --out leaves
// the results directory untouched (its report.md used to link elsewhere).
func TestPlotSummaryAndOut(t *testing.T) {
	base := t.TempDir()
	// Without figures: plot --out draws the PNGs checked here.
	res := quickRun(t)
	before := snapshot(t, res)
	figs := filepath.Join(base, "figs")
	mustRun(t, "plot", "--in", res, "--out", figs)
	sameSnapshot(t, "plot --out", before, snapshot(t, res))
	report := read(t, filepath.Join(figs, "report.md"))
	if !strings.Contains(report, "](cum_reward.png)") {
		t.Errorf("report.md in --out does not link its figures relatively:\n%s", report)
	}
	// plot --out into a directory of the user's is refused.
	code, stdout, stderr := run(t, "plot", "--in", res, "--out", base)
	wantUsage(t, code, stdout, stderr, "not empty")

	sp := filepath.Join(res, "summary.csv")
	lines := strings.SplitAfter(read(t, sp), "\n")
	os.WriteFile(sp, []byte(strings.Join(lines[:len(lines)-3], "")), 0o644)
	code, stdout, stderr = run(t, "plot", "--in", res)
	wantUsage(t, code, stdout, stderr, sp, "truncated")

	// Redrawing in place needs smrl's own directory.
	foreign := filepath.Join(base, "foreign")
	os.Mkdir(foreign, 0o755)
	for _, f := range []string{"episodes.csv", "summary.csv", "config.yaml"} {
		os.WriteFile(filepath.Join(foreign, f), []byte(read(t, filepath.Join(res, f))), 0o644)
	}
	code, stdout, stderr = run(t, "plot", "--in", foreign)
	wantUsage(t, code, stdout, stderr, "not made by smrl", "--out")
}

// Issue 19, item 2: plot of a results directory without config.yaml drew truncated or
// partial CSV files and exited 0; without config.yaml nothing can be
// checked, so it is exit 2 now.
func TestPlotNeedsConfig(t *testing.T) {
	out, _ := tinyRun(t)
	os.Remove(filepath.Join(out, "config.yaml"))
	b := read(t, filepath.Join(out, "episodes.csv"))
	lines := strings.SplitAfter(b, "\n")
	os.WriteFile(filepath.Join(out, "episodes.csv"), []byte(strings.Join(lines[:len(lines)/2], "")), 0o644)
	before := snapshot(t, out)
	for _, args := range [][]string{
		{"plot", "--in", out, "--format", "svg"},
		{"plot", "--in", out, "--out", filepath.Join(t.TempDir(), "figs")},
	} {
		code, stdout, stderr := run(t, args...)
		wantUsage(t, code, stdout, stderr, filepath.Join(out, "config.yaml")+" not found")
		sameSnapshot(t, strings.Join(args, " "), before, snapshot(t, out))
	}
}

// Issue 19, item 3: plot --in SWEEP did not check the point directories against
// sweep.yaml. A run into a point directory is refused, and plot refuses
// swapped points and a point's summary copied over another's, before it
// draws anything.
func TestSweepPointsAreCheckedByPlot(t *testing.T) {
	pristine := tinySweep(t)
	for _, tc := range []struct {
		name   string
		spoil  func(sw string) // nil: smrl run --out a point
		errHas []string
	}{
		{"run into a point", nil, []string{"is inside the sweep directory", "only smrl sweep writes"}},
		{"swapped points", func(sw string) {
			a, b := filepath.Join(sw, "planner.tau=2"), filepath.Join(sw, "planner.tau=4")
			os.Rename(a, a+".x")
			os.Rename(b, a)
			os.Rename(a+".x", b)
		}, []string{"sweep point planner.tau=2", "has name = tiny+2", "gives the point name = tiny+1", "overwritten"}},
		{"summary copied", func(sw string) {
			b, _ := os.ReadFile(filepath.Join(sw, "planner.tau=2", "summary.csv"))
			os.WriteFile(filepath.Join(sw, "planner.tau=4", "summary.csv"), b, 0o644)
		}, []string{filepath.Join("sw", "planner.tau=4", "summary.csv"), "is not the file smrl writes from journal.jsonl"}},
		{"sweep.csv edited", func(sw string) {
			editCSV(t, filepath.Join(sw, "sweep.csv"), func(i int, c []string) []string {
				if i == 1 {
					c[len(c)-1] = "0.5"
				}
				return c
			})
		}, []string{filepath.Join("sw", "sweep.csv"), "does not agree with the summary.csv files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Each case spoils a copy of one finished sweep (a sweep per
			// case computed the same files again).
			sw := filepath.Join(t.TempDir(), "sw")
			if err := os.CopyFS(sw, os.DirFS(pristine)); err != nil {
				t.Fatal(err)
			}
			var args []string
			if tc.spoil == nil {
				args = []string{"run", "--config", tinyConfig(t, ""), "--out", filepath.Join(sw, "planner.tau=2"), "-q", "--no-plots"}
			} else {
				tc.spoil(sw)
				args = []string{"plot", "--in", sw, "--format", "svg"}
			}
			before := snapshot(t, sw)
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, tc.errHas...)
			sameSnapshot(t, tc.name, before, snapshot(t, sw))
		})
	}
	// An untouched sweep still plots.
	mustRun(t, "plot", "--in", pristine, "--format", "svg")
}

// Issue 19, item 5: plot --in A --out B, where B is the results directory of another
// run or sweep, replaced B's report.md and scattered figures in it. It is
// refused now, naming B, and B is untouched; a figure directory smrl drew
// earlier is still redrawn.
func TestPlotOutIntoResultsDirectoryIsRefused(t *testing.T) {
	// plot needs a's CSV files, not its figures; b is refused by its config.yaml.
	a, _ := tinyRun(t, "--no-plots")
	b, _ := tinyRun(t, "--no-plots")
	sw := tinySweep(t)
	for _, tc := range []struct{ in, out, file string }{
		{a, b, "config.yaml"},
		{a, sw, "sweep.yaml"},
		{sw, b, "config.yaml"},
		{sw, sw + "-copy-of-b", "config.yaml"},
	} {
		if strings.HasSuffix(tc.out, "-copy-of-b") {
			// A sweep's --out whose point directory is a run's.
			os.MkdirAll(tc.out, 0o755)
			os.Rename(b, filepath.Join(tc.out, "planner.tau=2"))
			b = filepath.Join(tc.out, "planner.tau=2")
		}
		before := snapshot(t, tc.out)
		code, stdout, stderr := run(t, "plot", "--in", tc.in, "--out", tc.out, "--format", "svg")
		wantUsage(t, code, stdout, stderr, "is the results directory of a run or sweep", "(it holds "+tc.file+")")
		sameSnapshot(t, "plot --out "+tc.out, before, snapshot(t, tc.out))
	}
	figs := filepath.Join(t.TempDir(), "figs")
	mustRun(t, "plot", "--in", a, "--out", figs, "--format", "svg")
	mustRun(t, "plot", "--in", a, "--out", figs, "--format", "svg")
}

// editCSV rewrites the CSV file at path line by line (0 is the header).
func editCSV(t *testing.T, path string, edit func(i int, cells []string) []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(read(t, path), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(edit(i, strings.Split(l, ",")), ",")
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// Issue 19, item 9: plot accepted cells smrl never writes, each a valid number or
// name on its own: an unknown agent, a dropped W column, swapped header
// names, an empty regret cell where the oracle ran; and plot --sweep a CSV
// cut mid-number. The CSV files must now be those the journal makes.
func TestPlotRefusesFilesSmrlNeverWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		edit func(i int, c []string) []string
	}{
		{"unknown agent", "episodes.csv", func(i int, c []string) []string {
			if i == 1 {
				c[0] = "sm2"
			}
			return c
		}},
		{"dropped W column", "episodes.csv", func(_ int, c []string) []string { return c[:len(c)-1] }},
		{"swapped header names", "episodes.csv", func(i int, c []string) []string {
			if i == 0 {
				c[3], c[5] = c[5], c[3] // reward, cum_reward
			}
			return c
		}},
		{"empty regret where the oracle ran", "episodes.csv", func(i int, c []string) []string {
			if i == 1 && c[0] != "oracle" {
				c[6] = ""
			}
			return c
		}},
		{"summary agent renamed", "summary.csv", func(i int, c []string) []string {
			if i > 0 && c[0] == "lds" {
				c[0] = "mle"
			}
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := tinyRun(t, "--no-plots")
			path := filepath.Join(out, tc.file)
			editCSV(t, path, tc.edit)
			before := snapshot(t, out)
			code, stdout, stderr := run(t, "plot", "--in", out, "--format", "svg")
			wantUsage(t, code, stdout, stderr, path)
			sameSnapshot(t, tc.name, before, snapshot(t, out))
		})
	}
	t.Run("sweep CSV cut mid-number", func(t *testing.T) {
		dir := t.TempDir()
		csv := filepath.Join(dir, "sweep.csv")
		os.WriteFile(csv, []byte("method,n,repeat,frobenius_error\nsm,10,0,0.5\nsm,20,0,0.3"), 0o644)
		code, stdout, stderr := run(t, "plot", "--sweep", csv)
		wantUsage(t, code, stdout, stderr, csv, "does not end with a newline")
		if _, err := os.Stat(filepath.Join(dir, "sweep.png")); err == nil {
			t.Error("a figure was drawn from the cut file")
		}
	})
}

// plot's flags parse into PlotOptions through its runF (nothing is drawn):
// --format is the hidden old name of --plot-format.
func TestPlotFlags(t *testing.T) {
	var o *PlotOptions
	capture := func(ios *IOStreams) *cobra.Command {
		return NewCmdPlot(ios, func(po *PlotOptions) error { o = po; return nil })
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "[  ] png false 0 false"},
		{[]string{"--in", "res", "-o", "figs", "--format", "svg", "-q", "--smooth", "5", "--seed-lines"}, "[res  figs] svg true 5 true"},
		{[]string{"--sweep", "s.csv", "--plot-format", "pdf"}, "[ s.csv ] pdf false 0 false"},
	} {
		o = nil
		code, _, stderr := runSeam(t, capture, append([]string{"plot"}, tc.args...)...)
		if code != ExitOK || o == nil {
			t.Fatalf("%v: exit %d, runF called %v: %s", tc.args, code, o != nil, stderr)
		}
		if got := fmt.Sprintf("[%s %s %s] %s %v %d %v", o.In, o.Sweep, o.Out, o.Format, o.Quiet, o.Smooth, o.Seeds); got != tc.want {
			t.Errorf("%v: parsed %q, want %q", tc.args, got, tc.want)
		}
	}
	o = nil
	code, stdout, stderr := runSeam(t, capture, "plot", "--smooth", "wide")
	wantUsage(t, code, stdout, stderr, "--smooth", "smrl plot --help")
	if o != nil {
		t.Error("runF called after a usage error")
	}
}
