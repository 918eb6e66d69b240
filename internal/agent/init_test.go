package agent

import (
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestInitModel: a learner whose estimator has a W in ModelSpec.Init
// (init_model) plans with it until its first refit; the others, and a
// learner of another estimator, start from W = 0; a W of another size is
// an error naming init_model.
func TestInitModel(t *testing.T) {
	fam, err := expfam.NewGaussian(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	conf := ConfidenceOf(testutil.LoadConfig(t, ""))
	feat := expfam.Affine{DS: 2, DA: 1}
	w := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	spec := env.ModelSpec{Family: fam, Features: feat, LDSSigma: []float64{1, 1}, Init: map[string][]float64{"sm": w}}
	for _, c := range []struct {
		name string
		want []float64
	}{
		{"sm", w}, {"sm-ucb", w}, {"sm-ps", w}, {"lds", make([]float64, 8)},
	} {
		a, err := New(c.name, spec, nil, Config{Lambda: 1e-4, Rollout: "sample", Confidence: conf})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(a.Model.W, c.want) {
			t.Errorf("%s: plans with W = %v, want %v", c.name, a.Model.W, c.want)
		}
	}
	a, err := New("sm", spec, nil, Config{Lambda: 1e-4, Rollout: "sample"})
	if err != nil {
		t.Fatal(err)
	}
	w[0] = 42 // the agent holds its own copy: agents of other trials share spec
	if a.Model.W[0] == 42 {
		t.Errorf("the agent's W aliases ModelSpec.Init")
	}
	spec.Init["sm"] = w[:6]
	if _, err := New("sm", spec, nil, Config{Lambda: 1e-4, Rollout: "sample"}); err == nil || !strings.Contains(err.Error(), "init_model") {
		t.Errorf("a W of 6 entries for 8: err = %v, want one naming init_model", err)
	}
}
