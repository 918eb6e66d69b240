package estimate

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// A long estimate or sweep says what it is doing on its progress writer;
// a quick one (the default period, 5 s) says nothing.
func TestProgressLines(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Estimate.N = 20000
	var b bytes.Buffer
	if _, err := Run(context.Background(), c, Options{Progress: &b, ProgressEvery: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	// Which stages a tick lands in depends on the machine (drawing 20000
	// transitions can end before the first): every line names a stage of
	// the fit on these transitions and the time so far.
	line := regexp.MustCompile(`^smrl estimate: (drawing|fitting) .* \(\S+\)$`)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if b.Len() == 0 || !slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, " of 20000") || strings.Contains(l, "20000 transitions")
	}) {
		t.Errorf("progress lines %q: want a line naming the 20000 transitions", b.String())
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("progress line %q: want \"smrl estimate: <stage> (<time>)\"", l)
		}
	}
	c.Estimate.SweepN, c.Estimate.Repeats = []int{2000, 4000}, 4
	b.Reset()
	if _, err := Sweep(context.Background(), c, SweepOptions{Methods: []string{"sm", "mle"}, Progress: &b, ProgressEvery: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "smrl estimate: sweep: ") || !strings.Contains(b.String(), " of 8 data sets fitted") {
		t.Errorf("sweep progress lines %q", b.String())
	}
	b.Reset()
	c.Estimate.N = 100
	if _, err := Run(context.Background(), c, Options{Progress: &b}); err != nil || b.Len() != 0 {
		t.Errorf("quick estimate printed %q (%v)", b.String(), err)
	}
}
