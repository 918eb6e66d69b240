package main

import (
	"encoding/csv"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestEstimateLambdaCV: --lambda cv reports the held-out loss of every λ
// of cv.grid and fits at the λ of the smallest loss; every estimate has
// standard errors of W's shape and Wald intervals Ŵ ∓ 1.96 se.
func TestEstimateLambdaCV(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cv.yaml", "cv:\n  grid: [0.001, 1, 1000]\n  folds: 4\n")
	r := runJSON(t, "--config", cfg, "--n", "400", "--lambda", "cv")
	if len(r.CV) != 3 {
		t.Fatalf("cv = %+v, want 3 points", r.CV)
	}
	best := 0
	for i, p := range r.CV {
		if p.Loss == nil {
			t.Fatalf("cv point %d has no loss", i)
		}
		if *p.Loss < *r.CV[best].Loss {
			best = i
		}
	}
	if r.Lambda != r.CV[best].Lambda {
		t.Errorf("lambda = %g, want the argmin %g of %+v", r.Lambda, r.CV[best].Lambda, r.CV)
	}
	for _, e := range r.Estimates {
		if len(e.SE) != 1 || len(e.SE[0]) != 2 || len(e.WaldLo) != 1 || len(e.WaldHi) != 1 {
			t.Fatalf("%s: se %v, wald %v %v: want 1×2", e.Method, e.SE, e.WaldLo, e.WaldHi)
		}
		for j := range 2 {
			w, se := e.W[0][j], e.SE[0][j]
			if !(se > 0) || !testutil.AbsWithin(e.WaldLo[0][j], (w-1.959963984540054*se), 1e-12) || !testutil.AbsWithin(e.WaldHi[0][j], (w+1.959963984540054*se), 1e-12) {
				t.Errorf("%s entry %d: W %g se %g wald [%g, %g]", e.Method, j, w, se, e.WaldLo[0][j], e.WaldHi[0][j])
			}
		}
		want := map[string]string{"sm": "sandwich", "lds": "sandwich", "mle": "information"}[e.Method]
		if e.SEKind != want {
			t.Errorf("%s: se_kind %q, want %q", e.Method, e.SEKind, want)
		}
	}
	r2 := runJSON(t, "--n", "400", "--method", "mle", "--mle-se", "sandwich", "--hc1")
	if r2.Estimates[0].SEKind != "sandwich-hc1" || r2.CV != nil {
		t.Errorf("--mle-se sandwich --hc1: se_kind %q, cv %v", r2.Estimates[0].SEKind, r2.CV)
	}
}

// TestStatsBadInput: bad cross-validation and statistics settings are
// exit 2 with a message naming the key.
func TestStatsBadInput(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "three.csv", "s,a,s_next\n0.1,1,0.2\n0.3,-1,0.1\n-0.2,1,0.4\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"cv with fewer drawn transitions than folds", []string{"estimate", "--n", "3", "--lambda", "cv"}, "lambda"},
		{"cv with fewer data rows than folds", []string{"estimate", "--data", data, "--lambda", "cv"}, "cv.folds = 5"},
		{"non-positive grid value", []string{"estimate", "--config", writeFile(t, dir, "g.yaml", "cv:\n  grid: [1, 0]\n"), "--lambda", "cv"}, "cv.grid"},
		{"negative grid value", []string{"estimate", "--config", writeFile(t, dir, "g2.yaml", "cv:\n  grid: [-1]\n")}, "cv.grid"},
		{"one fold", []string{"estimate", "--config", writeFile(t, dir, "f.yaml", "cv:\n  folds: 1\n")}, "cv.folds"},
		{"bootstrap_reps 0", []string{"estimate", "--config", writeFile(t, dir, "b.yaml", "stats:\n  bootstrap_reps: 0\n")}, "stats.bootstrap_reps"},
		{"bootstrap_reps 0 in a run", []string{"run", "--config", writeFile(t, dir, "b2.yaml", "stats:\n  bootstrap_reps: 0\n"), "--out", dir + "/r"}, "stats.bootstrap_reps"},
		{"unknown score", []string{"estimate", "--config", writeFile(t, dir, "s.yaml", "stats:\n  score: best\n")}, "stats.score"},
		{"lambda word", []string{"estimate", "--config", writeFile(t, dir, "l.yaml", "lambda: auto\n")}, "lambda"},
		{"lambda cv with confidence.lambda theorem in a run", []string{"run", "--config", writeFile(t, dir, "l2.yaml",
			"lambda: cv\nagents: [sm-ucb]\nconfidence:\n  beta: theory\n  lambda: theorem\n  b_psi: 1\n  alpha1: 1\n"), "--out", dir + "/r2"}, "lambda: cv cannot be combined with confidence.lambda: theorem"},
		{"lambda cv with a grid below 1e-12 for -ps in a run", []string{"run", "--config", writeFile(t, dir, "l3.yaml",
			"lambda: cv\nagents: [lds-ps]\ncv:\n  grid: [1.0e-13]\n"), "--out", dir + "/r3"}, "cv.grid"},
		{"bad --lambda", []string{"estimate", "--lambda", "x"}, "--lambda"},
		{"bad --mle-se", []string{"estimate", "--mle-se", "x"}, "--mle-se"},
	} {
		code, _, errOut := run(t, tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %q", tc.name, code, errOut, tc.want)
		}
	}
}

