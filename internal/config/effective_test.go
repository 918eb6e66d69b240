package config

import (
	"reflect"
	"slices"
	"testing"
)

// Effective blanks exactly the sections the run does not use.
func TestEffective(t *testing.T) {
	a, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Unused(), []string{"env.cartpole", "env.pendulum", "env.mountain_car", "model", "planner.cem", "planner.mppi"}; !slices.Equal(got, want) {
		t.Errorf("Unused() of the default (expfam, rss) = %v, want %v", got, want)
	}
	b := *a
	b.Planner.CEM.Population++
	b.Env.CartPole.Gravity++
	if !reflect.DeepEqual(a.Effective(), b.Effective()) {
		t.Error("configs differing in unused sections are not equal in effect")
	}
	b.Planner.Tau++
	if reflect.DeepEqual(a.Effective(), b.Effective()) {
		t.Error("configs differing in planner.tau are equal in effect")
	}
	c := *a
	c.Planner.Kind = "cem"
	d := c
	d.Planner.CEM.Population++
	if reflect.DeepEqual(c.Effective(), d.Effective()) || slices.Contains(c.Unused(), "planner.cem") {
		t.Error("with planner.kind cem, planner.cem is treated as unused")
	}
	if a.Planner.CEM.Population == 0 {
		t.Error("Effective changed the config it was called on")
	}
}
