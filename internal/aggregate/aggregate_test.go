package aggregate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func stratum(scores map[string][]float64) Stratum {
	s := Stratum{Scores: scores, Seeds: map[string][]int{}}
	for a, x := range scores {
		for i := range x {
			s.Seeds[a] = append(s.Seeds[a], i)
		}
	}
	return s
}

func find(t *testing.T, r *Result, agent, metric string) Estimate {
	t.Helper()
	for _, m := range r.Metrics {
		if m.Agent == agent && m.Metric == metric {
			return m.Estimate
		}
	}
	t.Fatalf("no %s of %s", metric, agent)
	return Estimate{}
}

// TestHandComputed checks the point values against values computed by
// hand (and by scipy.stats.trim_mean, numpy.median, numpy.percentile).
func TestHandComputed(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		iqm  float64
		med  float64
		mean float64
	}{
		{[]float64{3, 1, 2, 4}, 2.5, 2.5, 2.5},                           // cut 1: mean(2, 3)
		{[]float64{5, 1, 4, 2, 3}, 3, 3, 3},                              // cut 1: mean(2, 3, 4)
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100}, 5, 5, 145.0 / 11}, // cut 2: mean(2..8)
		{[]float64{1, 1, 1, 10}, 1, 1, 3.25},                             // cut 1: mean(1, 1)
		{[]float64{-2, 7, 7, 7, 7, 7, 7, 50}, 7, 7, 90.0 / 8},            // cut 2
		{[]float64{1, 2, 3}, 2, 2, 2},                                    // cut 0: the mean
		{[]float64{4, 8, 15, 16, 23, 42, 1, 2, 3}, 9.2, 8, 114.0 / 9},    // cut 2: mean(3, 4, 8, 15, 16)
	} {
		if got := IQMOf(tc.x); !testutil.AbsWithin(got, tc.iqm, 1e-12) {
			t.Errorf("IQM(%v) = %v, want %v", tc.x, got, tc.iqm)
		}
		s := slices.Clone(tc.x)
		slices.Sort(s)
		if got := median(s); got != tc.med {
			t.Errorf("median(%v) = %v, want %v", tc.x, got, tc.med)
		}
		if got := mean(s); !testutil.AbsWithin(got, tc.mean, 1e-12) {
			t.Errorf("mean(%v) = %v, want %v", tc.x, got, tc.mean)
		}
	}
	// numpy.percentile([1, 2, 3, 4], [2.5, 50, 97.5]) = [1.075, 2.5, 3.925]
	for p, want := range map[float64]float64{0.025: 1.075, 0.5: 2.5, 0.975: 3.925, 0: 1, 1: 4} {
		if got := Percentile([]float64{1, 2, 3, 4}, p); !testutil.AbsWithin(got, want, 1e-12) {
			t.Errorf("Percentile(p=%v) = %v, want %v", p, got, want)
		}
	}

	// P(X > Y) + ½ P(X = Y): X = [1, 2, 3], Y = [2, 2, 0] win 0+0+1, ½+½+1, 1+1+1 of 9.
	// The optimality gap against the oracle [10, 10, 10]: X 8, Y 8⅔.
	// One-seed strata with equal values give degenerate intervals.
	r, err := Compute([]Stratum{stratum(map[string][]float64{"x": {1, 2, 3}, "y": {2, 2, 0}, "oracle": {10, 10, 10}})}, []string{"x", "y", "oracle"}, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range r.Improvement {
		want := map[[2]string]float64{{"x", "y"}: 6.0 / 9, {"y", "x"}: 3.0 / 9, {"x", "oracle"}: 0, {"oracle", "x"}: 1}[[2]string{im.X, im.Y}]
		if (im.X == "x" || im.Y == "x") && (im.X == "y" || im.Y == "y" || im.X == "oracle" || im.Y == "oracle") && !testutil.AbsWithin(im.Value, want, 1e-12) {
			t.Errorf("P(%s > %s) = %v, want %v", im.X, im.Y, im.Value, want)
		}
		if !(im.Lo <= im.Value && im.Value <= im.Hi) && im.Lo != im.Hi {
			t.Errorf("P(%s > %s) = %v outside its interval [%v, %v]", im.X, im.Y, im.Value, im.Lo, im.Hi)
		}
	}
	if len(r.Improvement) != 6 {
		t.Errorf("%d improvement rows, want 6 ordered pairs", len(r.Improvement))
	}
	if g := find(t, r, "x", OptimalityGap); g.Value != 8 {
		t.Errorf("optimality gap of x = %v, want 8", g.Value)
	}
	if g := find(t, r, "y", OptimalityGap); !testutil.AbsWithin(g.Value, 26.0/3, 1e-12) {
		t.Errorf("optimality gap of y = %v, want 26/3", g.Value)
	}
	if g := find(t, r, "oracle", OptimalityGap); g != (Estimate{}) {
		t.Errorf("optimality gap of the oracle = %+v, want 0 [0, 0]", g)
	}
	// Profile: fraction of x's runs above τ; τ runs from 0 to 10 in 51 steps.
	for _, p := range r.Profile {
		if p.Agent != "x" {
			continue
		}
		want := 0.0
		for _, v := range []float64{1, 2, 3} {
			if v > p.Tau {
				want++
			}
		}
		if want /= 3; !testutil.AbsWithin(p.Value, want, 1e-12) || p.Lo > p.Value || p.Hi < p.Value {
			t.Errorf("profile of x at τ = %v: %+v, want %v inside its interval", p.Tau, p.Estimate, want)
		}
	}
	if r.Profile[0].Tau != 0 || r.Profile[ProfilePoints-1].Tau != 10 {
		t.Errorf("τ grid [%v, %v], want [0, 10]", r.Profile[0].Tau, r.Profile[ProfilePoints-1].Tau)
	}
}

