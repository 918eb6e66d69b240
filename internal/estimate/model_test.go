package estimate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// A model file gives back the fitted W exactly, with the config that
// defines its features; evaluated on its own training data the sm model
// has the least score-matching loss (its minimiser, up to λ) and the mle
// model the greatest log-likelihood (its maximiser, up to λ); on held-out
// data both are finite and the true W0 does at least as well as lds.
func TestModelFileRoundTripAndEvaluate(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	train, held := filepath.Join(dir, "train.csv"), filepath.Join(dir, "held.csv")
	if err := dataset.WriteFile(train, Draw(mdp, 400, rand.New(rand.NewPCG(1, 2)))); err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteFile(held, Draw(mdp, 400, rand.New(rand.NewPCG(3, 4)))); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), c, Options{Data: train})
	if err != nil {
		t.Fatal(err)
	}
	mf, err := ModelOf(res, c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "model.json")
	if err := WriteModel(path, mf); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), ModelPrefix) {
		t.Fatalf("%s does not begin with %q", path, ModelPrefix)
	}
	back, c2, err := ReadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c2.Env.Family, c.Env.Family) || c2.Lambda != c.Lambda {
		t.Errorf("config read back differs: %+v", c2.Env.Family)
	}
	for i, m := range back.Models[:3] {
		if m.Method != res.Estimates[i].Method || m.W[0][0] != res.Estimates[i].W[0][0] || m.W[0][1] != res.Estimates[i].W[0][1] {
			t.Errorf("model %d = %+v, fitted %+v", i, m, res.Estimates[i])
		}
	}
	// The true W0 as a fourth model, under a method name of the same
	// family (a file lists each method once: this one is in memory).
	back.Models = append(back.Models, SavedModel{Method: "sm", W: rows(mdp.Model.W0, mdp.Model.Features.Dim())})
	ev, err := Evaluate(context.Background(), back, c2, train, dataset.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	sm, lds, mle, truth := ev[0], ev[1], ev[2], ev[3]
	for _, e := range ev {
		if e.N != 400 || !isFiniteF(e.SMLoss) || e.LogLik == nil || !isFiniteF(*e.LogLik) {
			t.Fatalf("evaluation %+v", e)
		}
	}
	const tol = 1e-6
	for _, other := range []Evaluation{lds, mle, truth} {
		if sm.SMLoss > other.SMLoss+tol {
			t.Errorf("training data: sm loss %g above %s's %g", sm.SMLoss, other.Method, other.SMLoss)
		}
	}
	for _, other := range []Evaluation{sm, lds, truth} {
		if *mle.LogLik < *other.LogLik-tol {
			t.Errorf("training data: mle log-likelihood %g below %s's %g", *mle.LogLik, other.Method, *other.LogLik)
		}
	}
	ev, err = Evaluate(context.Background(), back, c2, held, dataset.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if *ev[3].LogLik < *ev[1].LogLik {
		t.Errorf("held-out: the true W0 (%g) fits worse than lds (%g)", *ev[3].LogLik, *ev[1].LogLik)
	}

	// Files smrl did not write, or wrote for something else, are invalid input.
	for name, content := range map[string]string{
		"other.json":  `{"format": "something-else/1", "models": []}`,
		"broken.json": `{"format": `,
		"empty.json":  `{"format": "smrl-model/1", "models": []}`,
		"method.json": `{"format": "smrl-model/1", "models": [{"method": "bogus", "W": [[1, 2]]}]}`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		if _, _, err := ReadModel(p); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// A W of the wrong shape is named.
	back.Models[0].W = [][]float64{{1, 2, 3}}
	if _, err := Evaluate(context.Background(), back, c2, held, dataset.Filter{}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "d_phi = 2") {
		t.Errorf("wrong shape: err = %v", err)
	}
	// A W whose loss overflows is named instead of reported as NaN (which
	// --format json cannot encode).
	back.Models[0].W = [][]float64{{1e308, 1e308}}
	if _, err := Evaluate(context.Background(), back, c2, held, dataset.Filter{}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "model sm: its score-matching loss") {
		t.Errorf("huge W: err = %v", err)
	}
}

// Data outside the support of a bounded family are refused naming the
// line and column, as smrl estimate --data refuses them, not scored.
func TestEvaluateChecksSupport(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("env:\n  family:\n    kind: beta\n  w0: [[0.5, 0.1], [0.3, 0.1]]\n  init_low: 0.1\n  init_high: 0.9\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte("s,a,s_next\n0.5,1,0.25\n0.5,-1,1.5\n"), 0o644)
	mf := &ModelFile{Format: ModelFormat, Models: []SavedModel{{Method: "sm", W: [][]float64{{0.5, 0.1}, {0.3, 0.1}}}}}
	_, err := Evaluate(context.Background(), mf, c, data, dataset.Filter{})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), data+` line 3 column "s_next"`) {
		t.Errorf("err = %v", err)
	}
}

// Issue 35, item 4: every field of a model file is checked against its
// embedded config, and a disagreement is invalid input naming the field:
// an empty config loaded as the defaults and scored a Gaussian model as
// custom-sin.
func TestReadModelChecksEveryField(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("env:\n  family: {kind: gaussian}\nestimate:\n  n: 50\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	res, err := Run(context.Background(), c, Options{Methods: []string{"sm", "lds"}})
	if err != nil {
		t.Fatal(err)
	}
	good, err := ModelOf(res, c)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := testutil.LoadConfig(t, "").YAML()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field string
		edit  func(*ModelFile)
		want  string
	}{
		{"none", func(*ModelFile) {}, ""},
		{"config", func(m *ModelFile) { m.Config = "" }, "config: empty"},
		{"config", func(m *ModelFile) { m.Config = "\n# nothing\n" }, "config: empty"},
		{"config", func(m *ModelFile) { m.Config = "{}" }, "config: empty"},
		{"family", func(m *ModelFile) { m.Config = string(paper) }, `family: "gaussian(dim=1, sigma=1)", but its config gives "custom-sin(freq=4, alpha=1.7)"`},
		{"features", func(m *ModelFile) { m.Features = "rff(dim=3)" }, `features: "rff(dim=3)", but its config gives`},
		{"target", func(m *ModelFile) { m.Target = "bogus" }, `target: "bogus", but its config gives "next"`},
		{"target", func(m *ModelFile) { m.Target = "delta" }, `target: "delta", but its config gives "next"`},
		{"lambda", func(m *ModelFile) { m.Lambda = -1 }, "lambda: must be >= 0, got -1"},
		{"n", func(m *ModelFile) { m.N = -5 }, "n: must be at least 1 (the transitions fitted), got -5"},
		{"n", func(m *ModelFile) { m.N = 0 }, "n: must be at least 1"},
		{"models", func(m *ModelFile) { m.Models = nil }, "models: none"},
		{"models", func(m *ModelFile) { m.Models = append(m.Models, m.Models[0]) }, "models: model 2: method sm listed twice (model 0 is sm too)"},
		{"models", func(m *ModelFile) { m.Models[1].Method = "bogus" }, `models: model 1: unknown method "bogus"`},
		{"lambda", func(m *ModelFile) { m.Lambda = 5 }, "lambda: 5, but its config gives lambda = 0.0001"},
		{"trailing", func(*ModelFile) {}, "data after the model's JSON object"},
		{"W", func(m *ModelFile) { m.Models[0].W = [][]float64{{1, 2, 3}} }, "models: model 0: sm: W has rows of 3, the features have d_phi = 2"},
		{"W", func(m *ModelFile) { m.Models[1].W = append(m.Models[1].W, m.Models[1].W[0]) }, "models: model 1: lds: W has 2 rows, the family"},
		// The embedded config is read through a temporary file, gone
		// when the error is read: the error names the model file's config.
		{"config", func(m *ModelFile) { m.Config += "bogus_key: 1\n" }, "its config: config line"},
	} {
		mf := *good
		mf.Models = slices.Clone(good.Models)
		tc.edit(&mf)
		path := filepath.Join(dir, tc.field+".json")
		if err := WriteModel(path, &mf); err != nil {
			t.Fatal(err)
		}
		if tc.field == "trailing" {
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("{}\n")
			f.Close()
		}
		_, c2, err := ReadModel(path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("the file as written: %v", err)
		case tc.want == "" && c2.Env.Family.Kind != "gaussian":
			t.Errorf("the file as written: family %s", c2.Env.Family.Kind)
		case tc.want != "" && (!errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), path+": "+tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.field, err, path+": "+tc.want)
		}
	}
}

