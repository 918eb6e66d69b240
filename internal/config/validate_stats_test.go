package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLambdaCV: lambda: cv is read from a file (plain or quoted, with a
// comment) and from SMRL_LAMBDA, sets LambdaCV and leaves Lambda 0; a
// number still works, and the cv: and stats: defaults are the documented
// ones.
func TestLambdaCV(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file string
		env        []string
		cv         bool
		lambda     float64
	}{
		{"plain", "lambda: cv\n", nil, true, 0},
		{"quoted with comment", "lambda: \"cv\"   # choose\n", nil, true, 0},
		{"env", "", []string{"SMRL_LAMBDA=cv"}, true, 0},
		{"number", "lambda: 0.5\n", nil, false, 0.5},
		{"default", "", nil, false, 1e-4},
	} {
		opt := Options{IgnoreAgents: true, Environ: tc.env}
		if tc.file != "" {
			opt.Path = filepath.Join(dir, "c.yaml")
			if err := os.WriteFile(opt.Path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Load(opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.LambdaCV != tc.cv || c.Lambda != tc.lambda {
			t.Errorf("%s: LambdaCV %v Lambda %g, want %v %g", tc.name, c.LambdaCV, c.Lambda, tc.cv, tc.lambda)
		}
		if !slices.Equal(c.CV.Grid, DefaultCVGrid) || c.CV.Folds != 5 || c.Stats.Score != "mean" || c.Stats.BootstrapReps != 10000 || c.Stats.FinalEpisodes != 10 {
			t.Errorf("%s: defaults cv %+v stats %+v", tc.name, c.CV, c.Stats)
		}
	}
	if slices.Contains(Keys(), "-") || !slices.Contains(Keys(), "cv.grid") || !slices.Contains(Keys(), "stats.bootstrap_reps") {
		t.Errorf("Keys() = %v", Keys())
	}
}

func TestStatsValidation(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ file, key string }{
		{"cv:\n  grid: [1, 0]\n", "cv.grid"},
		{"cv:\n  grid: []\n", "cv.grid"},
		{"cv:\n  folds: 1\n", "cv.folds"},
		{"stats:\n  bootstrap_reps: 0\n", "stats.bootstrap_reps"},
		{"stats:\n  score: best\n", "stats.score"},
		{"stats:\n  final_episodes: 0\n", "stats.final_episodes"},
		{"lambda: cv\nestimate:\n  n: 4\n", "lambda"},
		{"lambda: cvx\n", "lambda"},
	} {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(Options{Path: p, IgnoreAgents: true})
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%q: err %v, want one naming %s", tc.file, err, tc.key)
		}
	}
}

// TestLambdaCVYAML: the rendered config of lambda: cv says cv, so a
// results directory's config.yaml loads back as the same config.
func TestLambdaCVYAML(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("lambda: cv\nagents: [sm, oracle]\n"), 0o644)
	c, err := Load(Options{Path: p})
	if err != nil {
		t.Fatal(err)
	}
	y, err := c.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "\nlambda: cv\n") {
		t.Fatalf("rendered config lacks lambda: cv:\n%s", y)
	}
	os.WriteFile(p, y, 0o644)
	d, err := Load(Options{Path: p})
	if err != nil || !d.LambdaCV {
		t.Errorf("reloaded: LambdaCV %v, err %v", d != nil && d.LambdaCV, err)
	}
	os.WriteFile(p, []byte("lambda: cv\nagents: [sm, lds, mle-ps]\n"), 0o644)
	if _, err := Load(Options{Path: p}); err != nil {
		t.Errorf("lambda: cv with lds and mle-ps: %v", err)
	}
}

// TestLambdaCVAgents: lambda: cv is accepted for every agent (the
// learners cross-validate, the oracle and lqr fit nothing); with agents
// that plan with a confidence set, a grid λ below 1e-12 is refused naming
// cv.grid, and confidence.lambda: theorem with a -ucb agent naming lambda.
func TestLambdaCVAgents(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string // "" accepted, else a text of the error
	}{
		{"agents: [sm]\n", ""},
		{"agents: [oracle]\n", ""},
		{"agents: [mle]\n", ""},
		{"agents: [sm, sm-ucb]\n", ""},
		{"agents: [lds-ps, lds, mle-ps, mle-ucb, lds-ucb, sm-ps]\n", ""},
		{"agents: [sm]\ncv:\n  grid: [1.0e-13, 1]\n", ""},
		{"agents: [sm-ps]\ncv:\n  grid: [1.0e-13, 1]\n", "cv.grid: every λ must be >= 1e-12 for agents [sm-ps]"},
		{"agents: [sm-ps]\ncv:\n  grid: [-1, 1]\n", "cv.grid: entry 1 must be a finite number in (0, 1e6], got -1"},
		{"agents: [sm-ucb]\nconfidence:\n  beta: theory\n  lambda: theorem\n  b_psi: 1\n  alpha1: 1\n", "lambda: cv cannot be combined with confidence.lambda: theorem"},
		{"agents: [sm-ps]\nconfidence:\n  beta: theory\n  lambda: theorem\n  b_psi: 1\n  alpha1: 1\n", ""},
	} {
		p := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(p, []byte("lambda: cv\n"+tc.file), 0o644)
		_, err := Load(Options{Path: p})
		if tc.want == "" && err != nil {
			t.Errorf("%q: %v", tc.file, err)
		}
		if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want an error with %q", tc.file, err, tc.want)
		}
		if err != nil && strings.Count(err.Error(), "cv.grid") > 1 {
			t.Errorf("%q: one problem, more than one error: %v", tc.file, err)
		}
	}
	// lqr (configs/lq.yaml's env) ignores λ.
	lq, err := os.ReadFile("../../configs/lq.yaml")
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(strings.Replace(string(lq), "\nlambda: 0.001", "\nlambda: cv", 1), "[lqr, oracle, sm, lds]", "[lqr, oracle, lds-ps, mle]", 1)
	p := filepath.Join(t.TempDir(), "lq.yaml")
	os.WriteFile(p, []byte(y), 0o644)
	if c, err := Load(Options{Path: p}); err != nil || !c.LambdaCV || !slices.Contains(c.Agents, "lqr") {
		t.Errorf("lq with lambda: cv and lqr: %v", err)
	}
}

