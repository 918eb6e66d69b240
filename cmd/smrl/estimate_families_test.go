package main

import (
	"strings"
	"testing"
)

// Next states outside a family's support are invalid input (exit 2)
// naming the file, line and column, for every bounded family.
func TestEstimateDataOutsideSupport(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		kind, w0, data, want string
	}{
		{"exponential", "[[0.5, 0.2, 2]]", "s,a,s_next\n0.1,1,0.5\n0.2,1,0\n", `line 3 column "s_next": 0 is outside the support (0, +Inf)`},
		{"gamma", "[[0.5, 0.2, 2], [0, 0, 1]]", "s,a,s_next\n0.1,1,-0.5\n", `line 2 column "s_next": -0.5 is outside the support (0, +Inf)`},
		{"beta", "[[0.5, 0.2, 2], [0, 0, 1]]", "s,a,s_next\n0.1,1,0.5\n0.1,1,0.7\n0.2,1,1\n", `line 4 column "s_next": 1 is outside the support (0, 1)`},
		{"truncated-gaussian", "[[0.5, 0.2, 0]]", "s,a,s_next\n0.1,1,1.5\n", `line 2 column "s_next": 1.5 is outside the support (-1, 1)`},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			cfg := writeFile(t, dir, tc.kind+".yaml", "env:\n  family: {kind: "+tc.kind+", dim: 1}\n  features: {kind: affine}\n  w0: "+tc.w0+"\n")
			data := writeFile(t, dir, tc.kind+".csv", tc.data)
			code, out, errOut := run(t, "estimate", "--config", cfg, "--data", data)
			wantUsage(t, code, out, errOut, tc.kind+".csv "+tc.want)
		})
	}
	// A true W0 outside the natural parameter space (η = 0.5 s + 2a < 0 for
	// a = −1) is a config error.
	cfg := writeFile(t, dir, "bad-w0.yaml", "env:\n  family: {kind: exponential}\n  w0: [[0.5, 2]]\n")
	code, out, errOut := run(t, "estimate", "--config", cfg)
	wantUsage(t, code, out, errOut, "env.w0: η = W0·phi(s, a) has η_0 = -2.5 at s = [-1], a = [-1]")
}

// smrl estimate works for every family of the registry, with every method,
// and names the score-matching weight.
func TestEstimateEveryFamily(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		kind, w0, weight string
	}{
		{"custom-sin", "[[1, 1]]", "h(x) = 1"},
		{"exp-sin", "[[1, 1]]", "h(x) = 1"},
		{"x-sin", "[[1, 1]]", "h(x) = 1"},
		{"gaussian", "[[0.5, 0.2]]", "h(x) = 1"},
		{"relu", "[[0.5, 0.2], [1, -0.5]]", "s'_0: h(x) = min(|x|/1, 1)"},
		{"relu-mog", "[[0.5, 0.2], [1, -0.5], [0.3, 0.1]]", "s'_0: h(x) = min(|x|/1, 1)"},
		{"exponential", "[[0.5, 0.2, 2]]", "s'_0: h(x) = min(x/1, 1)"},
		{"gamma", "[[0.5, 0.2, 2], [0.2, 0.1, 2]]", "s'_0: h(x) = min(x/1, 1)^2"},
		{"beta", "[[0.5, 0.2, 2], [0.2, 0.1, 1]]", "s'_0: h(x) = min(min(x, 1 − x)/0.5, 1)^2"},
		{"truncated-gaussian", "[[0.5, 0.2]]", "s'_0: h(x) = min(min(x + 1, 1 − x)/1, 1)"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			feat := "linear"
			if strings.HasPrefix(tc.w0, "[[0.5, 0.2, 2]") { // the bounded families need η > 0: a constant feature
				feat = "affine"
			}
			cfg := writeFile(t, dir, tc.kind+".yaml", "env:\n  family: {kind: "+tc.kind+", dim: 1}\n  features: {kind: "+feat+"}\n  w0: "+tc.w0+"\nestimate:\n  n: 2000\n")
			r := runJSON(t, "--config", cfg, "--method", "sm,mle,lds")
			if len(r.Estimates) != 3 {
				t.Fatalf("%d estimates", len(r.Estimates))
			}
			for _, e := range r.Estimates {
				if e.FrobeniusError == nil || !(*e.FrobeniusError >= 0) {
					t.Errorf("%s: error %v", e.Method, e.FrobeniusError)
				}
			}
			if sm := r.Estimates[0]; sm.Weight != tc.weight {
				t.Errorf("sm weight %q, want %q", sm.Weight, tc.weight)
			}
			if !strings.Contains(r.Family, strings.SplitN(tc.kind, "-", 2)[0]) {
				t.Errorf("family %q", r.Family)
			}
		})
	}
}
