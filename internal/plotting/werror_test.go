package plotting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The W-error figure leaves out the agents whose Ŵ is not in the true
// family (Options.InTrueFamily), as results written before the runner
// left their w_error empty still hold one: the fixture's lds has a
// w_error, and is drawn only without the option.
func TestWErrorFigureLeavesOutOtherFamilies(t *testing.T) {
	dir := copyResults(t, fixtureResults)
	for _, tc := range []struct {
		in      func(string) bool
		wantLDS bool
	}{{nil, true}, {func(a string) bool { return a != "lds" }, false}} {
		out := t.TempDir()
		if _, err := RunFigures(dir, out, nil, Options{Format: "svg", InTrueFamily: tc.in}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, FigWError+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(b), ">lds<"); has != tc.wantLDS {
			t.Errorf("InTrueFamily %v: w_error names lds: %v, want %v", tc.in != nil, has, tc.wantLDS)
		}
		if !strings.Contains(string(b), ">sm<") {
			t.Error("w_error lacks sm")
		}
	}
}
