package estimator

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/expfam"
)

// NewSMFor marks its refusals (ErrWeights, ErrKinkBandwidths) and words
// them without config keys: the estimator does not know where its weights
// and bandwidths came from (package agent names the key).
func TestNewSMForRefusals(t *testing.T) {
	relu, _ := expfam.NewReLU(0.7, 3)
	g, _ := expfam.NewGaussCoord(0.4)
	fam, err := expfam.NewCoords([]expfam.Coord{relu, g})
	if err != nil {
		t.Fatal(err)
	}
	w := relu.DefaultWeight()
	for _, tc := range []struct {
		name string
		w    []expfam.Weight
		h    []float64
		kind error
		msg  string
	}{
		{"weights", []expfam.Weight{w}, nil, ErrWeights, "score matching: 1 weights for 2 coordinates"},
		{"bandwidths", []expfam.Weight{w, nil}, []float64{math.NaN(), 0}, ErrKinkBandwidths,
			"score matching: kink bandwidth of coordinate 0 must be a finite number >= 0, got NaN"},
	} {
		_, err := NewSMFor(fam, 2, tc.w, tc.h)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: %v, want errors.Is %v", tc.name, err, tc.kind)
		}
		if err == nil || err.Error() != tc.msg {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
		if err != nil && strings.Contains(err.Error(), "model.") {
			t.Errorf("%s: %v names a config key", tc.name, err)
		}
	}
	if _, err := NewSMFor(fam, 2, []expfam.Weight{w, nil}, []float64{0.3, 0}); err != nil {
		t.Errorf("admissible weights and bandwidths: %v", err)
	}
}
