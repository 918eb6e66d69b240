package agent

import (
	"errors"
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// The estimator's refusals of weights and kink bandwidths reach the user
// under the config key they come from, added here (NewSM), not by the
// estimator.
func TestNewSMNamesTheConfigKey(t *testing.T) {
	relu, _ := expfam.NewReLU(0.7, 3)
	g, _ := expfam.NewGaussCoord(0.4)
	two, err := expfam.NewCoords([]expfam.Coord{relu, g})
	if err != nil {
		t.Fatal(err)
	}
	one, err := expfam.NewCoords([]expfam.Coord{relu})
	if err != nil {
		t.Fatal(err)
	}
	feat := expfam.Affine{DS: 2, DA: 1}
	spec := env.ModelSpec{Family: two, Features: feat, Kink: "kernel", KinkBandwidth: []float64{math.NaN(), 0}}
	const bandwidth = "model.kink_bandwidth: score matching: kink bandwidth of coordinate 0 must be a finite number >= 0, got NaN"
	_, err = New("sm", spec, nil, Config{Lambda: 1e-4, Rollout: "sample"})
	if err == nil || err.Error() != bandwidth {
		t.Errorf("New(sm) with a NaN kink bandwidth: %v, want %q", err, bandwidth)
	}
	if !errors.Is(err, estimator.ErrKinkBandwidths) {
		t.Errorf("%v: not estimator.ErrKinkBandwidths", err)
	}
	// Weights of the spec's two coordinates for a family of one.
	spec.KinkBandwidth = nil
	const weights = "model.kink: score matching: 2 weights for 1 coordinates"
	_, err = NewSM(spec, one, feat.Dim(), "weighted")
	if err == nil || err.Error() != weights {
		t.Errorf("NewSM with a family of the wrong dimension: %v, want %q", err, weights)
	}
	if !errors.Is(err, estimator.ErrWeights) {
		t.Errorf("%v: not estimator.ErrWeights", err)
	}
}
