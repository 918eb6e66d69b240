package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// This file adds a family and a feature map the way ARCHITECTURE.md says
// they are added: one file each (here both in one test file) with the keys
// they declare in the shared sections (env.family, model, env.features,
// model.features), their validation and their builders, plus one
// registration line each, with no change to config or to the rest of env.
// They are registered for the cmd tests only (TestTestOnlyFamilyAndFeatures).

// scaledKeys is test-scaled-gaussian's key in env.family: a new parameter.
type scaledKeys struct {
	Scale float64 `mapstructure:"scale" yaml:"scale" doc:"test-scaled-gaussian: the noise scale of s' = W0 phi + N(0, scale²)"`
}

// widenKeys is its key in model: the learners' scale is widen·σ_i.
type widenKeys struct {
	Widen float64 `mapstructure:"test_widen" yaml:"test_widen" doc:"test-scaled-gaussian: the learners' scale is test_widen·σ_i"`
}

var scaledGaussian = env.Family{Part: config.Part{Name: "test-scaled-gaussian", ConstantC: true,
	Doc: "a test-only Gaussian family whose scale is its own key, env.family.scale"},
	EnvUses: []string{"env.family.scale"}, EnvKeys: &scaledKeys{Scale: 0.5},
	ModelUses: []string{"model.test_widen"}, ModelKeys: &widenKeys{Widen: 1},
	EnvValidate: func(c *config.Config, bad config.Bad) {
		if s := config.Shared[scaledKeys](c, "env.family").Scale; !(s >= 1e-3 && s <= 1e3) {
			bad("env.family.scale", "must lie in [1e-3, 1e3], got %v", s)
		}
	},
	Coord: func(c *config.Config, at env.Site) (expfam.Coord, error) {
		if at.Learner {
			return expfam.NewGaussCoord(at.Sigma * config.Shared[widenKeys](c, "model").Widen)
		}
		return expfam.NewGaussCoord(config.Shared[scaledKeys](c, "env.family").Scale)
	}}

// gainKeys is test-quadratic's key in env.features and model.features.
type gainKeys struct {
	Gain float64 `mapstructure:"gain" yaml:"gain" doc:"test-quadratic: phi(s, a) = [s, a, gain·s0²]"`
}

// quadratic is phi(s, a) = [s, a, gain·s0²].
type quadratic struct {
	ds, da int
	gain   float64
}

func (f quadratic) String() string { return "test-quadratic" }
func (f quadratic) Dim() int       { return f.ds + f.da + 1 }
func (f quadratic) StateDim() int  { return f.ds }
func (f quadratic) ActionDim() int { return f.da }
func (f quadratic) Phi(s, a, out []float64) {
	copy(out, s[:f.ds])
	copy(out[f.ds:], a[:f.da])
	out[f.ds+f.da] = f.gain * s[0] * s[0]
}

var quadraticFeatures = env.Feature{Name: "test-quadratic",
	Part: func(section string) config.Part {
		return config.Part{Doc: "a test-only feature map [s, a, gain·s0²]", Uses: []string{section + ".gain"},
			Keys:   []config.KeySet{{At: section, Defaults: &gainKeys{Gain: 1}}},
			PhiDim: func(_ *config.Config, _ string, ds, da int) (int, bool) { return ds + da + 1, true }}
	},
	Build: func(c *config.Config, section string, ds, da int, _ []float64) (expfam.Features, error) {
		return quadratic{ds, da, config.Shared[gainKeys](c, section).Gain}, nil
	}}

func init() { // the two registration lines
	env.RegisterFamilies(scaledGaussian)
	env.RegisterFeatures(quadraticFeatures)
}

// The test-only family and feature map run end to end (smrl run writes
// their keys into the snapshot), are listed with their keys, validate and
// refuse their keys when not selected; and the MDP they build is the one
// their keys say: s' ~ N(W0·[s, a, gain·s²], scale²), checked by the mean
// and the standard deviation of draws.
func TestTestOnlyFamilyAndFeatures(t *testing.T) {
	sets := []string{"--set", "env.family.kind=test-scaled-gaussian", "--set", "env.family.scale=0.25",
		"--set", "env.features.kind=test-quadratic", "--set", "env.features.gain=2", "--set", "env.w0=[[0.5, 1, -0.25]]"}
	out := filepath.Join(t.TempDir(), "scaled")
	args := append([]string{"run", "--set", "agents=[sm,oracle]", "--set", "env.horizon=3", "--seeds", "1", "--episodes", "2",
		"-q", "--no-plots", "--out", out}, sets...)
	if code, _, stderr := run(t, args...); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	snap := read(t, filepath.Join(out, "config.yaml"))
	for _, want := range []string{"  family:\n    kind: test-scaled-gaussian\n    dim: 1\n    scale: 0.25\n", "  features:\n    kind: test-quadratic\n    gain: 2\n"} {
		if !strings.Contains(snap, want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, snap)
		}
	}
	for _, not := range []string{"freq:", "sigma:", "test_widen"} {
		if strings.Contains(snap, not) {
			t.Errorf("config.yaml holds %q, which the run does not use:\n%s", not, snap)
		}
	}
	_, stdout, _ := run(t, "list", "keys")
	for _, want := range []string{"env.family.scale", "model.test_widen", "env.features.gain", "model.features.gain"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("smrl list keys does not list %s", want)
		}
	}
	code, stdout, stderr := run(t, append([]string{"config", "--set", "env.family.scale=0"}, sets[:2]...)...)
	wantUsage(t, code, stdout, stderr, "env.family.scale: must lie in [1e-3, 1e3], got 0")
	code, stdout, stderr = run(t, "config", "--set", "env.features.gain=3")
	wantUsage(t, code, stdout, stderr, "env.features.gain: is set but env.features.kind is linear (it is used by env.features.kind test-quadratic only)")

	c := testutil.LoadConfigOptions(t, config.Options{Set: []config.Setting{
		{Key: "env.family.kind", Value: "test-scaled-gaussian", Source: "test"}, {Key: "env.family.scale", Value: 0.25, Source: "test"},
		{Key: "env.features.kind", Value: "test-quadratic", Source: "test"}, {Key: "env.features.gain", Value: 2.0, Source: "test"},
		{Key: "env.w0", Value: [][]float64{{0.5, 1, -0.25}}, Source: "test"}}})
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	s, a := []float64{0.8}, []float64{-1}
	mean := 0.5*0.8 + 1*(-1) - 0.25*2*0.8*0.8 // W0·[s, a, gain·s²]
	sim, rng := mdp.Dynamics.NewSimulator(), rand.New(rand.NewPCG(1, 2))
	const n = 20000
	var sum, sum2 float64
	next := make([]float64, 1)
	for range n {
		sim.Step(s, a, rng, next)
		sum += next[0]
		sum2 += next[0] * next[0]
	}
	m := sum / n
	sd := math.Sqrt(sum2/n - m*m)
	// 5 standard errors: 0.25/√n for the mean, 0.25/√(2n) for the sd.
	if !testutil.Within(m, mean, 5*0.25/math.Sqrt(n)) || !testutil.Within(sd, 0.25, 5*0.25/math.Sqrt(2*n)) {
		t.Errorf("draws at s = %v, a = %v: mean %v, sd %v; want %v, 0.25", s, a, m, sd, mean)
	}
	if got := fmt.Sprint(mdp.Model.Features); got != "test-quadratic" {
		t.Errorf("the learners' features are %s", got)
	}
}
