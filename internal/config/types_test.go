package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// YAML would silently convert these into their fields; they are refused
// with the key and the line, as the flags refuse them.
func TestNoSilentCoercion(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"episodes: 1.5\n", `line 1: episodes: want a whole number, got "1.5"`},
		{"seeds: 2\nplanner:\n  tau: 2.5\n", `line 3: planner.tau: want a whole number, got "2.5"`},
		{"seed: 18446744073709551616\n", `line 1: seed: want a whole number in [0, 18446744073709551615], got "18446744073709551616"`},
		{"estimate:\n  sweep_n: [100, 2.5e3]\n", `line 2: estimate.sweep_n: want a whole number, got "2.5e3"`},
		{"episodes: 1e3\n", `episodes: want a whole number`},
		// YAML reads these as numbers other than what a reader of the file
		// sees (010 is octal 8), or in notations --set refuses.
		{"episodes: 010\n", `line 1: episodes: want a whole number in decimal notation, without a leading 0 (YAML reads 010 as octal 8), got "010"`},
		{"lambda: 010\n", `lambda: want a number in decimal notation, without a leading 0 (YAML reads 010 as octal 8)`},
		{"episodes: 08\n", `episodes: want a whole number in decimal notation, without a leading 0`},
		{"seed: 010\n", `seed: want a whole number in decimal notation, without a leading 0`},
		{"seeds: 0x10\n", `seeds: want a whole number in decimal notation (such as 16), got "0x10"`},
		{"seeds: 0o20\n", `seeds: want a whole number in decimal notation (such as 16), got "0o20"`},
		{"seeds: 0b11\n", `got "0b11"`},
		{"episodes: 1_000\n", `got "1_000"`},
		{"lambda: 1_0.5\n", `lambda: want a number in decimal notation (such as 0.5 or 1e-3), got "1_0.5"`},
		{"estimate:\n  sweep_n: [100, 0x10]\n", `line 2: estimate.sweep_n: want a whole number in decimal notation`},
	} {
		_, err := Load(Options{Path: write(t, tc.body)})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "c.yaml") {
			t.Errorf("%q: err = %v, want it to contain %q", tc.body, err, tc.want)
		}
	}
	c, err := Load(Options{Path: write(t, "seeds: +12\nepisodes: 10\nlambda: 0.5\n")})
	if err != nil || c.Seeds != 12 || c.Episodes != 10 || c.Lambda != 0.5 {
		t.Errorf("decimal numbers: %v %+v", err, c)
	}
	c, err = Load(Options{Path: write(t, "seed: 18446744073709551615\nlambda: 1\nenv:\n  init_low: -1\n")})
	if err != nil || c.Seed != 18446744073709551615 || c.Lambda != 1 {
		t.Errorf("whole numbers in range: %v %+v", err, c)
	}
	// Empty sections and lists are fine.
	c, err = Load(Options{Path: write(t, "env:\n  reward:\nestimate:\n  sweep_n:\n")})
	if err != nil || c.Estimate.SweepN != nil {
		t.Errorf("empty section and list: %v %+v", err, c)
	}
}

// A value of the wrong kind is said in words, naming the file, the line and
// the key; yaml's messages named Go types ("cannot unmarshal !!int `-1`
// into uint64").
func TestTypeErrorsInWords(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"seed: -1\n", `c.yaml line 1: seed: want a whole number in [0, 18446744073709551615], got "-1"`},
		{"agents: sm\n", `c.yaml line 1: agents: want a list of agent names, e.g. [sm, lds], got "sm"`},
		{"seeds: 1\nenv: 5\n", `c.yaml line 2: env: want a section: its keys, one per line, got "5"`},
		{"episodes: [1]\n", `c.yaml line 1: episodes: want a single value, got a list`},
		{"env:\n  w0: [1, 2]\n", `c.yaml line 2: env.w0: want a list of lists of numbers, e.g. [[1, 0.5]], got "1" as an entry`},
		{"env:\n  actions: 1\n", `c.yaml line 2: env.actions: want a list of numbers, e.g. [1, 0.5], got "1"`},
		{"env:\n  actions: {a: 1}\n", `c.yaml line 2: env.actions: want a list of numbers, e.g. [1, 0.5], got a mapping`},
		{"confidence:\n  b_psi: [1]\n", `c.yaml line 2: confidence.b_psi: want a single value, got a list`},
		{"planner:\n  kind: {a: 1}\n", `c.yaml line 2: planner.kind: want a single value, got a mapping`},
		{"model:\n  family: relu\n", `c.yaml line 2: model.family: want a list of families, e.g. [gaussian], got "relu"`},
		{"estimate:\n  sweep_n: 100\n", `c.yaml line 2: estimate.sweep_n: want a list of whole numbers, e.g. [100, 1000], got "100"`},
		{"hello\n", `c.yaml line 1: want config keys, one per line (KEY: VALUE), got "hello"`},
		{"[1, 2]\n", `c.yaml line 1: want config keys, one per line (KEY: VALUE), got a list`},
	} {
		_, err := Load(Options{Path: write(t, tc.body)})
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want it to contain %q", tc.body, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "unmarshal") || strings.Contains(err.Error(), "int64") || strings.Contains(err.Error(), "[]")) {
			t.Errorf("%q: err = %v names Go types", tc.body, err)
		}
	}
	// The fallback for what checkNode does not catch.
	for msg, want := range map[string]string{
		"line 3: cannot unmarshal !!int `-1` into uint64":   `line 3: want a whole number >= 0, got "-1"`,
		"line 1: cannot unmarshal !!str `sm` into []string": `line 1: want a list, got "sm"`,
		"cannot unmarshal !!seq into config.Auto":           "want a single value, got a list",
		"cannot unmarshal !!map into config.Env":            "want a section: its keys, one per line, got a mapping",
		"cannot unmarshal !!str `x` into float64":           `want a number, got "x"`,
	} {
		if got := plainTypeError(msg); got != want {
			t.Errorf("plainTypeError(%q) = %q, want %q", msg, got, want)
		}
	}
}
