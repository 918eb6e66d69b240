package env

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/expr"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Every family of the registry is a part of env.family.kind and of
// model.family (one registration serves both), and builds as env.family
// and as model.family with the part's number of statistics.
func TestFamilyRegistryServesBothGroups(t *testing.T) {
	for _, g := range []string{"env.family.kind", "model.family"} {
		var names []string
		for _, f := range Families {
			if (g == "model.family" && !f.NoModel) || (g == "env.family.kind" && !f.NoEnv) {
				names = append(names, f.Name)
			}
		}
		slices.Sort(names)
		var got []string
		for _, p := range config.Parts(g) {
			got = append(got, p.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			t.Errorf("%s lists %v, the registry %v", g, got, names)
		}
	}
	oneDim := []string{"exp-sin", "x-sin"}
	bounded := []string{"exponential", "gamma", "beta", "truncated-gaussian"}
	for _, info := range Families {
		if info.Expression || info.Coord == nil {
			continue // expression: its statistics are the config's psi; a joint family has no coordinates of its own (family_joint.go's tests)
		}
		dim := 2
		if slices.Contains(oneDim, info.Name) {
			dim = 1
		}
		stats := max(info.Stats, 1)
		c := testutil.LoadConfig(t, "")
		c.Env.Family = config.Family{Kind: info.Name, Dim: dim}
		testutil.Set(t, c, "env.family.sigma", 0.5, "env.family.alpha", 1.7, "env.family.freq", 4.0, "env.family.low", -1.0, "env.family.high", 1.0,
			"model.alpha", 2.0)
		d, err := NewFamily(c)
		if err != nil {
			t.Fatalf("env.family %s: %v", info.Name, err)
		}
		if d.StateDim() != dim || d.StatDim() != dim*stats {
			t.Errorf("env.family %s: d_s %d, d_psi %d; want %d, %d", info.Name, d.StateDim(), d.StatDim(), dim, dim*stats)
		}
		c.Model.Family = []string{info.Name}
		l, err := NewLearnerFamily(c, []float64{0.5, 0.5})
		if err != nil {
			t.Fatalf("model.family %s: %v", info.Name, err)
		}
		if l.StatDim() != 2*stats {
			t.Errorf("model.family %s: d_psi %d, want %d", info.Name, l.StatDim(), 2*stats)
		}
		lo, hi := expfam.SupportOf(l.C[0])
		if b := !math.IsInf(lo, -1) || !math.IsInf(hi, 1); b != slices.Contains(bounded, info.Name) {
			t.Errorf("%s: support (%v, %v), want bounded = %v", info.Name, lo, hi, !b)
		}
	}
}

// SMSetup: relu's kink is weighted, kernel-estimated or ignored by mode,
// bounded families are always weighted (but for plain), smooth families
// on the line never; model.weight_cap sets the cap.
func TestSMSetupModes(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Model.Family = []string{"relu", "gaussian", "beta"}
	testutil.Set(t, c, "model.kink_bandwidth", 0.2, "model.weight_cap", 0.0)
	fam, err := NewLearnerFamily(c, []float64{2, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	spec := ModelSpec{Family: fam, KinkBandwidth: []float64{0.4, 0.2, 0.2}}
	for _, tc := range []struct {
		mode   string
		weight [3]bool
		kernel bool
	}{
		{"weighted", [3]bool{true, false, true}, false},
		{"kernel", [3]bool{false, false, true}, true},
		{"none", [3]bool{false, false, true}, false},
		{"plain", [3]bool{false, false, false}, false},
	} {
		w, h := spec.SMSetup(tc.mode)
		for i, want := range tc.weight {
			if got := w != nil && w[i] != nil; got != want {
				t.Errorf("%s: coordinate %d weighted %v, want %v", tc.mode, i, got, want)
			}
		}
		if (h != nil) != tc.kernel {
			t.Errorf("%s: bandwidths %v", tc.mode, h)
		}
	}
	w, _ := spec.SMSetup("weighted")
	if got := w[0].String(); got != "h(x) = min(|x|/2, 1)" {
		t.Errorf("relu weight with σ = 2: %s", got)
	}
	testutil.Set(t, c, "model.weight_cap", 0.25)
	fam, _ = NewLearnerFamily(c, []float64{2, 1, 1})
	w, _ = ModelSpec{Family: fam}.SMSetup("weighted")
	if got := w[0].String(); got != "h(x) = min(|x|/0.5, 1)" {
		t.Errorf("relu weight with σ = 2, cap 0.25: %s", got)
	}
	if got := w[2].String(); got != "h(x) = min(min(x, 1 − x)/0.25, 1)^2" {
		t.Errorf("beta weight with cap 0.25: %s", got)
	}
}

// A true W0 whose η leaves the natural parameter space at a corner of the
// initial box, for some action, is refused naming env.w0; one inside is
// accepted.
func TestNaturalParameterCheck(t *testing.T) {
	for _, tc := range []struct {
		kind, feat string
		w0         [][]float64
		ok         bool
	}{
		{"exponential", "linear", [][]float64{{0.5, 2}}, false},      // a = −1: η = −2 ± 0.5
		{"exponential", "affine", [][]float64{{0.5, 0.2, 2}}, true},  // η in [1.3, 2.7]
		{"exponential", "affine", [][]float64{{2.5, 0.2, 2}}, false}, // s = −1, a = −1: η = −0.7
		{"gamma", "affine", [][]float64{{0, 0, -0.5}, {0, 0, 1}}, true},
		{"gamma", "affine", [][]float64{{0, 0, -1}, {0, 0, 1}}, false},  // shape 0
		{"beta", "affine", [][]float64{{0, 0, 0}, {1, 0, -0.5}}, false}, // s = −1: η₂ = −1.5
		{"relu", "linear", [][]float64{{5, 5}, {-5, 5}}, true},          // every η is valid
	} {
		c := &config.Config{}
		c.Env.Family = config.Family{Kind: tc.kind, Dim: 1} // the defaults of the families' keys: env.family.sigma 1
		c.Env.Features.Kind = tc.feat
		c.Env.ActionDim, c.Env.Actions = 1, []float64{1, -1}
		c.Env.InitLow, c.Env.InitHigh = -1, 1
		c.Env.W0 = tc.w0
		c.Env.Reward.Width, c.Env.Reward.Centers = 1, []float64{0}
		_, err := newExpfam(c)
		if (err == nil) != tc.ok {
			t.Errorf("%s %s W0 %v: error %v, want ok = %v", tc.kind, tc.feat, tc.w0, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "env.w0: η = W0·phi(s, a)") {
			t.Errorf("%s: error %q does not name env.w0", tc.kind, err)
		}
	}
}

// The description smrl list families prints for a built-in family, "on
// (0, ∞): log q(x) = 0, psi(x) = [log(x), -x]; …", is the family's code:
// the support is expfam.SupportOf's, and log q (up to a constant) and
// every ψ_k, evaluated as expressions of x and the parameters, agree with
// LogQ and Psi at points across the support.
func TestFamilyDocsMatchCode(t *testing.T) {
	vars := []string{"x", "sigma", "alpha", "freq", "low", "high"}
	p := struct{ Sigma, Alpha, Freq, Low, High float64 }{Sigma: 0.7, Alpha: 1.6, Freq: 2.5, Low: -0.4, High: 1.3}
	cfg := testutil.LoadConfig(t, "")
	testutil.Set(t, cfg, "env.family.sigma", p.Sigma, "env.family.alpha", p.Alpha, "env.family.freq", p.Freq, "env.family.low", p.Low, "env.family.high", p.High)
	eval := func(src string, x float64) float64 {
		t.Helper()
		e, err := expr.Parse(src, vars)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		return e.Compile().Eval([]float64{x, p.Sigma, p.Alpha, p.Freq, p.Low, p.High})
	}
	for _, g := range []string{"env.family.kind", "model.family"} {
		for _, part := range config.Parts(g) {
			f := familyByName(part.Name)
			if f.Expression || f.Coord == nil {
				continue // expression: the config writes its formula; a joint family's Doc is written by hand
			}
			lo, hi, logQ, psi, err := parseFamilyDoc(part.Doc)
			if err != nil {
				t.Errorf("%s %s: %q: %v", g, part.Name, part.Doc, err)
				continue
			}
			c, err := f.Coord(cfg, Site{})
			if err != nil {
				t.Fatal(err)
			}
			end := func(src string, inf float64) float64 {
				if src == "" {
					return inf
				}
				return eval(src, 0)
			}
			a, b := end(lo, math.Inf(-1)), end(hi, math.Inf(1))
			if ca, cb := expfam.SupportOf(c); ca != a || cb != b {
				t.Errorf("%s: listed support (%v, %v), the code's (%v, %v)", part.Name, a, b, ca, cb)
			}
			if len(psi) != c.StatDim() {
				t.Errorf("%s: %d statistics listed, the code has %d", part.Name, len(psi), c.StatDim())
				continue
			}
			a, b = max(a, -3), min(b, 3)
			got := make([]float64, len(psi))
			x0 := a + (b-a)/22
			for i := range 11 {
				x := a + (b-a)*(float64(i)+0.5)/11
				c.Psi(x, got)
				for k, src := range psi {
					if want := eval(src, x); !(math.Abs(got[k]-want) <= 1e-12*(1+math.Abs(want))) {
						t.Errorf("%s: psi[%d] = %s is %v at x = %v, the code's %v", part.Name, k, src, want, x, got[k])
					}
				}
				want, lq := eval(logQ, x)-eval(logQ, x0), c.LogQ(x)-c.LogQ(x0)
				if !(math.Abs(lq-want) <= 1e-12*(1+math.Abs(want))) {
					t.Errorf("%s: log q(x) − log q(%v) = %v by %s at x = %v, the code's %v", part.Name, x0, want, logQ, x, lq)
				}
			}
		}
	}
}

// parseFamilyDoc splits a description "on S: log q(x) = L, psi(x) = P;
// note" into the ends of S ("(lo, hi)", "" for ±∞, or ℝ), L and the
// statistics of P ("[ψ_1, ψ_2]" or one ψ).
func parseFamilyDoc(doc string) (lo, hi, logQ string, psi []string, err error) {
	support, rest, ok := strings.Cut(strings.TrimPrefix(doc, "on "), ": log q(x) = ")
	if !ok || !strings.HasPrefix(doc, "on ") {
		return "", "", "", nil, fmt.Errorf(`want "on S: log q(x) = …"`)
	}
	logQ, rest, ok = strings.Cut(rest, ", psi(x) = ")
	if !ok {
		return "", "", "", nil, fmt.Errorf(`want ", psi(x) = …" after log q`)
	}
	rest, _, _ = strings.Cut(rest, "; ")
	if support != "ℝ" {
		l, h, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(support, "("), ")"), ", ")
		if !ok || support[0] != '(' || !strings.HasSuffix(support, ")") {
			return "", "", "", nil, fmt.Errorf("support %q: want ℝ or an open interval (lo, hi)", support)
		}
		lo, hi = strings.TrimPrefix(l, "−∞"), strings.TrimPrefix(h, "∞")
	}
	if !strings.HasPrefix(rest, "[") {
		return lo, hi, logQ, []string{rest}, nil
	}
	depth, from := 0, 1
	for i, r := range rest {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 1 {
				psi = append(psi, strings.TrimSpace(rest[from:i]))
				from = i + 1
			}
		}
	}
	return lo, hi, logQ, append(psi, strings.TrimSpace(strings.TrimSuffix(rest[from:], "]"))), nil
}

// The natural-space check runs before every true step: it allocates
// nothing (it allocated φ and η per step), and still refuses η outside.
func TestNaturalSpaceCheckAllocatesNothing(t *testing.T) {
	c, err := testutil.LoadYAML(t, "env:\n  init_low: 0.5\n  init_high: 1\n  family: {kind: gamma}\n  features: {kind: affine}\n  w0: [[0, 0, -0.5], [0, 0, 1]]\n  reward: {centers: [1]}\n")
	if err != nil {
		t.Fatal(err)
	}
	mdp, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s, a := []float64{0.7}, []float64{1}
	if n := testing.AllocsPerRun(100, func() {
		if err := mdp.CheckTransition(s, a); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("CheckTransition allocated %v times per call, want 0", n)
	}
	mdp.True.W[5] = -1 // rate η_2 = −1 < 0
	if err := mdp.CheckTransition(s, a); err == nil || !strings.Contains(err.Error(), "env.w0") {
		t.Errorf("η outside: err = %v", err)
	}
}

// The families' hooks give the learners' model class what env's core once
// read from their keys: a family that reads env.family.sigma declares it
// as its Scale, which trueScales then gives per coordinate (1 for the
// others, whose configs cannot set it), and the relu families' Learner
// sets model.kink and the kink bandwidths kink_bandwidth·σ_i on every
// model class (defaults when no relu family is selected).
func TestFamilyScaleAndKinkHooks(t *testing.T) {
	for _, f := range Families {
		if uses := slices.Contains(f.EnvUses, "env.family.sigma"); uses != (f.Scale != nil) {
			t.Errorf("%s: reads env.family.sigma %v, declares a Scale %v", f.Name, uses, f.Scale != nil)
		}
		c := testutil.LoadConfig(t, "")
		c.Env.Family.Kind = f.Name
		want := 1.0
		if f.Scale != nil {
			testutil.Set(t, c, "env.family.sigma", 0.5)
			want = 0.5
		}
		if got := trueScales(c, 2); !slices.Equal(got, []float64{want, want}) {
			t.Errorf("%s: trueScales %v, want [%g %g]", f.Name, got, want, want)
		}
	}
	c := testutil.LoadConfig(t, "")
	var m ModelSpec
	learnerHooks(c, []float64{2, 4}, &m)
	if m.Kink != "weighted" || !slices.Equal(m.KinkBandwidth, []float64{0.3, 0.6}) {
		t.Errorf("defaults: kink %q, bandwidths %v; want weighted, [0.3 0.6]", m.Kink, m.KinkBandwidth)
	}
	c.Env.Family.Kind, c.Model.Family = "relu", []string{"relu"}
	testutil.Set(t, c, "model.kink", "kernel", "model.kink_bandwidth", 0.25)
	learnerHooks(c, []float64{2, 4}, &m)
	if m.Kink != "kernel" || !slices.Equal(m.KinkBandwidth, []float64{0.5, 1}) {
		t.Errorf("relu: kink %q, bandwidths %v; want kernel, [0.5 1]", m.Kink, m.KinkBandwidth)
	}
}
