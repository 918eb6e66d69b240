package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadText(t *testing.T, text string) (*Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(Options{Path: p})
}

func TestExprKeysValidate(t *testing.T) {
	c, err := loadText(t, `
env:
  family:
    kind: expression
    dim: 2
    coords:
      - {log_q: "-x^2/2", psi: ["x", "x^2"], support: [-.inf, 4]}
      - {log_q: "-abs(x)", psi: ["sin(x)"]}
  features: {kind: expression, phi: ["s0", "s1*a0", "1"]}
  w0: [[1, 0, 0], [0, 1, -1], [0, 0, 1]]
  reward: {expression: "s0 - a0^2"}
  terminal: "s0 > 3 && !(s1 < 0)"
  terminal_reward: -1
`)
	if err != nil {
		t.Fatal(err)
	}
	if dpsi, dphi, ok := c.Dims(); !ok || dpsi != 3 || dphi != 3 {
		t.Errorf("Dims = %d, %d, %v; want 3, 3", dpsi, dphi, ok)
	}
	coords, err := c.Value("env.family.coords")
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := coords.([]ExprFamily)[0].Bounds(); !(lo < -1e308) || hi != 4 {
		t.Errorf("support [%v, %v]", lo, hi)
	}
	y, err := c.YAML()
	if err != nil || !strings.Contains(string(y), "terminal: s0 > 3") {
		t.Errorf("YAML: %v\n%s", err, y)
	}
}

func TestExprKeysErrors(t *testing.T) {
	for _, c := range []struct{ yaml, frag string }{
		{"env:\n  family: {kind: expression, dim: 2, coords: [{log_q: \"0\", psi: [\"x\"]}]}\n", "env.family.coords: has 1 families for env.family.dim = 2"},
		{"env:\n  family: {kind: expression, log_q: \"0\", psi: [\"x\"], coords: [{log_q: \"0\", psi: [\"x\"]}]}\n", "not both"},
		{"env:\n  family: {kind: expression, log_q: \"0\", psi: [\"x\"], support: [0]}\n", "env.family.support: must be [lo, hi], two numbers"},
		{"env:\n  family: {kind: expression, log_q: \"0\", psi: [\"x\"], support: [0, 5000]}\n", "finite ends must lie in"},
		{"env:\n  family: {kind: expression, log_q: \"0\", psi: [\"x < 1\"]}\n", "env.family.psi[0]: \"x < 1\" is a condition"},
		{"env:\n  family: {kind: expression, log_q: \"0\", psi: []}\n", "env.family.psi: must list at least one"},
		{"env:\n  features: {kind: linear, phi: [\"s0\"]}\n", "env.features.phi: is set but env.features.kind is linear"}, // issue 18: a key of an unselected part,
		{"env:\n  features: {kind: expression}\n", "env.features.phi: must list at least one feature, an expression of s0, a0"},
		{"env:\n  terminal: \"s1 > 0\"\n", `env.terminal: "s1 > 0" column 1: unknown name "s1" (variables here: s0)`},
		{"env:\n  kind: pendulum\n  reward: {expression: \"1\"}\n", "env.reward.expression: is set but env.kind is pendulum (it is used by env.kind expfam or external)"},
		{"env:\n  kind: pendulum\n  terminal_reward: 1\n", "env.terminal_reward: is set but env.kind is pendulum"},
		// Issue 35, item 11: the bumps' keys beside the expression that
		// replaces them.
		{"env:\n  reward: {expression: \"s0\", width: 3}\n", "env.reward.width: is set but env.reward.expression is set: the reward is that expression, not the bumps of env.reward.width and env.reward.centers"},
		{"env:\n  reward: {expression: \"s0\", centers: [1]}\n", "env.reward.centers: is set but env.reward.expression is set"},
		{"env:\n  terminal_reward: .nan\n  terminal: \"s0 > 1\"\n", "env.terminal_reward: must be a finite number with |value| <= 1e6 (as env.mountain_car.goal_reward), got NaN"},
		// The planner adds rewards over its rollouts: 1e308 overflowed there.
		{"env:\n  terminal_reward: 1e308\n  terminal: \"s0 > 1\"\n", "env.terminal_reward: must be a finite number with |value| <= 1e6 (as env.mountain_car.goal_reward), got 1e+308"},
		{"env:\n  terminal_reward: -1.5e6\n  terminal: \"s0 > 1\"\n", "env.terminal_reward: must be a finite number with |value| <= 1e6"},
		{"env:\n  terminal_reward: 1\n", "env.terminal_reward: needs env.terminal"},
		{"env:\n  kind: pendulum\nmodel:\n  family: [expression]\n", "model.expression: must define the family"},
		{"env:\n  kind: pendulum\nmodel:\n  family: [gaussian, expression, expression]\n  expression: [{log_q: \"0\", psi: [\"x\"]}, {log_q: \"0\", psi: [\"x\"]}, {log_q: \"0\", psi: [\"x\"]}]\n", "model.expression: has 3 families for 2 expression coordinates"},
		{"env:\n  kind: pendulum\nmodel:\n  family: [expression]\n  expression: [{log_q: \"-y\", psi: [\"x\"]}]\n", `model.expression[0].log_q: "-y" column 2: unknown name "y"`},
		{"env:\n  kind: pendulum\nmodel:\n  features: {kind: expression, phi: [\"s3\"]}\n", `model.features.phi[0]: "s3" column 1: unknown name "s3"`},
	} {
		_, err := loadText(t, c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.frag) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.frag)
		}
		// One message per key: validation does not repeat the registry's.
		if key, _, ok := strings.Cut(c.frag, ": "); ok && err != nil && strings.Count(err.Error(), key+": ") != 1 {
			t.Errorf("%s: %q named more than once in %v", c.yaml, key, err)
		}
	}
}

