package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smrl plot --in A --in B --out DIR overlays the two runs, one figure per
// measure, and DIR's report.md names both; the overlay's bad usages exit
// 2 and write nothing.
func TestPlotOverlay(t *testing.T) {
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for _, d := range []string{a, b} {
		if code, _, errOut := run(t, "compare", "--config", "../../configs/quick.yaml", "--out", d, "--seeds", "2", "--episodes", "3", "--no-plots", "-q"); code != 0 {
			t.Fatalf("compare: exit %d: %s", code, errOut)
		}
	}
	out := filepath.Join(tmp, "overlay")
	code, stdout, errOut := run(t, "plot", "--in", a, "--in", b, "--label", "first", "--label", "second", "--out", out, "--plot-format", "svg")
	if code != 0 {
		t.Fatalf("overlay: exit %d: %s", code, errOut)
	}
	for _, name := range []string{"return.svg", "cum_reward.svg", "cum_regret.svg", "w_error.svg"} {
		if !strings.Contains(stdout, filepath.Join(out, name)) {
			t.Errorf("the overlay did not list %s:\n%s", name, stdout)
		}
	}
	ret, err := os.ReadFile(filepath.Join(out, "return.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"first: sm", "second: sm", "first: lds", "second: oracle"} {
		if !strings.Contains(string(ret), ">"+l+"<") {
			t.Errorf("return.svg lacks the series %q", l)
		}
	}
	rep, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	absA, _ := filepath.Abs(a)
	absB, _ := filepath.Abs(b)
	for _, want := range []string{"| first | `" + absA + "` |", "| second | `" + absB + "` |", "![return](return.svg)"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("report.md lacks %q:\n%s", want, rep)
		}
	}
	// Redrawing into the overlay's own directory is allowed, with
	// directory names as labels.
	if code, _, errOut := run(t, "plot", "--in", a, "--in", b, "--out", out, "-q"); code != 0 {
		t.Errorf("redraw into the overlay's directory: exit %d: %s", code, errOut)
	}

	foreign := filepath.Join(tmp, "foreign")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	same := filepath.Join(tmp, "x", "a") // another directory named a
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", "--in", a, "--in", b}, "needs --out"},
		{[]string{"plot", "--in", a, "--label", "x", "--out", filepath.Join(tmp, "o1")}, "two or more --in"},
		{[]string{"plot", "--in", a, "--in", b, "--label", "x", "--out", filepath.Join(tmp, "o2")}, "1 labels for 2"},
		{[]string{"plot", "--in", a, "--in", b, "--label", "x", "--label", "x", "--out", filepath.Join(tmp, "o3")}, "same label"},
		{[]string{"plot", "--in", a, "--in", same, "--out", filepath.Join(tmp, "o4")}, "name them with --label"},
		{[]string{"plot", "--in", a, "--in", filepath.Join(tmp, "missing"), "--out", filepath.Join(tmp, "o6")}, "not found"},
		{[]string{"plot", "--in", a, "--in", b, "--out", foreign}, foreign},
		{[]string{"plot", "--in", a, "--in", b, "--out", a}, "one of the overlaid"},
		{[]string{"plot", "--in", a, "--in", b, "--seed-lines", "--out", filepath.Join(tmp, "o5")}, "--seed-lines"},
	} {
		code, stdout, stderr := run(t, tc.args...)
		wantUsage(t, code, stdout, stderr, tc.want)
	}
	for _, o := range []string{"o1", "o2", "o3", "o4", "o5", "o6"} {
		if _, err := os.Stat(filepath.Join(tmp, o)); err == nil {
			t.Errorf("a refused overlay created %s", o)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, "notes.txt")); string(b) != "mine" {
		t.Error("the refused overlay touched a file smrl did not write")
	}
	if ents, _ := os.ReadDir(foreign); len(ents) != 1 {
		t.Errorf("the refused overlay wrote into a directory not smrl's: %v", ents)
	}
}
