package expfam

import (
	"math"
	"testing"
)

// The description of a distance weight folds the signs of its points and
// bounds into the operators.
func TestDistWeightString(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		points         []float64
		lo, hi, cap, p float64
		want           string
	}{
		{[]float64{0}, -inf, inf, 2, 1, "h(x) = min(|x|/2, 1)"},
		{[]float64{-1}, -inf, inf, 2, 1, "h(x) = min(|x + 1|/2, 1)"},
		{[]float64{0.5}, -inf, inf, 2, 1, "h(x) = min(|x − 0.5|/2, 1)"},
		{nil, -1, inf, 0.5, 1, "h(x) = min((x + 1)/0.5, 1)"},
		{nil, 2, inf, 0.5, 1, "h(x) = min((x − 2)/0.5, 1)"},
		{nil, 0, 1, 0.25, 2, "h(x) = min(min(x, 1 − x)/0.25, 1)^2"},
		{nil, -inf, -1, 1, 1, "h(x) = min((-1 − x)/1, 1)"},
	} {
		w, err := NewDistWeight(c.points, c.lo, c.hi, c.cap, c.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.String(); got != c.want {
			t.Errorf("%v (%v, %v): %q, want %q", c.points, c.lo, c.hi, got, c.want)
		}
	}
}
