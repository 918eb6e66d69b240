package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBadExpressionsExitTwo: a family, reward or features written as a bad
// expression is a usage error (exit 2) naming the key, before any output is
// written: never a panic, never a NaN in a results file.
func TestBadExpressionsExitTwo(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct{ yaml, frag string }{
		{"env:\n  family: {kind: expression, log_q: \"-x^2\", psi: [\"sin(4*y)\"]}\n", `env.family.psi[0]: "sin(4*y)" column 7: unknown name "y"`},
		{"env:\n  family: {kind: expression, log_q: \"x^2\", psi: [\"x\"]}\n", "env.family: not normalisable"},
		{"env:\n  family: {kind: expression, log_q: \"-x^2\", psi: [\"1/x\"]}\n", `"1/x" has the value +Inf at x = 0`},
		{"env:\n  family: {kind: expression, log_q: \"-x^2\", psi: [\"log(x)\"]}\n", `env.family: psi[0]: invalid expression family: "log(x)"`},
		{"env:\n  reward: {expression: \"sqrt(s0 - 2)\"}\n", `env.reward.expression: "sqrt(s0 - 2)" is NaN`},
	} {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out", string(rune('a'+i)))
		code, stdout, stderr := run(t, "run", "--config", p, "--out", out, "--episodes", "1", "--seeds", "1", "--no-plots", "-q")
		wantUsage(t, code, stdout, stderr, c.frag)
		if _, err := os.Stat(filepath.Join(out, "episodes.csv")); err == nil {
			t.Errorf("%s: episodes.csv written", c.yaml)
		}
	}
}

// TestRewardLeavingItsDomainExitsTwo: a reward that is finite at the load
// checks' states but not where the run goes is an input error, not a NaN
// in episodes.csv.
func TestRewardLeavingItsDomainExitsTwo(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	// s' is drawn around s + a, so a state beyond 1.5 comes within a few
	// steps, where log(1.5 − s0) is NaN.
	yaml := "agents: [oracle]\nenv:\n  family: {kind: gaussian, sigma: 0.1}\n  w0: [[1, 1]]\n  reward: {expression: \"log(1.5 - s0)\"}\n"
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "run", "--config", p, "--out", filepath.Join(dir, "out"), "--episodes", "2", "--seeds", "1", "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "the reward (env.reward) is not finite")
}