// A model fitted at the length cross-validation chose embeds a config of
// that length (it said length: cv, and loaded with another), so that
// the file reads back with its features.
func TestModelOfLengthCV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("env:\n  kind: pendulum\nmodel:\n  features:\n    kind: rff\n    dim: 6\n    length: cv\nestimate:\n  n: 120\ncv:\n  lengths: [0.25, 4]\n  folds: 3\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	res, err := Run(context.Background(), c, Options{Methods: []string{"sm"}})
	if err != nil {
		t.Fatal(err)
	}
	mf, err := ModelOf(res, c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(filepath.Dir(p), "m.json")
	if err := WriteModel(path, mf); err != nil {
		t.Fatal(err)
	}
	_, c2, err := ReadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := c2.Value(config.LengthCVKey); c2.LengthCV || l != *res.Length {
		t.Errorf("config read back: length %v (cv %v), chosen %v", l, c2.LengthCV, *res.Length)
	}
}

func isFiniteF(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// A -ucb agent's model saved by smrl run --save-models under
// confidence.lambda: theorem was fitted with λ = 1/b_star², not the
// config's lambda: its file is accepted, another λ is not.
func TestReadModelTheoremLambda(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("env:\n  family: {kind: gaussian}\nestimate:\n  n: 50\nagents: [sm-ucb]\nconfidence: {lambda: theorem, beta: theory, b_star: 10, alpha1: 1, b_psi: 1, b_c: 1}\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	res, err := Run(context.Background(), c, Options{Methods: []string{"sm"}})
	if err != nil {
		t.Fatal(err)
	}
	mf, err := ModelOf(res, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lambda float64
		ok     bool
	}{{0.01, true}, {0.02, false}} {
		mf.Lambda = tc.lambda
		path := filepath.Join(dir, "m.json")
		if err := WriteModel(path, mf); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadModel(path); (err == nil) != tc.ok {
			t.Errorf("lambda %v: err = %v, want ok = %v", tc.lambda, err, tc.ok)
		}
	}
}

// A model fitted on fused-multiply-add features (model.features.fma: true)
// reads back with them: its embedded config and its features' name say
// fma, and the learners' map is built with RFF.FMA set; a file whose config
// lacks the key (as every earlier version wrote it) reads as fma false, and
// one whose features' name disagrees with its config is refused.
func TestModelFileKeepsFMA(t *testing.T) {
	dir := t.TempDir()
	fitted := map[bool]*ModelFile{}
	for _, fma := range []bool{false, true} {
		p := filepath.Join(dir, fmt.Sprintf("c-%v.yaml", fma))
		os.WriteFile(p, fmt.Appendf(nil, "env:\n  kind: pendulum\nmodel:\n  features:\n    kind: rff\n    dim: 6\n    fma: %v\nestimate:\n  n: 120\n", fma), 0o644)
		c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
		res, err := Run(context.Background(), c, Options{Methods: []string{"sm"}})
		if err != nil {
			t.Fatal(err)
		}
		mf, err := ModelOf(res, c)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("m-%v.json", fma))
		if err := WriteModel(path, mf); err != nil {
			t.Fatal(err)
		}
		back, c2, err := ReadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := rffOfModel(t, c2).FMA; got != fma || strings.Contains(back.Features, "fma=true") != fma {
			t.Errorf("fma %v read back as %v, features %q", fma, got, back.Features)
		}
		fitted[fma] = back
	}
	if reflect.DeepEqual(fitted[false].Models[0].W, fitted[true].Models[0].W) {
		t.Error("the fits on features with and without fma gave the same Ŵ to the bit: the key did not reach the features")
	}
	// A run's --init-model of the other arithmetic is refused, naming the key.
	mdpOff, err := env.New(testutil.LoadConfigOptions(t, config.Options{Path: filepath.Join(dir, "c-false.yaml"), IgnoreAgents: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InitWeights(filepath.Join(dir, "m-true.json"), mdpOff); !errors.Is(err, errs.ErrInvalidInput) ||
		!strings.Contains(err.Error(), "they differ in model.features.fma only: set it to true") {
		t.Errorf("--init-model of fma features into a run without: %v", err)
	}
	if _, err := InitWeights(filepath.Join(dir, "m-false.json"), mdpOff); err != nil {
		t.Errorf("--init-model of the same features: %v", err)
	}
	// Without the key: fma false.
	old := *fitted[false]
	old.Config = strings.Replace(old.Config, "    fma: false\n", "", 1)
	if old.Config == fitted[false].Config {
		t.Fatal("the embedded config holds no line fma: false")
	}
	path := filepath.Join(dir, "old.json")
	if err := WriteModel(path, &old); err != nil {
		t.Fatal(err)
	}
	_, c3, err := ReadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if rffOfModel(t, c3).FMA {
		t.Error("a model file without the key read as fma true")
	}
	// The features' name of fma features under a config without fma.
	bad := *fitted[true]
	bad.Config = strings.Replace(bad.Config, "    fma: true\n", "", 1)
	if err := WriteModel(path, &bad); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadModel(path); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "features:") {
		t.Errorf("a file of fma features under a config without fma: %v, want exit 2 naming features", err)
	}
}

// rffOfModel returns the learners' random Fourier features of c.
func rffOfModel(t *testing.T, c *config.Config) *expfam.RFF {
	t.Helper()
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := mdp.Model.Features.(*expfam.RFF)
	if !ok {
		t.Fatalf("features %v, want rff", mdp.Model.Features)
	}
	return f
}
