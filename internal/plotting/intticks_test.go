package plotting

import (
	"slices"
	"testing"

	"gonum.org/v1/plot"
)

func labels(ticks []plot.Tick) []string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

// An episode axis has ticks at integers only: 1, 2, 3 for a 3-episode
// run (linTicks would put labels at 1.5 and 2.5), and no minor tick off
// the integers on a long run.
func TestIntTicks(t *testing.T) {
	if got := labels(intTicks{}.Ticks(1, 3)); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Errorf("ticks of [1, 3]: %v, want 1 2 3", got)
	}
	if got := labels(intTicks{}.Ticks(1, 1)); !slices.Equal(got, []string{"1"}) {
		t.Errorf("ticks of [1, 1]: %v, want 1", got)
	}
	for _, r := range [][2]float64{{1, 3}, {1, 8}, {1, 15}, {1, 50}, {0.7, 203.2}} {
		ticks := intTicks{}.Ticks(r[0], r[1])
		if len(labels(ticks)) < 2 {
			t.Errorf("ticks of %v: fewer than two labels: %v", r, ticks)
		}
		for _, tk := range ticks {
			if tk.Value != float64(int(tk.Value)) || tk.Value < r[0] || tk.Value > r[1] {
				t.Errorf("ticks of %v: a tick at %v", r, tk.Value)
			}
		}
	}
}

// Labels of a narrow range differ: the pendulum's cos θ marginal on
// [−1, −0.999] was labelled −1, −1, −1, −1, −0.999 by gonum's ticks.
func TestDistinctTicks(t *testing.T) {
	for _, r := range [][2]float64{{-1, -0.999}, {-1.0000001, -0.9999999}, {0, 1}, {1e6, 1e6 + 3}} {
		got := labels(distinctTicks{plot.DefaultTicks{}}.Ticks(r[0], r[1]))
		if len(got) < 2 {
			t.Errorf("%v: fewer than two labels %v", r, got)
		}
		seen := map[string]bool{}
		for _, l := range got {
			if seen[l] {
				t.Errorf("%v: label %q repeats in %v", r, l, got)
			}
			seen[l] = true
		}
	}
	// The premise: gonum's own labels of the second range repeat.
	if distinctLabels(plot.DefaultTicks{}.Ticks(-1.0000001, -0.9999999)) {
		t.Error("gonum's labels of [−1.0000001, −0.9999999] are distinct: the case no longer tests the relabelling")
	}
}
