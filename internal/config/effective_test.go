package config

import (
	"slices"
	"strings"
	"testing"
)

// Uses follows the registry: the sections of unselected parts, and the
// keys only unselected parts read, are unused; the snapshot leaves them
// out; setting one is an error naming the key and the selecting group.
func TestUsesFollowsRegistry(t *testing.T) {
	a, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	unused := []string{"env.cartpole", "env.pendulum.dt", "env.mountain_car", "model", "planner.cem", "planner.mppi",
		"planner.n_sequences", "env.family.sigma", "env.features.dim", "env.action_low", "confidence"}
	used := []string{"env.family.freq", "env.family.alpha", "env.w0", "planner.mode", "planner.tau", "lds.sigma", "env.actions", "seed"}
	if got := a.Unused(unused); !slices.Equal(got, unused) {
		t.Errorf("Unused(%v) of the default = %v, want all", unused, got)
	}
	if got := a.Unused(used); len(got) != 0 {
		t.Errorf("the default does not use %v", got)
	}
	y, err := a.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"cartpole:", "mppi:", "n_sequences:", "sigma: 1\n    dim", "model:", "confidence:", "action_low:"} {
		if strings.Contains(string(y), s) {
			t.Errorf("the default's snapshot holds %q:\n%s", s, y)
		}
	}
	// Selecting cem makes planner.cem used, and the snapshot holds it.
	b, err := Load(Options{Set: []Setting{{Key: "planner.kind", Value: "cem", Source: "--set"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !b.Uses("planner.cem.population") || b.Uses("planner.mode") {
		t.Error("with planner.kind cem: planner.cem.population unused or planner.mode used")
	}
	if y, _ := b.YAML(); !strings.Contains(string(y), "  cem:\n    population: 32\n") {
		t.Errorf("cem's snapshot lacks planner.cem:\n%s", y)
	}
	for _, c := range []struct {
		key  string
		val  any
		want string
	}{
		{"env.cartpole.dt", 0.1, "env.cartpole.dt: is set but env.kind is expfam"},
		{"env.family.sigma", 2.0, "env.family.sigma: is set but env.family.kind is custom-sin (it is used by env.family.kind gaussian, relu, relu-mog or truncated-gaussian)"},
		{"planner.n_sequences", int64(8), "planner.n_sequences: is set but planner.mode is constant"},
		{"lds.sigma", 2.0, "agents is sm"},
		{"env.action_low", []float64{-1}, "env.action_low: is set but env.action_space is discrete"},
	} {
		set := []Setting{{Key: c.key, Value: c.val, Source: "--set"}}
		if c.key == "lds.sigma" {
			set = append(set, Setting{Key: "agents", Value: []string{"sm"}, Source: "--set"})
		}
		_, err := Load(Options{Set: set})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("setting %s: err = %v, want %q", c.key, err, c.want)
		}
	}
}
