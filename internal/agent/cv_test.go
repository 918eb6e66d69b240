package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// addOutside adds the transitions outside fold [lo, hi) to an estimator, in
// order: the fold's complement, which the fold's held-out loss scores.
func addOutside(add func(phi, next []float64), phis, nexts [][]float64, lo, hi int) {
	for j := range phis {
		if j < lo || j >= hi {
			add(phis[j], nexts[j])
		}
	}
}

// refitChoice returns the λ of grid whose folds-fold held-out loss is the
// smallest (the first of equal ones), each fold's complement re-fitted
// directly (no cross-validation code): sm the score-matching loss of a
// fresh accumulator of the fold, lds Σ_i σ_i⁻⁴ (s'_i − ŵ_i·phi)²/2, mle the
// Gaussian's −log p(s') + log q(s') = (s'_i − η_i)²/(2σ²) − s'_i²/(2σ²) +
// log(2πσ²)/2 in closed form (dist is the Gaussian of sigma).
func refitChoice(t *testing.T, base string, dist expfam.Distribution, gaussSigma float64, ldsSigma []float64, phis, nexts [][]float64, folds int, grid []float64) float64 {
	t.Helper()
	n, dphi := len(phis), len(phis[0])
	best, bestLoss := 0.0, math.Inf(1)
	for _, l := range grid {
		var loss float64
		for k := range folds {
			lo, hi := k*n/folds, (k+1)*n/folds
			var w []float64
			switch base {
			case "sm":
				rest, held := estimator.NewSM(dist, dphi), estimator.NewSM(dist, dphi)
				addOutside(rest.Add, phis, nexts, lo, hi)
				for j := lo; j < hi; j++ {
					held.Add(phis[j], nexts[j])
				}
				f, err := rest.Fit(l)
				if err != nil {
					t.Fatal(err)
				}
				loss += held.Objective(f.W)
				continue
			case "lds":
				rest := estimator.NewLDS(len(ldsSigma), dphi)
				addOutside(rest.Add, phis, nexts, lo, hi)
				f, err := rest.Fit(l)
				if err != nil {
					t.Fatal(err)
				}
				w = f.W
			case "mle":
				rest := estimator.NewMLE(dist.(expfam.Blocked), dphi)
				addOutside(rest.Add, phis, nexts, lo, hi)
				f, err := rest.Fit(l, nil)
				if err != nil {
					t.Fatal(err)
				}
				w = f.W
			}
			for j := lo; j < hi; j++ {
				for i, x := range nexts[j] {
					var m float64
					for a, p := range phis[j] {
						m += w[i*dphi+a] * p
					}
					if base == "lds" {
						s2 := ldsSigma[i] * ldsSigma[i]
						loss += (x - m) * (x - m) / (2 * s2 * s2)
					} else {
						s2 := gaussSigma * gaussSigma
						loss += (x-m)*(x-m)/(2*s2) - x*x/(2*s2) + math.Log(2*math.Pi*s2)/2
					}
				}
			}
		}
		if loss < bestLoss {
			best, bestLoss = l, loss
		}
	}
	return best
}

