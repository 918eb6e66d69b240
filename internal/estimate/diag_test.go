package estimate

import (
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
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestHeldOutLogLik: the held-out log-likelihood of the paper's custom-sin
// model equals log q(s') + sin(4s')·η − log ∫ q(x) e^{sin(4x)·η} dx with the
// normaliser integrated numerically (Simpson, 20 001 points on [−12, 12]),
// q(x) = exp(−|x|^1.7/1.7), η = W phi; lds is scored as N(Ŵ phi, 1).
func TestHeldOutLogLik(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	data := Draw(mdp, 50, rand.New(rand.NewPCG(4, 4)))
	phi := Features(mdp, data)
	w := []float64{0.7, 1.3}
	logq := func(x float64) float64 { return -math.Pow(math.Abs(x), 1.7) / 1.7 }
	var want, wantLDS float64
	for i := range data.Len() {
		eta := w[0]*phi[2*i] + w[1]*phi[2*i+1]
		const lo, hi, m = -12.0, 12.0, 20000
		h := (hi - lo) / m
		var z float64
		for k := 0; k <= m; k++ {
			x := lo + float64(k)*h
			f := math.Exp(logq(x) + math.Sin(4*x)*eta)
			switch {
			case k == 0 || k == m:
				z += f
			case k%2 == 1:
				z += 4 * f
			default:
				z += 2 * f
			}
		}
		z *= h / 3
		x := data.NextState(i)[0]
		want += logq(x) + math.Sin(4*x)*eta - math.Log(z)
		d := x - eta
		wantLDS += -0.5*d*d - 0.5*math.Log(2*math.Pi)
	}
	n := float64(data.Len())
	want, wantLDS = want/n, wantLDS/n
	if got := HeldOutLogLik("sm", mdp, w, phi, data); !testutil.AbsWithin(got, want, 1e-6) {
		t.Errorf("held-out log-likelihood %.10g, numerical integration %.10g", got, want)
	}
	if got := HeldOutLogLik("lds", mdp, w, phi, data); !testutil.AbsWithin(got, wantLDS, 1e-12) {
		t.Errorf("lds held-out log-likelihood %.10g, want %.10g", got, wantLDS)
	}
	// No allocation per transition: 5 and 50 transitions cost the same.
	small := Draw(mdp, 5, rand.New(rand.NewPCG(4, 5)))
	smallPhi := Features(mdp, small)
	a5 := testing.AllocsPerRun(3, func() { HeldOutLogLik("sm", mdp, w, smallPhi, small) })
	a50 := testing.AllocsPerRun(3, func() { HeldOutLogLik("sm", mdp, w, phi, data) })
	if a50 != a5 {
		t.Errorf("HeldOutLogLik allocates %v times for 50 transitions, %v for 5", a50, a5)
	}
}

// TestRelativeEfficiency: MSE_mle / MSE_method per n from hand-computed
// squared errors; NaN without mle at that n.
func TestRelativeEfficiency(t *testing.T) {
	rows := []SweepRow{
		{Method: "sm", N: 10, Repeat: 0, FrobeniusError: 1}, {Method: "sm", N: 10, Repeat: 1, FrobeniusError: 3}, // MSE 5
		{Method: "mle", N: 10, Repeat: 0, FrobeniusError: 1}, {Method: "mle", N: 10, Repeat: 1, FrobeniusError: 2}, // MSE 2.5
		{Method: "sm", N: 20, Repeat: 0, FrobeniusError: 1},
	}
	relativeEfficiency(rows)
	for i, want := range []float64{0.5, 0.5, 1, 1, math.NaN()} {
		if got := rows[i].RelativeEfficiency; got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("row %d: relative efficiency %v, want %v", i, got, want)
		}
	}
}

// TestSweepLambdaCV: with lambda: cv a sweep fits every data set at the λ
// cross-validated on it.
func TestSweepLambdaCV(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.LambdaCV, c.Lambda = true, 0
	c.CV.Grid = []float64{1e-4, 10, 1e4}
	c.Estimate.SweepN, c.Estimate.Repeats = []int{60}, 2
	rows, err := Sweep(context.Background(), c, SweepOptions{Methods: []string{"sm"}})
	if err != nil {
		t.Fatal(err)
	}
	mdp, _ := env.New(c)
	for _, r := range rows {
		data := Draw(mdp, 60, rand.New(rand.NewPCG(c.Seed, SweepStream(60, r.Repeat))))
		phi := Features(mdp, data)
		cv, err := CrossValidate(mdp, phi, data, c.CV.Grid, c.CV.Folds, "")
		if err != nil {
			t.Fatal(err)
		}
		w, err := Fit("sm", mdp, phi, data, cv.Lambda)
		if err != nil {
			t.Fatal(err)
		}
		if want := Frobenius(w, mdp.True.W); r.FrobeniusError != want {
			t.Errorf("repeat %d: error %v, want %v at the cross-validated λ = %g", r.Repeat, r.FrobeniusError, want, cv.Lambda)
		}
	}
}

// TestSweepNeedsTrueModel: a sweep of an environment without a true W0
// (env.kind pendulum) is invalid input naming the key, not a nil
// dereference in a worker.
func TestSweepNeedsTrueModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("env:\n  kind: pendulum\nestimate:\n  sweep_n: [20, 40]\n  repeats: 1\n"), 0o644)
	c := testutil.LoadConfigOptions(t, config.Options{Path: p, IgnoreAgents: true})
	if _, err := Sweep(context.Background(), c, SweepOptions{}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "estimate.sweep_n") || !strings.Contains(err.Error(), "env.kind pendulum") {
		t.Errorf("err = %v", err)
	}
}

// TestHC1TooFewTransitions: --hc1 with no more transitions than
// parameters is invalid input naming the flag (n/(n − d) is no factor).
func TestHC1TooFewTransitions(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	data := Draw(mdp, 2, rand.New(rand.NewPCG(1, 1)))
	for _, m := range []string{"sm", "lds"} {
		if _, _, _, err := FitSE(m, mdp, Features(mdp, data), data, 1e-4, SEOptions{HC1: true}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "--hc1") {
			t.Errorf("%s: err = %v", m, err)
		}
	}
}