// TestStratified: each stratum's seeds are resampled within the stratum,
// so an agent with all 0 in one stratum and all 1 in the other has every
// replicate's mean exactly ½ (a pooled bootstrap would not); one seed per
// stratum gives a degenerate interval.
func TestStratified(t *testing.T) {
	r, err := Compute([]Stratum{stratum(map[string][]float64{"a": {0, 0, 0}}), stratum(map[string][]float64{"a": {1, 1, 1}})}, []string{"a"}, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	if m := find(t, r, "a", Mean); m != (Estimate{0.5, 0.5, 0.5}) {
		t.Errorf("stratified mean %+v, want 0.5 [0.5, 0.5]", m)
	}
	if len(r.Metrics) != 3 {
		t.Errorf("%d metrics without an oracle, want 3 (no optimality gap)", len(r.Metrics))
	}
}

// TestCountPercentile: the percentile from counts equals the percentile of
// the expanded sorted sample.
func TestCountPercentile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		counts := make([]int, 1+rng.IntN(8))
		var v []float64
		for k := range counts {
			counts[k] = rng.IntN(4)
			for range counts[k] {
				v = append(v, float64(k))
			}
		}
		if len(v) == 0 {
			continue
		}
		for _, p := range []float64{0, 0.025, 0.3, 0.5, 0.975, 1} {
			if got, want := countPercentile(counts, len(v), p), Percentile(v, p); !testutil.AbsWithin(got, want, 1e-12) {
				t.Fatalf("counts %v p %v: %v, want %v", counts, p, got, want)
			}
		}
	}
}

