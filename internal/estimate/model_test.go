package estimate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
)

// A model file gives back the fitted W exactly, with the config that
// defines its features; evaluated on its own training data the sm model
// has the least score-matching loss (its minimiser, up to λ) and the mle
// model the greatest log-likelihood (its maximiser, up to λ); on held-out
// data both are finite and the true W0 does at least as well as lds.
func TestModelFileRoundTripAndEvaluate(t *testing.T) {
	c := defaults(t)
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
	// The true W0 as a fourth model, under a method name of the same family.
	mf.Models = append(mf.Models, SavedModel{Method: "sm", W: rows(mdp.Model.W0, mdp.Model.Features.Dim())})
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
	c, err := config.Load(config.Options{Path: p, IgnoreAgents: true})
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte("s,a,s_next\n0.5,1,0.25\n0.5,-1,1.5\n"), 0o644)
	mf := &ModelFile{Format: ModelFormat, Models: []SavedModel{{Method: "sm", W: [][]float64{{0.5, 0.1}, {0.3, 0.1}}}}}
	_, err = Evaluate(context.Background(), mf, c, data, dataset.Filter{})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), data+` line 3 column "s_next"`) {
		t.Errorf("err = %v", err)
	}
}

func isFiniteF(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
