package estimate

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestStreamingEstimateEqualsInMemory: Run computes each transition's
// features when an estimator reads it (onDemand); the estimates and their
// sandwich standard errors must be bit for bit those of FitSE on the
// stored n × d_phi features of the same drawn data, at 260 random features
// (the blocked statistics), and --se none must give the same Ŵ with se_kind
// "none" and no standard errors.
func TestStreamingEstimateEqualsInMemory(t *testing.T) {
	b, err := os.ReadFile("../../scripts/scale-estimate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "dim: 1024", "dim: 260", 1)
	src = strings.Replace(src, "n: 20000", "n: 2700", 1)
	c := testutil.LoadConfig(t, testutil.WriteYAML(t, src))
	methods := []string{"sm", "lds"}
	res, err := Run(context.Background(), c, Options{Methods: methods})
	if err != nil {
		t.Fatal(err)
	}
	none, err := Run(context.Background(), c, Options{Methods: methods, SE: SEOptions{None: true}})
	if err != nil {
		t.Fatal(err)
	}
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	data := Draw(mdp, c.Estimate.N, rand.New(rand.NewPCG(c.Seed, streamDraw)))
	phi := Features(mdp, data)
	for i, m := range methods {
		w, v, kind, err := FitSE(m, mdp, phi, data, c.Lambda, SEOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e := res.Estimates[i]
		if e.SEKind != kind || kind != "sandwich" {
			t.Fatalf("%s: se_kind %q, in memory %q", m, e.SEKind, kind)
		}
		for j := range w {
			r, k := j/260, j%260
			if math.Float64bits(e.W[r][k]) != math.Float64bits(w[j]) || math.Float64bits(none.Estimates[i].W[r][k]) != math.Float64bits(w[j]) {
				t.Fatalf("%s: Ŵ[%d][%d] streamed %v (--se none %v), in memory %v", m, r, k, e.W[r][k], none.Estimates[i].W[r][k], w[j])
			}
			if math.Float64bits(e.SE[r][k]) != math.Float64bits(math.Sqrt(v[j])) {
				t.Fatalf("%s: se[%d][%d] streamed %v, in memory %v", m, r, k, e.SE[r][k], math.Sqrt(v[j]))
			}
		}
		if n := none.Estimates[i]; n.SEKind != "none" || n.SE != nil || n.WaldLo != nil {
			t.Fatalf("%s with --se none: se_kind %q, se %v", m, n.SEKind, n.SE)
		}
	}
}
