package config

import (
	"reflect"
	"strings"
	"testing"
)

// Defaults is Load(Options{}), and a caller that changes its lists and
// sections in place changes no later Defaults.
func TestDefaultsIsLoad(t *testing.T) {
	want, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantYAML, err := want.YAML()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		d, err := Defaults()
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.YAML()
		if err != nil || string(got) != string(wantYAML) {
			t.Fatalf("Defaults' snapshot:\n%s\nLoad's:\n%s(%v)", got, wantYAML, err)
		}
		a, b := *d, *want
		a.memo, b.memo, a.Planner.Section, b.Planner.Section, a.parts, b.parts = nil, nil, nil, nil, nil, nil
		if !reflect.DeepEqual(a, b) || d.Planner.Section != d.parts["planner."+d.Planner.Kind] {
			t.Errorf("Defaults differs from Load(Options{})")
		}
		// Change everything a caller could change in place.
		d.Agents[0], d.Env.W0[0][0], d.Env.Reward.Centers[0] = "x", 99, 99
		reflect.ValueOf(d.parts["env.family"]).Elem().Field(0).Set(reflect.Zero(reflect.ValueOf(d.parts["env.family"]).Elem().Field(0).Type()))
		d.origins["x"] = "y"
	}
}

// A part's shared keys of a map or pointer type are refused when it
// registers: Defaults could not copy them (deepCopy panicked on every Load).
func TestKeySetRefusesMapsAndPointers(t *testing.T) {
	for _, defaults := range []any{
		&struct {
			M map[string]float64 `yaml:"m"`
		}{},
		&struct {
			P *float64 `yaml:"p"`
		}{},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, "not a struct, map or pointer") {
					t.Errorf("%T: checkKeySet recovered %v; want its refusal", defaults, r)
				}
			}()
			checkKeySet(Part{Group: "planner", Name: "test-map-keys"}, KeySet{At: "planner", Defaults: defaults}, nil)
		}()
	}
}
