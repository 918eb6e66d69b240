package estimate

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// Below MinSEPerParameter transitions per parameter no standard errors are
// reported (they were 1e-6 at n = 1 for an error of 1.56): se, se_kind
// and the Wald intervals say so in the JSON, the table prints "-" and the
// note; at the bound they are reported.
func TestStandardErrorsWithheldBelowMinimum(t *testing.T) {
	c := testutil.LoadConfig(t, "") // d_phi = 2: the bound is n = 20
	for _, n := range []int{1, 19, 20} {
		c.Estimate.N = n
		r, err := Run(context.Background(), c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		withheld := n < 20
		if (r.SENote != "") != withheld {
			t.Errorf("n = %d: SENote %q", n, r.SENote)
		}
		for _, e := range r.Estimates {
			if withheld && (e.SE != nil || e.WaldLo != nil || e.WaldHi != nil || e.SEKind != "withheld") {
				t.Errorf("n = %d, %s: se %v, wald %v %v, se_kind %q; want none, withheld", n, e.Method, e.SE, e.WaldLo, e.WaldHi, e.SEKind)
			}
			if !withheld && (e.SE == nil || !(e.SE[0][0] > 0) || e.SEKind == "withheld") {
				t.Errorf("n = %d, %s: se %v, se_kind %q", n, e.Method, e.SE, e.SEKind)
			}
		}
		var tab, js bytes.Buffer
		if err := r.WriteTable(&tab); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		note := "standard errors withheld: n = 1 is below 10 transitions per parameter (a coordinate's d_psi × d_phi = 1 × 2 parameters need at least 20)"
		if n == 1 && (!strings.Contains(tab.String(), note) || !strings.Contains(js.String(), `"se": null`) || !strings.Contains(js.String(), `"se_note": "`+note)) {
			t.Errorf("n = 1: table\n%s\njson\n%s", tab.String(), js.String())
		}
	}
}

// The bound counts a coordinate's parameters: gamma's two statistics on
// affine features (d_psi × d_phi = 2 × 3) need 60 transitions, not the
// 30 of its three features alone.
func TestStandardErrorsCountParameters(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Env.Family.Kind = "gamma"
	c.Env.Features.Kind = "affine"
	c.Env.W0 = [][]float64{{0.5, 0.1, 2}, {0.2, 0, 1}}
	c.Env.InitLow, c.Env.InitHigh = 0.5, 1.5
	for _, tc := range []struct {
		n        int
		withheld bool
	}{{59, true}, {60, false}} {
		c.Estimate.N = tc.n
		r, err := Run(context.Background(), c, Options{Methods: []string{"lds"}})
		if err != nil {
			t.Fatal(err)
		}
		if (r.SENote != "") != tc.withheld {
			t.Errorf("n = %d: SENote %q, want withheld %v", tc.n, r.SENote, tc.withheld)
		}
	}
}

// smrl estimate fits sm with sm.floor as the agents do: the default floor
// leaves the paper's well-informed fit bit for bit the plain one (at
// n = 1000), and a floor above every direction's information shrinks Ŵ
// (it was accepted and ignored).
func TestEstimateAppliesTheFloor(t *testing.T) {
	fitW := func(floor float64, n int) []float64 {
		c := testutil.LoadConfig(t, "")
		c.Estimate.N = n
		testutil.Set(t, c, "sm.floor", floor)
		r, err := Run(context.Background(), c, Options{Methods: []string{"sm"}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Estimates[0].W[0]
	}
	plain, def := fitW(0, 1000), fitW(5, 1000)
	if plain[0] != def[0] || plain[1] != def[1] {
		t.Errorf("n = 1000: default floor %v, plain %v: want the same bits", def, plain)
	}
	small, huge := fitW(0, 30), fitW(1000, 30)
	if !(math.Abs(huge[0]) < math.Abs(small[0])/2 && math.Abs(huge[1]) < math.Abs(small[1])/2) {
		t.Errorf("n = 30: sm.floor 1000 gives %v, plain %v: want it shrunk", huge, small)
	}
}