// TestIQMIntervalCoverage: the 95% stratified percentile-bootstrap
// interval of the IQM of n = 50 draws of Exp(1) covers the population IQM
// 2[(a+1)e^{−a} − (b+1)e^{−b}], a = ln(4/3), b = ln 4, in [91%, 98%] of 400
// data sets (B = 1000; 2000 data sets with SMRL_LONG=1). The percentile
// interval of a smooth statistic at n = 50 is nearly exact; the binomial
// standard error at 400 sets is 1.1%.
func TestIQMIntervalCoverage(t *testing.T) {
	sets := 400
	if os.Getenv("SMRL_LONG") == "1" {
		sets = 2000
	}
	a, b := math.Log(4.0/3), math.Log(4)
	truth := 2 * ((a+1)*math.Exp(-a) - (b+1)*math.Exp(-b))
	rng := rand.New(rand.NewPCG(22, 3))
	cover := 0
	for i := range sets {
		x := make([]float64, 50)
		for j := range x {
			x[j] = rng.ExpFloat64()
		}
		r, err := Compute([]Stratum{stratum(map[string][]float64{"a": x})}, []string{"a"}, 1000, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if e := find(t, r, "a", IQM); e.Lo <= truth && truth <= e.Hi {
			cover++
		}
	}
	c := float64(cover) / float64(sets)
	t.Logf("IQM of Exp(1) = %.5f: 95%% bootstrap interval coverage %.1f%% over %d data sets", truth, 100*c, sets)
	if c < 0.91 || c > 0.98 {
		t.Errorf("coverage %.1f%% outside [91%%, 98%%]", 100*c)
	}
}

// TestFromRowsAndWrite: per-seed scores from episode rows (mean and final
// window) and the files' layout.
func TestFromRowsAndWrite(t *testing.T) {
	var rows []results.Row
	for _, a := range []string{"sm", "oracle"} {
		for seed := range 2 {
			for ep := 1; ep <= 4; ep++ {
				rows = append(rows, results.Row{Agent: a, Seed: seed, Episode: ep, Reward: float64(ep*(seed+1)) + map[string]float64{"sm": 0, "oracle": 10}[a]})
			}
		}
	}
	s, agents := FromRows(rows, config.Stats{Score: "mean", FinalEpisodes: 10})
	if !slices.Equal(agents, []string{"sm", "oracle"}) || !slices.Equal(s.Scores["sm"], []float64{2.5, 5}) || !slices.Equal(s.Seeds["oracle"], []int{0, 1}) {
		t.Errorf("mean scores %v seeds %v agents %v", s.Scores, s.Seeds, agents)
	}
	s2, _ := FromRows(rows, config.Stats{Score: "final", FinalEpisodes: 2})
	if !slices.Equal(s2.Scores["sm"], []float64{3.5, 7}) || !slices.Equal(s2.Scores["oracle"], []float64{13.5, 17}) {
		t.Errorf("final-2 scores %v", s2.Scores)
	}
	r, err := Compute([]Stratum{s}, agents, 100, 7)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, r); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, AggregateFile))
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if lines[0] != "agent,metric,value,lo,hi" || len(lines) != 1+8 || !strings.HasPrefix(lines[1], "sm,mean,3.75,") || !strings.HasPrefix(lines[4], "sm,optimality_gap,10,10,10") {
		t.Errorf("aggregate.csv:\n%s", got)
	}
	imp, _ := os.ReadFile(filepath.Join(dir, ImprovementFile))
	if want := "agent_x,agent_y,probability,lo,hi\nsm,oracle,0,0,0\noracle,sm,1,1,1\n"; string(imp) != want {
		t.Errorf("improvement.csv:\n%s\nwant:\n%s", imp, want)
	}
	if _, err := Compute([]Stratum{s}, []string{"lds"}, 10, 1); err == nil {
		t.Error("an agent without scores was aggregated")
	}
	if _, err := Compute([]Stratum{s}, agents, 0, 1); err == nil {
		t.Error("0 bootstrap replicates accepted")
	}
}