// TestExprKeysOverridden: the expression keys of a file whose part a
// higher source deselects are dropped, as every part's keys are (Load),
// not checked against a part the run does not use.
func TestExprKeysOverridden(t *testing.T) {
	for _, c := range []struct {
		yaml string
		set  []Setting
	}{
		{"env:\n  reward: {expression: \"s0*s0\"}\n  terminal: \"s0 > 1\"\n  terminal_reward: 2\n", []Setting{{Key: "env.kind", Value: "cartpole", Source: "--set"}}},
		{"env:\n  features: {kind: expression, phi: [\"s7\"]}\n", []Setting{{Key: "env.kind", Value: "cartpole", Source: "--set"}}},
		{"env:\n  kind: pendulum\nmodel:\n  family: [expression]\n  expression: [{log_q: \"-x*x/2\", psi: [\"x\"]}]\n", []Setting{{Key: "model.family", Value: []string{"gaussian"}, Source: "--set"}}},
		{"env:\n  kind: pendulum\nmodel:\n  features: {kind: expression, phi: [\"s9\"]}\n", []Setting{{Key: "model.features.kind", Value: "linear", Source: "--set"}}},
		// A file's bumps, replaced by an expression set above the file.
		{"env:\n  reward: {width: 3, centers: [1]}\n", []Setting{{Key: "env.reward.expression", Value: "s0", Source: "--set"}}},
	} {
		p := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(p, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(Options{Path: p, Set: c.set}); err != nil {
			t.Errorf("%s with %v: %v", c.yaml, c.set, err)
		}
	}
}

// Issue 35, item 11: an expression reward replaces the bumps, so their
// keys are not used: the snapshot drops them, and a file that sets one
// beside the expression is refused (TestExprKeysErrors).
func TestRewardExpressionReplacesBumps(t *testing.T) {
	c, err := loadText(t, "env:\n  reward: {expression: \"s0\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	if c.Uses("env.reward.width") || c.Uses("env.reward.centers") || !c.Uses("env.reward.expression") || !c.Uses("env.reward") {
		t.Errorf("Uses: width %v, centers %v, expression %v, reward %v", c.Uses("env.reward.width"), c.Uses("env.reward.centers"),
			c.Uses("env.reward.expression"), c.Uses("env.reward"))
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "  reward:\n    expression: s0\n") || strings.Contains(string(y), "width:") {
		t.Errorf("snapshot:\n%s", y)
	}
	// The snapshot of an earlier version recorded the bumps' defaults
	// beside the expression: accepted (the run repeats), and dropped.
	c, err = loadText(t, "env:\n  reward: {expression: \"s0\", width: 10, centers: [0.39269908169872414, -1.1780972450961724]}\n")
	if err != nil {
		t.Fatalf("an earlier snapshot's default bumps beside the expression: %v", err)
	}
	if y, _ := c.YAML(); strings.Contains(string(y), "width:") || strings.Contains(string(y), "centers:") {
		t.Errorf("snapshot keeps the replaced bumps:\n%s", y)
	}
	// The bumps, without an expression, are the reward.
	c, err = loadText(t, "env:\n  reward: {width: 3}\n")
	if err != nil || !c.Uses("env.reward.width") || !c.Uses("env.reward.centers") {
		t.Errorf("bumps: %v", err)
	}
}
