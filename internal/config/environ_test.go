package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Environment variables: lists are typed (a bad entry names the variable),
// nested lists are YAML flow, and a variable that is no key is reported
// with the closest key (but not the SMRL_* variables smrl reads itself).
func TestEnvironment(t *testing.T) {
	c, err := Load(Options{Environ: []string{"SMRL_ENV_W0=[[1, -1]]", "SMRL_ENV_ACTIONS=1, -1", "SMRL_ESTIMATE_SWEEP_N=10,20"}})
	if err != nil || !reflect.DeepEqual(c.Env.W0, [][]float64{{1, -1}}) || !reflect.DeepEqual(c.Env.Actions, []float64{1, -1}) ||
		!reflect.DeepEqual(c.Estimate.SweepN, []int{10, 20}) {
		t.Fatalf("typed lists: %v %+v", err, c)
	}
	for _, tc := range []struct{ kv, want string }{
		{"SMRL_ENV_W0=abc", `SMRL_ENV_W0="abc": env.w0 must be a list of lists`},
		{"SMRL_ENV_ACTIONS=1,x", `SMRL_ENV_ACTIONS="1,x": env.actions entry "x": must be a number`},
		{"SMRL_ESTIMATE_SWEEP_N=10,2.5", `entry "2.5": must be an integer`},
		{"SMRL_EPISODES=010", `SMRL_EPISODES="010": episodes must be written without a leading 0 (YAML reads 010 as octal 8)`},
		{"SMRL_SEED=010", `SMRL_SEED="010": seed must be written without a leading 0`},
		{"SMRL_LAMBDA=010", `SMRL_LAMBDA="010": lambda must be written without a leading 0`},
		{"SMRL_SEEDS=0x10", `SMRL_SEEDS="0x10": seeds must be an integer`},
		{"SMRL_ENV_W0=[[1, x]]", `SMRL_ENV_W0="[[1, x]]": env.w0 must be a list such as [[1, 0.5]]: want a number, got "x"`},
		{"SMRL_ENV_W0=[1, 2]", `env.w0 must be a list such as [[1, 0.5]]: want a list of lists of numbers, e.g. [[1, 0.5]], got "1" as an entry`},
		// Text after a flow list is refused, not dropped.
		{"SMRL_ENV_W0=[[1,1]]junk", `SMRL_ENV_W0="[[1,1]]junk": env.w0 must be one list such as [[1, 0.5]], with nothing after its closing bracket`},
		{"SMRL_ENV_W0=[[1,1]];[[2,2]]", `SMRL_ENV_W0="[[1,1]];[[2,2]]": env.w0 must be one list`},
		{"SMRL_ENV_ACTIONS=[1,-1]]", `SMRL_ENV_ACTIONS="[1,-1]]": env.actions must be one list such as [1, 0.5], with nothing after`},
		{"SMRL_ENV_ACTIONS=[1,-1] [2]", `env.actions must be one list`},
		{"SMRL_AGENTS=[sm]\n---\n[lds]", `agents must be one list such as [a, b]`},
	} {
		_, err := Load(Options{Environ: []string{tc.kv}})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "embedded defaults") {
			t.Errorf("%s: err = %v, want it to contain %q", tc.kv, err, tc.want)
		}
	}
	// A default made invalid by a variable is not blamed on the defaults.
	_, err = Load(Options{Environ: []string{"SMRL_ENV_FAMILY_DIM=2"}})
	if err == nil || !strings.Contains(err.Error(), "env.w0 keeps its embedded default") {
		t.Errorf("combination: %v", err)
	}
	// A check of several keys reported on a default one names where the
	// others it mentions were set.
	mc := filepath.Join(t.TempDir(), "mc.yaml")
	if err := os.WriteFile(mc, []byte("env:\n  kind: mountain-car\n  horizon: 999\n  action_space: box\n  action_low: [-1]\n  action_high: [1]\nplanner:\n  kind: mppi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(Options{Path: mc, Environ: []string{"SMRL_ENV_MOUNTAIN_CAR_INIT_HIGH=-1"}})
	if err == nil || !strings.HasPrefix(err.Error(), "SMRL_ENV_MOUNTAIN_CAR_INIT_HIGH: env.mountain_car.init_low: want") {
		t.Errorf("several keys, one set by a variable: %v", err)
	}
	var warnings []string
	warn := func(m string) { warnings = append(warnings, m) }
	env := []string{"SMRL_EPISODS=3", "SMRL_SHARD_COUNT=2", "SMRL_REPRODUCE=1", "SMRL_PLANER_TAU=3", "SMRL_NOSIMD=1", "SMRL_LONG=1", "SMRL_DOCS=1"}
	if _, err := Load(Options{Environ: env, Warn: warn}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"warning: SMRL_EPISODS is not a config key and is ignored; did you mean SMRL_EPISODES?",
		"warning: SMRL_PLANER_TAU is not a config key and is ignored; did you mean SMRL_PLANNER_TAU?",
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
}

// TestSetBoolIsYAMLBool: --set and SMRL_* take a boolean in the spellings
// a config file takes (YAML's true/True/TRUE, false/False/FALSE) and refuse
// strconv.ParseBool's others (1, t, F, …), which a file refuses too.
func TestSetBoolIsYAMLBool(t *testing.T) {
	for _, tc := range []struct {
		val  string
		want any
	}{{"true", true}, {"True", true}, {"TRUE", true}, {"false", false}, {"False", false}, {"FALSE", false},
		{"1", nil}, {"0", nil}, {"t", nil}, {"F", nil}, {"tRUE", nil}, {"yes", nil}, {"", nil}} {
		got, err := parseEnv(reflect.TypeFor[bool](), tc.val)
		if tc.want == nil {
			if err == nil || err.Error() != "must be true or false" {
				t.Errorf("%q: got %v, %v; want refused", tc.val, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %v, %v; want %v", tc.val, got, err, tc.want)
		}
	}
	if _, err := Load(Options{Environ: []string{"SMRL_STATS_SAVE_W=1"}}); err == nil || !strings.Contains(err.Error(), "must be true or false") {
		t.Errorf("SMRL_STATS_SAVE_W=1: %v", err)
	}
}