// BenchmarkPaperShape: 3 agents × 5 seeds, 10 000 replicates (the paper
// comparison's aggregate).
func BenchmarkPaperShape(b *testing.B) {
	b.ReportAllocs()
	rng := rand.New(rand.NewPCG(1, 1))
	sc := map[string][]float64{}
	for _, a := range []string{"sm", "lds", "oracle"} {
		for range 5 {
			sc[a] = append(sc[a], 4+rng.NormFloat64())
		}
	}
	s := stratum(sc)
	for b.Loop() {
		if _, err := Compute([]Stratum{s}, []string{"sm", "lds", "oracle"}, 10_000, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// Selection gives the sorted slice's order statistics and percentiles bit
// for bit: every k of short slices with many ties, both ends, and
// bootstrap-sized slices of continuous and of few distinct values.
func TestSelectionIsSortedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	draw := func(n, distinct int) []float64 {
		v := make([]float64, n)
		for i := range v {
			if distinct > 0 {
				v[i] = float64(rng.IntN(distinct))
			} else {
				v[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
			}
		}
		return v
	}
	for n := 1; n <= 40; n++ {
		for _, distinct := range []int{0, 1, 2, 5} {
			v := draw(n, distinct)
			sorted := slices.Sorted(slices.Values(v))
			for k := range n {
				w := slices.Clone(v)
				if got := nthElement(w, k); math.Float64bits(got) != math.Float64bits(sorted[k]) {
					t.Fatalf("n %d, distinct %d: element %d = %v, sorted %v", n, distinct, k, got, sorted[k])
				}
				for i := range w {
					if (i < k && w[i] > w[k]) || (i > k && w[i] < w[k]) {
						t.Fatalf("n %d: not partitioned around %d: %v", n, k, w)
					}
				}
			}
			for _, p := range []float64{0, 0.025, 0.5, 0.975, 1} {
				if got, want := selectPercentile(slices.Clone(v), p), Percentile(sorted, p); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("n %d, p %v: %v, sorted %v", n, p, got, want)
				}
			}
		}
	}
	for _, distinct := range []int{0, 7} {
		v := draw(10_000, distinct)
		sorted := slices.Sorted(slices.Values(v))
		lo, hi := bootInterval(v)
		if math.Float64bits(lo) != math.Float64bits(Percentile(sorted, 0.025)) || math.Float64bits(hi) != math.Float64bits(Percentile(sorted, 0.975)) {
			t.Fatalf("distinct %d: interval [%v, %v], sorted [%v, %v]", distinct, lo, hi, Percentile(sorted, 0.025), Percentile(sorted, 0.975))
		}
	}
}

// Agents and pairs are computed in parallel: the result does not depend on
// the number of cores (one core against GOMAXPROCS), row for row and bit
// for bit. (On a one-core machine both runs take one core.)
func TestComputeIsTheSameOnOneCore(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	scores := map[string][]float64{}
	agents := []string{"sm", "lds", "mle", "oracle"}
	for _, a := range agents {
		for range 7 {
			scores[a] = append(scores[a], rng.NormFloat64())
		}
	}
	strata := []Stratum{stratum(scores), stratum(scores)}
	par, err := Compute(strata, agents, 500, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, err := Compute(strata, agents, 500, 5)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%#v", par) != fmt.Sprintf("%#v", one) {
		t.Fatalf("parallel %+v\none core %+v", par, one)
	}
	if len(one.Metrics) != 4*len(agents) || len(one.Improvement) != len(agents)*(len(agents)-1) {
		t.Fatalf("%d metric rows, %d improvement rows", len(one.Metrics), len(one.Improvement))
	}
}

// The resampler's intN draws rand.Rand.IntN's values from the same stream:
// sizes from 1 to beyond 2^32, powers of two among them, and sizes just
// above a power of two (where the rejection step runs most often).
func TestResamplerIsIntN(t *testing.T) {
	r, twin := stream(3, "x"), stream(3, "x")
	for _, u := range []uint64{1, 2, 3, 5, 7, 8, 10, 1000, 1<<20 + 1, 1<<33 + 1, 1<<62 + 1, 3 << 61} {
		n := int(u)
		if uint64(n) != u {
			continue // beyond int on a 32-bit platform
		}
		for range 20_000 {
			if got, want := r.intN(n), twin.rng.IntN(n); got != want {
				t.Fatalf("n %d: intN %d, IntN %d", n, got, want)
			}
		}
	}
}

// The profile counter's counts are those of a walk over every τ (how many
// of a replicate's values lie above τ), for replicates with ties, values
// equal to a τ, and values beyond both ends of the τ.
func TestProfileCounterIsWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 10))
	taus := make([]float64, ProfilePoints)
	for i := range taus {
		taus[i] = float64(i) / float64(ProfilePoints-1)
	}
	for _, n := range []int{1, 2, 5, 13} {
		pc := newProfileCounter(taus, n)
		want := make([]int, len(taus)*(n+1))
		x := make([]float64, n)
		for range 3000 {
			for i := range x {
				switch rng.IntN(4) {
				case 0:
					x[i] = taus[rng.IntN(len(taus))] // on a τ
				case 1:
					x[i] = float64(rng.IntN(3)) / 2 // ties, and 1 = the last τ
				default:
					x[i] = 1.4*rng.Float64() - 0.2 // beyond the ends too
				}
			}
			slices.Sort(x)
			pc.add(x)
			for t, tau := range taus {
				above := 0
				for _, v := range x {
					if v > tau {
						above++
					}
				}
				want[t*(n+1)+above]++
			}
		}
		if got := pc.counts(); !slices.Equal(got, want) {
			t.Fatalf("n %d: counts differ from the walk", n)
		}
	}
}

