package aggregate

import (
	"errors"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Two tasks whose returns differ 1000-fold: normalised by random and
// oracle, each task's scores are on one scale, and the aggregate mean is
// the mean of the hand-normalised scores; raw, the large task dominates.
func TestNormalisedAggregateByHand(t *testing.T) {
	seeds := map[string][]int{"random": {0, 1}, "oracle": {0, 1}, "sm": {0, 1}}
	small := Stratum{Scores: map[string][]float64{"random": {0, 2}, "oracle": {9, 11}, "sm": {6, 8}}, Seeds: seeds}
	large := Stratum{Scores: map[string][]float64{"random": {-2000, -1800}, "oracle": {-200, -100}, "sm": {-1000, -500}}, Seeds: seeds}
	st := config.Stats{Normalise: config.NormaliseOracle}
	var norm []Stratum
	for _, s := range []Stratum{small, large} {
		n, err := Normalise(s, st)
		if err != nil {
			t.Fatal(err)
		}
		norm = append(norm, n)
	}
	// small: r = 1, o = 10: sm (6−1)/9, (8−1)/9. large: r = −1900,
	// o = −150: sm 900/1750, 1400/1750.
	want := []float64{5.0 / 9, 7.0 / 9, 900.0 / 1750, 1400.0 / 1750}
	got := append(append([]float64(nil), norm[0].Scores["sm"]...), norm[1].Scores["sm"]...)
	for i := range want {
		testutil.AbsClosef(t, got[i], want[i], 1e-15, "normalised score %d = %v, want %v", i, got[i], want[i])
	}
	if small.Scores["sm"][0] != 6 {
		t.Error("Normalise changed its input")
	}
	res, err := Compute(norm, []string{"random", "oracle", "sm"}, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	var m float64
	for _, w := range want {
		m += w / 4
	}
	for _, r := range res.Metrics {
		if r.Agent == "sm" && r.Metric == Mean && !testutil.AbsWithin(r.Value, m, 1e-12) {
			t.Errorf("normalised mean of sm %v, want %v", r.Value, m)
		}
		if r.Agent == "oracle" && r.Metric == Mean && !testutil.AbsWithin(r.Value, 1, 1e-12) {
			t.Errorf("the oracle's normalised mean %v, want 1", r.Value)
		}
	}
	// Declared references: (x − lo)/(hi − lo).
	d, err := Normalise(small, config.Stats{Normalise: config.NormaliseDeclared, Reference: []float64{0, 4}})
	if err != nil || d.Scores["sm"][1] != 2 {
		t.Errorf("declared [0, 4]: sm %v, %v; want 2 for 8", d.Scores["sm"], err)
	}
	// None: the scores themselves.
	if n, _ := Normalise(small, config.Stats{Normalise: config.NormaliseNone}); n.Scores["sm"][0] != 6 {
		t.Error("none changed the scores")
	}
	// A task without the random agent, or with equal references, is refused.
	noRandom := Stratum{Scores: map[string][]float64{"oracle": {1}, "sm": {0}}, Seeds: map[string][]int{"oracle": {0}, "sm": {0}}}
	if _, err := Normalise(noRandom, st); !errors.Is(err, ErrReference) || !errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("no random agent: %v", err)
	}
	same := Stratum{Scores: map[string][]float64{"random": {3}, "oracle": {3}}, Seeds: map[string][]int{"random": {0}, "oracle": {0}}}
	if _, err := Normalise(same, st); !errors.Is(err, ErrReference) {
		t.Errorf("equal references: %v", err)
	}
}
