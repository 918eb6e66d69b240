package estimate

import (
	"bytes"
	"context"
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
	if !strings.Contains(b.String(), "smrl estimate: ") || !strings.Contains(b.String(), " transitions") {
		t.Errorf("progress lines %q", b.String())
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