// TestAggregatesDeterministic: run (1 and 2 workers) and the merge of two
// shards write byte-identical aggregate.csv, improvement.csv and
// profile.csv, and the figures and report section go with them.
func TestAggregatesDeterministic(t *testing.T) {
	base := t.TempDir()
	a, b, merged := base+"/a", quickRun(t), base+"/m" // b: the shared run on 2 workers
	mustRun(t, "run", "--config", quickConfig, "--out", a, "-q", "--workers", "1")
	s0, s1 := base+"/s0", base+"/s1"
	mustRun(t, "run", "--config", quickConfig, "--out", s0, "-q", "--no-plots", "--shard", "0/2")
	mustRun(t, "run", "--config", quickConfig, "--out", s1, "-q", "--no-plots", "--shard", "1/2")
	mustRun(t, "merge", s0, s1, "--out", merged, "-q", "--no-plots")
	for _, f := range []string{"aggregate.csv", "improvement.csv", "profile.csv", "episodes.csv"} {
		x := readFile(t, a+"/"+f)
		for _, d := range []string{b, merged} {
			if y := readFile(t, d+"/"+f); x != y {
				t.Errorf("%s differs between %s and %s", f, a, d)
			}
		}
	}
	if agg := readFile(t, a+"/aggregate.csv"); !strings.HasPrefix(agg, "agent,metric,value,lo,hi\n") || !strings.Contains(agg, "\nsm,iqm,") || !strings.Contains(agg, "\nlds,optimality_gap,") {
		t.Errorf("aggregate.csv:\n%s", agg)
	}
	if imp := readFile(t, a+"/improvement.csv"); !strings.HasPrefix(imp, "agent_x,agent_y,probability,lo,hi\n") {
		t.Errorf("improvement.csv:\n%s", imp)
	}
	rep := readFile(t, a+"/report.md")
	for _, want := range []string{"## Aggregate metrics", "plots/interval_estimates.png", "plots/performance_profile.png", "Probability of improvement"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunLambdaCV: a run with lambda: cv and learners of every estimator,
// greedy and -ps, completes and is the same for any number of workers;
// episodes.csv ends with the column lambda, a value of cv.grid on every
// learner's row and empty on the oracle's; a run without cv has no such
// column.
func TestRunLambdaCV(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cv.yaml", "seeds: 2\nepisodes: 4\nlambda: cv\nagents: [sm, lds, mle, lds-ps, sm-ps, oracle]\nplanner:\n  n_rollouts: 10\ncv:\n  grid: [0.001, 1, 1000]\nstats:\n  bootstrap_reps: 200\n")
	mustRun(t, "run", "--config", cfg, "--out", dir+"/a", "-q", "--no-plots", "--workers", "1")
	mustRun(t, "run", "--config", cfg, "--out", dir+"/b", "-q", "--no-plots", "--workers", "2")
	ep := readFile(t, dir+"/a/episodes.csv")
	if ep != readFile(t, dir+"/b/episodes.csv") {
		t.Error("episodes.csv of lambda: cv differs between 1 and 2 workers")
	}
	rows, err := csv.NewReader(strings.NewReader(ep)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// lambda follows W and its standard errors; the refit diagnostics
	// and action counts come after it.
	last := slices.Index(rows[0], "lambda")
	if last < 0 || rows[0][last+1] != "cond" {
		t.Fatalf("episodes.csv header %v: want lambda just before cond", rows[0])
	}
	for _, r := range rows[1:] {
		switch l := r[last]; {
		case r[0] == "oracle" && l != "":
			t.Errorf("oracle row %v has λ %q", r[:3], l)
		case r[0] != "oracle" && !slices.Contains([]string{"0.001", "1", "1000"}, l):
			t.Errorf("%s row %v has λ %q, not one of cv.grid", r[0], r[:3], l)
		}
	}
	// The journal keeps λ: the merge of two shards writes the same file.
	mustRun(t, "run", "--config", cfg, "--out", dir+"/s0", "-q", "--no-plots", "--shard", "0/2")
	mustRun(t, "run", "--config", cfg, "--out", dir+"/s1", "-q", "--no-plots", "--shard", "1/2")
	mustRun(t, "merge", dir+"/s0", dir+"/s1", "--out", dir+"/m", "-q", "--no-plots")
	if readFile(t, dir+"/m/episodes.csv") != ep {
		t.Error("episodes.csv of the merge of two lambda: cv shards differs from the run's")
	}
	plain := writeFile(t, dir, "plain.yaml", "seeds: 1\nepisodes: 2\nagents: [sm]\nplanner:\n  n_rollouts: 10\n")
	mustRun(t, "run", "--config", plain, "--out", dir+"/p", "-q", "--no-plots")
	if h, _, _ := strings.Cut(readFile(t, dir+"/p/episodes.csv"), "\n"); strings.Contains(h, "lambda") {
		t.Errorf("a run without lambda: cv has the header %q", h)
	}
}
