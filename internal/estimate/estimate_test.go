package estimate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func TestParseMethods(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{nil, []string{"sm", "lds", "mle"}},
		{[]string{"lds"}, []string{"lds"}},
		{[]string{"mle,sm", "sm", " lds "}, []string{"mle", "sm", "lds"}},
	} {
		got, err := ParseMethods(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseMethods(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	_, err := ParseMethods([]string{"sm,ols"})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), `"ols"`) {
		t.Errorf("unknown method: %v", err)
	}
}

func TestDraw(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Env.InitLow, c.Env.InitHigh = -0.5, 2
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	a := Draw(mdp, 500, rand.New(rand.NewPCG(3, 4)))
	b := Draw(mdp, 500, rand.New(rand.NewPCG(3, 4)))
	if a.Len() != 500 || !slices.Equal(a.S, b.S) || !slices.Equal(a.A, b.A) || !slices.Equal(a.Next, b.Next) {
		t.Fatal("Draw is not deterministic")
	}
	var plus int
	for i := range a.Len() {
		if s := a.State(i)[0]; s < -0.5 || s > 2 {
			t.Fatalf("s = %v outside [init_low, init_high]", s)
		}
		switch a.Action(i)[0] {
		case 1:
			plus++
		case -1:
		default:
			t.Fatalf("action %v not in env.actions", a.Action(i))
		}
	}
	if plus < 200 || plus > 300 {
		t.Errorf("%d of 500 actions are +1: not uniform", plus)
	}
}

func TestRunRecoversW0(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Estimate.N = 3000
	res, err := Run(context.Background(), c, Options{Methods: []string{"sm", "lds"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 3000 || len(res.Estimates) != 2 || res.W0 == nil {
		t.Fatalf("%+v", res)
	}
	sm := res.Estimates[0]
	if sm.Method != "sm" || *sm.FrobeniusError > 0.25 {
		t.Errorf("sm: W %v, error %v", sm.W, *sm.FrobeniusError)
	}
	if e := Frobenius([]float64{sm.W[0][0], sm.W[0][1]}, []float64{1, 1}); e != *sm.FrobeniusError {
		t.Errorf("frobenius_error %v, recomputed %v", *sm.FrobeniusError, e)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, testutil.LoadConfig(t, ""), Options{}); !errors.Is(err, errs.ErrInterrupted) {
		t.Errorf("Run: %v, want ErrInterrupted", err)
	}
	c := testutil.LoadConfig(t, "")
	c.Estimate.SweepN, c.Estimate.Repeats = []int{10, 20}, 2
	if _, err := Sweep(ctx, c, SweepOptions{Methods: []string{"lds"}}); !errors.Is(err, errs.ErrInterrupted) {
		t.Errorf("Sweep: %v, want ErrInterrupted", err)
	}
}

func TestCheckDims(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	mdp, _ := env.New(c)
	d := &dataset.Transitions{}
	d.Append([]float64{1, 2}, []float64{1}, []float64{0, 0})
	err := CheckDims(c, mdp, d, "x.csv")
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "x.csv") ||
		!strings.Contains(err.Error(), "state dimension 2") || !strings.Contains(err.Error(), "state dimension 1") {
		t.Errorf("CheckDims: %v", err)
	}
}

func TestFitSingular(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	mdp, _ := env.New(c)
	d := &dataset.Transitions{}
	for range 5 {
		d.Append([]float64{0.5}, []float64{1}, []float64{0.2})
	}
	for _, m := range []string{"sm", "lds"} {
		_, err := Fit(m, mdp, Features(mdp, d), d, 0)
		if !errors.Is(err, estimator.ErrSingular) || !errors.Is(err, errs.ErrInvalidInput) || !strings.HasPrefix(err.Error(), m+": ") {
			t.Errorf("%s on identical rows, λ = 0: %v", m, err)
		}
	}
}

func TestSweepSlope(t *testing.T) {
	c := testutil.LoadConfig(t, "")
	c.Estimate.SweepN, c.Estimate.Repeats = []int{10000, 300, 3000, 300}, 4
	rows, err := Sweep(context.Background(), c, SweepOptions{Methods: []string{"sm"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3*4 || rows[0].N != 300 || rows[len(rows)-1].N != 10000 || rows[len(rows)-1].Repeat != 3 {
		t.Fatalf("rows %+v", rows)
	}
	s := Slopes(rows)
	if len(s) != 1 || !s[0].OK || s[0].Slope < -0.85 || s[0].Slope > -0.25 {
		t.Errorf("sm error slope %+v, want ≈ −1/2", s)
	}

	// The data of (n, r) do not depend on the other sizes.
	c.Estimate.SweepN = []int{3000}
	one, err := Sweep(context.Background(), c, SweepOptions{Methods: []string{"sm"}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(one) != fmt.Sprint(rows[4:8]) { // NaN-aware: the rows hold NaN efficiencies
		t.Errorf("n = 3000 alone gives %v, in the full sweep %v", one, rows[4:8])
	}
}

func TestSlopes(t *testing.T) {
	var rows []SweepRow
	for _, n := range []int{100, 400, 1600} {
		for r := range 2 {
			rows = append(rows, SweepRow{Method: "a", N: n, Repeat: r, FrobeniusError: 3 / math.Sqrt(float64(n)) * float64(1+r)})
			rows = append(rows, SweepRow{Method: "b", N: n, Repeat: r})
		}
	}
	rows = append(rows, SweepRow{Method: "c", N: 10, FrobeniusError: 1})
	s := Slopes(rows)
	if len(s) != 3 || s[0].Method != "a" || !s[0].OK || math.Abs(s[0].Slope+0.5) > 1e-12 || s[1].OK || s[2].OK {
		t.Errorf("Slopes = %+v", s)
	}
}

func TestWriteSweep(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.csv")
	rows := []SweepRow{{"sm", 100, 0, 0.1, -1.5, 0.5}, {"sm", 100, 1, 1.0 / 3, math.NaN(), math.NaN()}}
	if err := WriteSweep(p, rows); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := SweepHeader + "\nsm,100,0,0.1,-1.5,0.5\nsm,100,1,0.3333333333333333,,\n"; string(b) != want {
		t.Errorf("wrote %q, want %q", b, want)
	}
	// A directory in the way: the rename fails and no temporary is left.
	blocked := filepath.Join(dir, "blocked")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteSweep(blocked, rows); err == nil {
		t.Error("writing over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("files left: %v", entries)
	}
}

func TestTable(t *testing.T) {
	e := 0.05
	l1, l2 := -1.25, -1.5
	r := &Result{N: 10, Lambda: 0.1, CV: []CVPoint{{0.1, &l2}, {1, &l1}, {10, nil}},
		Estimates: []Estimate{{Method: "sm", W: [][]float64{{1.03, 1.04}}, SE: [][]float64{{0.1, 0.2}}, FrobeniusError: &e, Seconds: 0.0001, Weight: "h(x) = 1"}, {Method: "lds", W: [][]float64{{1, 2}, {3, 4}}}}}
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"lambda  held-out SM loss  \n" +
		"0.1     -1.5              <- chosen\n" +
		"1       -1.25             \n" +
		"10      singular          \n" +
		"\n" +
		"method  n   W                 se            |W−W0|_F  seconds  weight\n" +
		"sm      10  [[1.03, 1.04]]    [[0.1, 0.2]]  0.05      0.0001   h(x) = 1\n" +
		"lds     10  [[1, 2], [3, 4]]  -             -         0        -\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}