// The improvement's bootstrap scored from multiplicities gives the
// interval of resampling the values and counting wins pair by pair (the
// definition), bit for bit: strata of different sizes, with ties within
// and across agents.
func TestImprovementIsPairwiseResampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	for trial := range 20 {
		var strata []Stratum
		for range 1 + trial%3 {
			scores := map[string][]float64{}
			for _, a := range []string{"x", "y"} {
				for range 2 + rng.IntN(7) {
					scores[a] = append(scores[a], float64(rng.IntN(4)))
				}
			}
			strata = append(strata, stratum(scores))
		}
		got := improvement(strata, "x", "y", 300, uint64(trial))
		// The definition: resample the values, compare every pair.
		r := stream(uint64(trial), "x\x00y")
		boot := make([]float64, 300)
		for i := range boot {
			var p float64
			for _, s := range strata {
				xs, ys := s.Scores["x"], s.Scores["y"]
				a, b := make([]float64, len(xs)), make([]float64, len(ys))
				for j := range a {
					a[j] = xs[r.intN(len(a))]
				}
				for j := range b {
					b[j] = ys[r.intN(len(b))]
				}
				var w float64
				for _, u := range a {
					for _, v := range b {
						if u > v {
							w++
						} else if u == v {
							w += 0.5
						}
					}
				}
				p += w / float64(len(a)*len(b))
			}
			boot[i] = p / float64(len(strata))
		}
		slices.Sort(boot)
		if lo, hi := Percentile(boot, 0.025), Percentile(boot, 0.975); math.Float64bits(got.Lo) != math.Float64bits(lo) || math.Float64bits(got.Hi) != math.Float64bits(hi) {
			t.Fatalf("trial %d: interval [%v, %v], by pairs [%v, %v]", trial, got.Lo, got.Hi, lo, hi)
		}
	}
}

// A panic inside a worker (here: a stratum whose seeds outnumber its
// scores, which no caller builds) is Compute's error, wrapping
// errs.ErrInternal, not the end of the process.
func TestComputeWorkerPanicIsAnError(t *testing.T) {
	s := stratum(map[string][]float64{"a": {1, 2}, "oracle": {3, 4}})
	s.Seeds["a"] = append(s.Seeds["a"], 7)
	s.Seeds["oracle"] = append(s.Seeds["oracle"], 7)
	_, err := Compute([]Stratum{s}, []string{"a", "oracle"}, 10, 1)
	if !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("Compute = %v, want an error wrapping errs.ErrInternal", err)
	}
}

