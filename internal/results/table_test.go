package results

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/record"
)

// pendulumLike is a result whose returns are never positive, over 2
// seeds far apart: the 95% t interval of its mean (t = 12.7) reaches
// above 0 (issue 35, item 4: a pendulum return of −688.7 [−3446.5, 2069.2]).
func pendulumLike() *record.Result {
	res := &record.Result{Trials: []record.Trial{{Agent: "oracle", Seed: 0}, {Agent: "oracle", Seed: 1}}}
	for _, rewards := range [][]float64{{-100, -110, -120}, {-900, -950, -1000}} {
		var eps []record.Episode
		for k, r := range rewards {
			eps = append(eps, record.Episode{Episode: k + 1, Reward: r, Steps: 200, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN()})
		}
		res.Episodes = append(res.Episodes, eps)
	}
	return res
}

// The table clips an interval that leaves the seeds' range to it, marks
// it and says so under the table, as the figures clip their bands: an
// interval of returns that are never positive no longer reaches above 0
// (it was -530.0 [-5866.6, 4806.6]).
func TestTableClipsIntervalToSeedsRange(t *testing.T) {
	sums := Summarise(Rows(pendulumLike()), 200)
	var b bytes.Buffer
	if err := Table(&b, sums, Columns{Cumulative: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"-530 [-950, -110]†",   // return per episode: the seeds' means
		"-1590 [-2850, -330]†", // cumulative reward at the last episode
		"† the 95% t interval reached beyond the seeds' values and is clipped to their range",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// An interval inside the seeds' range is left as it is, unmarked, and
// so is an interval of one seed.
func TestTableLeavesIntervalInsideRange(t *testing.T) {
	s := MeanCI([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if lo, hi, clipped := s.Clipped(); clipped || lo != s.Lo || hi != s.Hi {
		t.Errorf("10 seeds: %v clipped to [%g, %g]", s, lo, hi)
	}
	if cell, clipped := ci(MeanCI([]float64{3})); clipped || cell != "3 [n/a: 1 seed]" {
		t.Errorf("1 seed: %q, clipped %v", cell, clipped)
	}
}
