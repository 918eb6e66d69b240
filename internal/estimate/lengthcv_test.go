package estimate

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestLengthCVEqualsRefit: with model.features.length: cv (and lambda
// fixed or cv), every length's held-out loss equals a direct re-fit per
// contiguous fold with that length's own feature map, the chosen length
// is the argmin, and the reported sm estimate is the fit at the chosen
// (length, λ).
func TestLengthCVEqualsRefit(t *testing.T) {
	for _, lambdaCV := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "c.yaml")
		file := "env:\n  kind: pendulum\nmodel:\n  features:\n    kind: rff\n    dim: 6\n    length: cv\nestimate:\n  n: 240\ncv:\n  lengths: [0.25, 1, 4]\n  grid: [1.0e-3, 1, 100]\n  folds: 4\nlambda: 0.5\n"
		if lambdaCV {
			file += "lambda: cv\n"
			file = strings.Replace(file, "lambda: 0.5\n", "", 1)
		}
		os.WriteFile(p, []byte(file), 0o644)
		c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
		res, err := Run(context.Background(), c, Options{Methods: []string{"sm"}})
		if err != nil {
			t.Fatal(err)
		}
		mdp0, _ := env.New(c)
		data := Draw(mdp0, c.Estimate.N, rand.New(rand.NewPCG(c.Seed, streamDraw)))
		n, K := data.Len(), c.CV.Folds
		grid := []float64{c.Lambda}
		if lambdaCV {
			grid = c.CV.Grid
		}
		if len(res.LengthCV) != len(c.CV.Lengths) || res.Length == nil {
			t.Fatalf("lambda cv %v: length table %+v, length %v", lambdaCV, res.LengthCV, res.Length)
		}
		bestLoss, bestL, bestLambda := math.Inf(1), 0.0, 0.0
		for i, l := range c.CV.Lengths {
			cl, err := c.With(config.LengthCVKey, l)
			if err != nil {
				t.Fatal(err)
			}
			mdp, err := env.New(cl)
			if err != nil {
				t.Fatal(err)
			}
			phi := Features(mdp, data)
			dphi := mdp.Model.Features.Dim()
			minLoss, minLambda := math.Inf(1), 0.0
			for _, lam := range grid {
				var loss float64
				for k := range K {
					lo, hi := k*n/K, (k+1)*n/K
					train, test := estimator.NewSM(mdp.Model.Family, dphi), estimator.NewSM(mdp.Model.Family, dphi)
					for t := range n {
						if t >= lo && t < hi {
							test.Add(phi[t*dphi:(t+1)*dphi], data.NextState(t))
						} else {
							train.Add(phi[t*dphi:(t+1)*dphi], data.NextState(t))
						}
					}
					f, err := train.Fit(lam)
					if err != nil {
						t.Fatal(err)
					}
					loss += test.Objective(f.W)
				}
				loss /= float64(n)
				if loss < minLoss {
					minLoss, minLambda = loss, lam
				}
			}
			got := res.LengthCV[i]
			if got.Length != l || got.Lambda != minLambda || got.Loss == nil || !testutil.Within(*got.Loss, minLoss, 1e-9) {
				t.Errorf("lambda cv %v, length %g: got %+v (loss %v), want λ %g loss %.12g", lambdaCV, l, got, got.Loss, minLambda, minLoss)
			}
			if minLoss < bestLoss {
				bestLoss, bestL, bestLambda = minLoss, l, minLambda
			}
		}
		if *res.Length != bestL || res.Lambda != bestLambda {
			t.Errorf("lambda cv %v: chose length %g λ %g, want %g %g", lambdaCV, *res.Length, res.Lambda, bestL, bestLambda)
		}
		cl, err := c.With(config.LengthCVKey, bestL)
		if err != nil {
			t.Fatal(err)
		}
		mdp, _ := env.New(cl)
		w, err := Fit("sm", mdp, Features(mdp, data), data, bestLambda)
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range w {
			if got := res.Estimates[0].W[i/mdp.Model.Features.Dim()][i%mdp.Model.Features.Dim()]; got != x {
				t.Fatalf("lambda cv %v: W[%d] = %v, want %v", lambdaCV, i, got, x)
			}
		}
		var buf bytes.Buffer
		if err := res.WriteTable(&buf); err != nil || !strings.Contains(buf.String(), "length  lambda  held-out SM loss") {
			t.Errorf("table: %v\n%s", err, buf.String())
		}
	}
}

// TestCrossValidateDeltaTarget: for a model of s' − s (model.target:
// delta) λ is cross-validated on the differences that Fit fits, not on s':
// every point's loss equals estimator.CrossValidate on (phi, s' − s).
func TestCrossValidateDeltaTarget(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("env:\n  kind: pendulum\nmodel:\n  target: delta\nestimate:\n  n: 200\ncv:\n  grid: [1.0e-3, 1, 100]\n  folds: 4\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	if !mdp.Model.Delta {
		t.Fatal("model.target: delta did not make a model of the difference")
	}
	data := Draw(mdp, c.Estimate.N, rand.New(rand.NewPCG(c.Seed, streamDraw)))
	phi := Features(mdp, data)
	dphi := mdp.Model.Features.Dim()
	got, err := CrossValidate(mdp, phi, data, c.CV.Grid, c.CV.Folds, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := estimator.CrossValidate(estimator.NewSM(mdp.Model.Family, dphi), data.Len(), func(i int) ([]float64, []float64) {
		y := append([]float64(nil), data.NextState(i)...)
		for j, s := range data.State(i) {
			y[j] -= s
		}
		return phi[i*dphi : (i+1)*dphi], y
	}, c.CV.Folds, c.CV.Grid)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range got.Points {
		w := want.Points[i].Loss
		if q.Loss == nil {
			t.Fatalf("λ = %g: no loss, on s' − s %.15g", q.Lambda, w)
		}
		if !testutil.Within(*q.Loss, w, 1e-12) {
			t.Errorf("λ = %g: loss %.15g, on s' − s %.15g", q.Lambda, *q.Loss, w)
		}
	}
}

// TestCheckSupportDeltaTarget: for a model of s' − s the support of a
// bounded family is checked on the differences Fit fits, for drawn data as
// for a --data file (where s' itself is in the support).
func TestCheckSupportDeltaTarget(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("env:\n  kind: pendulum\nmodel:\n  target: delta\n  family: [exponential]\nestimate:\n  n: 50\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	if _, err := Run(context.Background(), c, Options{Methods: []string{"sm"}}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "s_next0 − s0 (model.target: delta)") {
		t.Errorf("drawn data: err = %v", err)
	}
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte("s0,s1,s2,a0,s_next0,s_next1,s_next2\n0.5,0.5,0.1,1,0.6,0.6,0.2\n0.5,0.5,0.1,1,0.4,0.6,0.2\n"), 0o644)
	if _, err := Run(context.Background(), c, Options{Methods: []string{"sm"}, Data: data}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), data+` line 3 column "s_next0" − s0`) {
		t.Errorf("--data: err = %v", err)
	}
}