// BenchmarkAggregateCompute: a sweep's aggregate over points, 4 agents
// (the oracle among them) × 20 seeds in each of 3 strata, 10 000
// replicates (the default bootstrap_reps).
func BenchmarkAggregateCompute(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	agents := []string{"sm", "lds", "mle", "oracle"}
	var strata []Stratum
	for range 3 {
		sc := map[string][]float64{}
		for _, a := range agents {
			for range 20 {
				sc[a] = append(sc[a], 4+rng.NormFloat64())
			}
		}
		strata = append(strata, stratum(sc))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compute(strata, agents, 10_000, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// referenceAgent is the bootstrap of one agent by its definition: per
// replicate, draw every stratum's scores (and gaps) in the stream's order,
// sort the values, take mean, median, IQM and the gaps' mean, and count the
// profile by add.
func referenceAgent(strata []Stratum, a string, taus []float64, reps int, seed uint64) Result {
	g, hasGap := gaps(strata, a)
	n := 0
	for _, s := range strata {
		n += len(s.Scores[a])
	}
	rng := stream(seed, a)
	boot := [4][]float64{make([]float64, reps), make([]float64, reps), make([]float64, reps), make([]float64, reps)}
	pc := newProfileCounter(taus, n)
	for r := range reps {
		var x, gp []float64
		for k, s := range strata {
			sc := s.Scores[a]
			for range sc {
				j := rng.intN(len(sc))
				x = append(x, sc[j])
				if hasGap {
					gp = append(gp, g[k][j])
				}
			}
		}
		slices.Sort(x)
		boot[0][r], boot[1][r], boot[2][r] = mean(x), median(x), iqm(x)
		if hasGap {
			boot[3][r] = mean(gp)
		}
		pc.add(x)
	}
	var res Result
	for m, name := range Metrics {
		if m == 3 && !hasGap {
			continue
		}
		sorted := slices.Sorted(slices.Values(boot[m]))
		res.Metrics = append(res.Metrics, MetricRow{Agent: a, Metric: name,
			Estimate: Estimate{Lo: Percentile(sorted, 0.025), Hi: Percentile(sorted, 0.975)}})
	}
	counts := pc.counts()
	for t, tau := range taus {
		c := counts[t*(n+1) : (t+1)*(n+1)]
		res.Profile = append(res.Profile, ProfileRow{Agent: a, Tau: tau,
			Estimate: Estimate{Lo: countPercentile(c, reps, 0.025) / float64(n), Hi: countPercentile(c, reps, 0.975) / float64(n)}})
	}
	return res
}

// The replicates drawn as multiplicities over the distinct scores give the
// intervals of drawing the values and sorting them (referenceAgent) bit
// for bit: strata of different sizes, ties within and across strata,
// scores on a τ, with and without the baseline, and a −0 among the scores
// (the path that sorts).
func TestReplicatesAreSortedDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 12))
	for trial := range 24 {
		var strata []Stratum
		for range 1 + trial%3 {
			scores := map[string][]float64{}
			for _, a := range []string{"x", "oracle"} {
				for range 1 + rng.IntN(9) {
					v := rng.NormFloat64()
					if trial%2 == 0 {
						v = float64(rng.IntN(4)) / 2 // ties
					}
					scores[a] = append(scores[a], v)
				}
			}
			if trial%6 == 5 {
				scores["x"][0] = math.Copysign(0, -1)
				scores["x"] = append(scores["x"], 0)
			}
			if trial%4 == 3 {
				delete(scores, "oracle") // no baseline: no gap
				scores["y"] = []float64{1}
			}
			strata = append(strata, stratum(scores))
		}
		agents := []string{"x"}
		res, err := Compute(strata, agents, 400, uint64(trial))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range strata {
			for _, v := range s.Scores["x"] {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		taus := []float64{lo}
		if hi > lo {
			taus = make([]float64, ProfilePoints)
			for i := range taus {
				taus[i] = lo + (hi-lo)*float64(i)/float64(ProfilePoints-1)
			}
		}
		want := referenceAgent(strata, "x", taus, 400, uint64(trial))
		if len(res.Metrics) != len(want.Metrics) || len(res.Profile) != len(want.Profile) {
			t.Fatalf("trial %d: %d metrics, %d profile rows; the reference %d, %d",
				trial, len(res.Metrics), len(res.Profile), len(want.Metrics), len(want.Profile))
		}
		for i, m := range res.Metrics {
			w := want.Metrics[i]
			if !testutil.SameBitsOrNaN(m.Lo, w.Lo) || !testutil.SameBitsOrNaN(m.Hi, w.Hi) {
				t.Fatalf("trial %d: %s interval [%v, %v], the reference [%v, %v]", trial, m.Metric, m.Lo, m.Hi, w.Lo, w.Hi)
			}
		}
		for i, p := range res.Profile {
			w := want.Profile[i]
			if !testutil.SameBitsOrNaN(p.Lo, w.Lo) || !testutil.SameBitsOrNaN(p.Hi, w.Hi) || p.Tau != w.Tau {
				t.Fatalf("trial %d: profile at τ %v [%v, %v], the reference [%v, %v]", trial, p.Tau, p.Lo, p.Hi, w.Lo, w.Hi)
			}
		}
	}
}

// bootInterval's second selection, over the values above the first's,
// gives the sorted replicates' percentiles bit for bit: lengths from 1 to
// 10 000 (where the two percentiles share order statistics or not), with
// ties.
func TestBootIntervalIsSortedPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 13))
	for _, n := range []int{1, 2, 3, 39, 40, 41, 81, 1000, 10_000} {
		for _, distinct := range []int{0, 3} {
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
				if distinct > 0 {
					v[i] = float64(rng.IntN(distinct))
				}
			}
			sorted := slices.Sorted(slices.Values(v))
			lo, hi := bootInterval(v)
			if !testutil.SameBitsOrNaN(lo, Percentile(sorted, 0.025)) || !testutil.SameBitsOrNaN(hi, Percentile(sorted, 0.975)) {
				t.Fatalf("n %d: [%v, %v], sorted [%v, %v]", n, lo, hi, Percentile(sorted, 0.025), Percentile(sorted, 0.975))
			}
		}
	}
}