// TestCVAgents: with lambda: cv every learning agent fits, at every
// refit, the λ whose held-out loss over contiguous folds of all its
// transitions so far is the smallest, by a direct re-fit per fold
// (refitChoice), and Ŵ is the direct fit of every transition at that λ;
// with fewer transitions than folds it fits at the grid's largest λ. The
// -ucb and -ps agents' confidence set and posterior (Fit: norm, log det,
// β) are those of V + λI at the chosen λ, also the prior's before any
// data. CVLambda reports the λ; the oracle reports 0.
func TestCVAgents(t *testing.T) {
	const gaussSigma = 0.5
	truth := gaussTruth(t, gaussSigma)
	k := defaultConfidence(t)
	cv := CVConfig{Grid: []float64{1e-3, 0.1, 10, 1000}, Folds: 4}
	top := slices.Max(cv.Grid)
	for _, name := range []string{"sm", "lds", "mle", "sm-ucb", "sm-ps", "lds-ucb", "lds-ps", "mle-ucb", "mle-ps"} {
		spec := specOf(truth, 1)
		spec.LDSSigma = []float64{0.5, 2} // unequal: the lds loss weighs its rows by σ_i⁻⁴
		ag, err := New(name, spec, nil, Config{Lambda: 0, CV: &cv, Confidence: k, Rollout: "sample", Horizon: 5})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := ag.Method()
		if ag.mode != "" && ag.Last.Lambda != top {
			t.Errorf("%s: the prior set has λ = %g, want the grid's largest %g", name, ag.Last.Lambda, top)
		}
		rng := rand.New(rand.NewPCG(4, 4))
		truthStep := expfam.NewStepper(truth)
		var phis, nexts [][]float64
		for step := range 40 {
			s := []float64{rng.NormFloat64(), rng.NormFloat64()}
			a := []float64{rng.NormFloat64()}
			next := make([]float64, 2)
			truthStep.Step(s, a, rng, next)
			ag.Observe(s, a, next)
			phis, nexts = append(phis, []float64{s[0], s[1], a[0], 1}), append(nexts, next)
			if step != 2 && step != 39 {
				continue
			}
			if err := ag.EndEpisode(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := top
			if len(phis) >= cv.Folds {
				want = refitChoice(t, base, truth.Dist, gaussSigma, spec.LDSSigma, phis, nexts, cv.Folds, cv.Grid)
				if want == top {
					t.Fatalf("%s: the re-fit chooses the grid's largest λ: the test does not tell CV from the fallback", name)
				}
			}
			if ag.Last.Lambda != want || ag.CVLambda() != want || ag.Last.N != len(phis) {
				t.Errorf("%s n = %d: fit at λ = %g (CVLambda %g) on %d transitions, want λ = %g", name, len(phis), ag.Last.Lambda, ag.CVLambda(), ag.Last.N, want)
				continue
			}
			ref := directFit(t, base, truth.Dist, spec.LDSSigma, phis, nexts, want)
			for i := range ref.W {
				if d := ag.Model.W[i] - ref.W[i]; math.Abs(d) > 1e-8*(1+math.Abs(ref.W[i])) {
					t.Errorf("%s n = %d: W %v, direct fit %v", name, len(phis), ag.Model.W, ref.W)
					break
				}
			}
			if ag.mode == "" {
				continue
			}
			// The confidence set and posterior use the chosen λ, not the
			// grid's largest (the control shows the check tells them apart).
			delta := make([]float64, len(ref.W))
			for i := range delta {
				delta[i] = rng.NormFloat64()
			}
			other := directFit(t, base, truth.Dist, spec.LDSSigma, phis, nexts, top)
			got, wantN := ag.Last.Norm(delta), ref.Norm(delta)
			if !testutil.AbsWithin(got, wantN, 1e-9*wantN) || want != top && math.Abs(other.Norm(delta)-wantN) < 1e-3*wantN {
				t.Errorf("%s n = %d: |δ| in the agent's precision %.12g, at the chosen λ %.12g, at λ = %g %.12g", name, len(phis), got, wantN, top, other.Norm(delta))
			}
			if a, b := ag.Last.LogDet(), ref.LogDet(); !testutil.AbsWithin(a, b, 1e-9*(1+math.Abs(b))) {
				t.Errorf("%s n = %d: log det(V/λ + I) %.12g, at the chosen λ %.12g", name, len(phis), a, b)
			}
			if b, want := ag.beta(), estimator.BetaPractical(ref.LogDet(), k.Delta, k.Scale); !testutil.AbsWithin(b, want, 1e-9*want) {
				t.Errorf("%s n = %d: β %.12g, at the chosen λ %.12g", name, len(phis), b, want)
			}
		}
	}
	or, err := New("oracle", specOf(truth, 1), nil, Config{CV: &cv, Confidence: k, Rollout: "sample"})
	if err != nil {
		t.Fatal(err)
	}
	if err := or.EndEpisode(); err != nil || or.CVLambda() != 0 {
		t.Errorf("oracle with lambda: cv: CVLambda %g, err %v; want 0 and no error", or.CVLambda(), err)
	}
}

// directFit fits every transition at λ with the agent's estimator, as a
// fixed-λ agent does.
func directFit(t *testing.T, base string, dist expfam.Distribution, ldsSigma []float64, phis, nexts [][]float64, lambda float64) *estimator.Fit {
	t.Helper()
	dphi := len(phis[0])
	var f *estimator.Fit
	var err error
	switch base {
	case "sm":
		e := estimator.NewSM(dist, dphi)
		for i := range phis {
			e.Add(phis[i], nexts[i])
		}
		f, err = e.Fit(lambda)
	case "lds":
		e := estimator.NewLDS(len(ldsSigma), dphi)
		for i := range phis {
			e.Add(phis[i], nexts[i])
		}
		f, err = e.FitNoise(lambda, ldsSigma)
	case "mle":
		e := estimator.NewMLE(dist.(expfam.Blocked), dphi)
		for i := range phis {
			e.Add(phis[i], nexts[i])
		}
		f, err = e.Fit(lambda, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCVAgentRefusesTheorem: a -ucb agent cannot take its λ both from
// lambda: cv and from confidence.lambda: theorem.
func TestCVAgentRefusesTheorem(t *testing.T) {
	k := defaultConfidence(t)
	k.Beta, k.Lambda, k.BStar = "theory", "theorem", 4
	cv := CVConfig{Grid: []float64{0.1, 1}, Folds: 2}
	_, err := New("sm-ucb", specOf(gaussTruth(t, 0.5), 1), nil, Config{CV: &cv, Confidence: k, Rollout: "sample", Horizon: 5})
	if err == nil || !strings.Contains(err.Error(), "theorem") {
		t.Errorf("sm-ucb with lambda: cv and confidence.lambda: theorem: %v", err)
	}
}