// TestLambdaCVSet: --set lambda=cv (and a sweep's value cv) parses as the
// word, selects cross-validation and renders back; another word is refused
// naming both forms.
func TestLambdaCVSet(t *testing.T) {
	v, err := ParseValue("lambda", " cv ")
	if err != nil || v != LambdaCVWord {
		t.Fatalf("ParseValue(lambda, cv) = %v, %v", v, err)
	}
	if _, err := ParseValue("lambda", "cvx"); err == nil || !strings.Contains(err.Error(), `want cv or a number, got "cvx"`) {
		t.Errorf("ParseValue(lambda, cvx): %v", err)
	}
	if v, err := ParseValue("lambda", "1e-3"); err != nil || v != 1e-3 {
		t.Errorf("ParseValue(lambda, 1e-3) = %v, %v", v, err)
	}
	c, err := Load(Options{Set: []Setting{{Key: "lambda", Value: v, Source: "--set"}, {Key: "agents", Value: []string{"sm"}, Source: "--set"}}})
	if err != nil || !c.LambdaCV || c.Lambda != 0 {
		t.Fatalf("Load with --set lambda=cv: LambdaCV %v, err %v", c != nil && c.LambdaCV, err)
	}
	y, err := c.YAML()
	if err != nil || !strings.Contains(string(y), "\nlambda: cv\n") {
		t.Errorf("rendered config lacks lambda: cv (%v):\n%s", err, y)
	}
}

// TestLengthCV: model.features.length: cv is read from a file, --set and
// SMRL_MODEL_FEATURES_LENGTH, renders back as cv, is refused for non-rff
// features, in runs (naming the key) and with a bad cv.lengths; a file
// without it keeps cv.lengths out of its snapshot.
func TestLengthCV(t *testing.T) {
	dir := t.TempDir()
	const pend = "env:\n  kind: pendulum\nmodel:\n  features:\n    kind: rff\n    dim: 8\n"
	for _, tc := range []struct {
		name, file string
		env        []string
		set        []Setting
		key        string // "" ok, else the key the error must name
	}{
		{"file", pend + "    length: cv\n", nil, nil, ""},
		{"env", pend, []string{"SMRL_MODEL_FEATURES_LENGTH=cv"}, nil, ""},
		{"word", pend + "    length: cvx\n", nil, nil, LengthCVKey},
		{"linear", "env:\n  kind: pendulum\nmodel:\n  features:\n    kind: linear\n    length: cv\n", nil, nil, LengthCVKey},
		{"zero length", pend + "    length: cv\ncv:\n  lengths: [1, 0]\n", nil, nil, "cv.lengths"},
		{"empty lengths", pend + "    length: cv\ncv:\n  lengths: []\n", nil, nil, "cv.lengths"},
		{"few data", pend + "    length: cv\nestimate:\n  n: 3\n", nil, nil, LengthCVKey},
	} {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Options{Path: p, IgnoreAgents: true, Environ: tc.env, Set: tc.set})
		if tc.key != "" {
			if err == nil || !strings.Contains(err.Error(), tc.key) {
				t.Errorf("%s: err %v, want one naming %s", tc.name, err, tc.key)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !c.LengthCV || c.LambdaCV || !slices.Equal(c.CV.Lengths, []float64{0.125, 0.25, 0.5, 1, 2, 4, 8}) {
			t.Errorf("%s: LengthCV %v LambdaCV %v lengths %v", tc.name, c.LengthCV, c.LambdaCV, c.CV.Lengths)
		}
		y, err := c.YAML()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(y), "    length: cv\n") || !strings.Contains(string(y), "  lengths:") {
			t.Errorf("%s: rendered config lacks length: cv or cv.lengths:\n%s", tc.name, y)
		}
		os.WriteFile(p, y, 0o644)
		if d, err := Load(Options{Path: p, IgnoreAgents: true}); err != nil || !d.LengthCV {
			t.Errorf("%s: reloaded: err %v", tc.name, err)
		}
	}
	// In a run (agents validated) it is exit 2 naming the key.
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte(pend+"    length: cv\n"), 0o644)
	if _, err := Load(Options{Path: p}); err == nil || !strings.Contains(err.Error(), LengthCVKey) || !strings.Contains(err.Error(), "smrl estimate only") {
		t.Errorf("run with length: cv: %v", err)
	}
	// Without it the snapshot has no cv.lengths.
	os.WriteFile(p, []byte(pend+"    length: 2\n"), 0o644)
	c, err := Load(Options{Path: p, IgnoreAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	if y, _ := c.YAML(); strings.Contains(string(y), "lengths") {
		t.Errorf("snapshot without length: cv mentions lengths:\n%s", y)
	}
}
