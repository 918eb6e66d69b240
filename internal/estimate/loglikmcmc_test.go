package estimate

import (
	"math"
	"testing"

	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// The held-out log-likelihood of a family sampled by MCMC (coupled-sin,
// d = 2) against an independent truth: log Z(η_t) by a 2-D midpoint rule
// on [−8, 8]², where q(x) = exp(−Σ|x_i|^1.7/1.7 + …) is below e^−20 at
// the edges. The importance-sampled value lies within 3 of its reported
// standard errors (plus the rule's error, far below).
func TestLogLikMCMCAgainstQuadrature(t *testing.T) {
	c := testutil.LoadConfig(t, "../../examples/joint/coupled-d2.yaml")
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	mc, ok := mdp.Model.Family.(*expfam.MCMC)
	if !ok {
		t.Fatalf("coupled-sin's family is %T, want *expfam.MCMC", mdp.Model.Family)
	}
	feat, w := mdp.Model.Features, mdp.Model.W0
	d := &dataset.Transitions{StateDim: 2, ActionDim: 1,
		S:    []float64{0.3, -0.5, -0.8, 0.1, 0.5, 0.9},
		A:    []float64{1, -1, 1},
		Next: []float64{0.7, -0.2, -0.4, 0.6, 1.1, 0.3}}
	ll, se, err := logLikMCMC(mc, feat, w, d, d.Next)
	if err != nil {
		t.Fatal(err)
	}
	m, err := expfam.NewModel(mc, feat, w)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi, k = -8.0, 8.0, 400
	h := (hi - lo) / k
	phi, eta, psi := make([]float64, feat.Dim()), make([]float64, 2), make([]float64, 2)
	var want float64
	for i := range d.Len() {
		m.Eta(d.State(i), d.Action(i), phi, eta)
		var z float64
		x := make([]float64, 2)
		for a := range k {
			for b := range k {
				x[0], x[1] = lo+(float64(a)+0.5)*h, lo+(float64(b)+0.5)*h
				z += math.Exp(expfam.LogDensity(mc, eta, x, 0, psi)) * h * h
			}
		}
		want += expfam.LogDensity(mc, eta, d.Next[2*i:2*i+2], math.Log(z), psi) / 3
	}
	if !(se > 0) || !testutil.AbsWithin(ll, want, 3*se+1e-6) {
		t.Errorf("log-likelihood %v ± %v, quadrature %v: %.2g standard errors apart", ll, se, want, math.Abs(ll-want)/se)
	}
	if testing.Verbose() {
		t.Logf("log-likelihood %v ± %v, quadrature %v", ll, se, want)
	}
}
