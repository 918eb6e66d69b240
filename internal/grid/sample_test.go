package grid

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func mustSet(t *testing.T, arg string) *Axis {
	t.Helper()
	a, err := ParseSet(arg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The draws of a range against their distributions, by the
// Kolmogorov–Smirnov statistic with a fixed seed: lin: uniform on [a, b],
// log: uniform in log; an integer lin: range each whole number equally
// often (counts within 4σ of n/k). D < 1.63/√n is the 1% critical value.
func TestSampleDistributions(t *testing.T) {
	const n = 4000
	rng := rand.New(rand.NewPCG(1, 2))
	draws := func(a *Axis) []float64 {
		typ, err := config.KeyType(a.Key)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, n)
		for i := range out {
			out[i] = cmpValue(a.draw(rng, typ))
		}
		return out
	}
	crit := 1.63 / math.Sqrt(n)
	lin := draws(mustSet(t, "planner.mppi.temperature=lin:0.5:2.5:3"))
	if d := stats.KS(lin, func(x float64) float64 { return math.Min(math.Max((x-0.5)/2, 0), 1) }); d > crit {
		t.Errorf("lin: KS D = %.4f against U[0.5, 2.5], want < %.4f", d, crit)
	}
	lg := draws(mustSet(t, "lambda=log:1e-4:1:2"))
	for i := range lg {
		lg[i] = math.Log10(lg[i])
	}
	if d := stats.KS(lg, func(x float64) float64 { return math.Min(math.Max((x+4)/4, 0), 1) }); d > crit {
		t.Errorf("log: KS D = %.4f of log10 against U[-4, 0], want < %.4f", d, crit)
	}
	counts := map[float64]int{}
	for _, x := range draws(mustSet(t, "planner.tau=lin:1:4:2")) {
		counts[x]++
	}
	sd := math.Sqrt(n * 0.25 * 0.75)
	for k := 1.0; k <= 4; k++ {
		if c := counts[k]; !testutil.AbsWithin(float64(c), n/4, 4*sd) {
			t.Errorf("tau = %v drawn %d times of %d, want %d ± %.0f", k, c, n, n/4, 4*sd)
		}
	}
	if len(counts) != 4 {
		t.Errorf("drew %v, want only 1, 2, 3, 4", counts)
	}
	list := draws(mustSet(t, "planner.n_rollouts=3,7"))
	if c := slices.Index(list, 7); c < 0 || !testutil.AbsWithin(float64(countOf(list, 7)), n/2, 4*math.Sqrt(n/4.0)) {
		t.Errorf("a list of 2 values: 7 drawn %d of %d times", countOf(list, 7), n)
	}
}

func cmpValue(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case string: // an auto key's number (lambda)
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return math.NaN()
}

func countOf(x []float64, v float64) int {
	n := 0
	for _, y := range x {
		if y == v {
			n++
		}
	}
	return n
}

// The sampled points: a pure function of the seed, distinct, the first N
// of a larger sample; another seed draws others; a grid with fewer
// distinct points than asked is refused.
func TestSampleReproducible(t *testing.T) {
	g := &Grid{Axes: []*Axis{mustSet(t, "lambda=log:1e-4:1:2"), mustSet(t, "planner.tau=lin:2:8:2")}}
	names := func(n int, seed uint64) []string {
		s, err := g.sampled(n, seed)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range s.Points() {
			out = append(out, p.Name)
		}
		return out
	}
	a, b := names(5, 7), names(5, 7)
	if !slices.Equal(a, b) {
		t.Errorf("two samples with one seed differ: %v, %v", a, b)
	}
	if long := names(9, 7); !slices.Equal(long[:5], a) {
		t.Errorf("--sample 9 does not begin with --sample 5's points: %v, %v", long, a)
	}
	if c := names(5, 8); slices.Equal(c, a) {
		t.Errorf("another seed drew the same points %v", c)
	}
	seen := map[string]bool{}
	for _, n := range a {
		if seen[n] {
			t.Errorf("point %s drawn twice", n)
		}
		seen[n] = true
		if !strings.HasPrefix(n, "lambda=") || !strings.Contains(n, ",planner.tau=") {
			t.Errorf("point name %q", n)
		}
	}
	small := &Grid{Axes: []*Axis{mustSet(t, "planner.tau=2,3")}}
	if _, err := small.sampled(3, 1); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "only 2 distinct points") {
		t.Errorf("3 of 2 points: %v", err)
	}
}

// A sampled sweep's sweep.yaml records the ranges and sample: N, and
// loads back to the same points (a resume, a shard, a merge).
func TestSampleRoundTrip(t *testing.T) {
	s, err := LoadSample(context.Background(), config.Options{}, []string{"lambda=log:1e-4:1:2", "planner.tau=2,3,4,5"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	y, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "sample: 3") || !strings.Contains(string(y), `lambda: "log:1e-4:1:2"`) {
		t.Fatalf("sweep.yaml lacks the sample or the range:\n%s", y)
	}
	p := writeFile(t, "sweep.yaml", string(y))
	back, err := Load(config.Options{Path: p, Snapshot: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Points) != 3 || back.Grid.Diff(s.Grid) != "" {
		t.Fatalf("reloaded %d points (%s), want the 3 drawn", len(back.Points), back.Grid.Diff(s.Grid))
	}
	for i, pt := range s.Points {
		if back.Points[i].Name != pt.Name || back.Points[i].Config.Lambda != pt.Config.Lambda {
			t.Errorf("point %d: %s, reloaded %s", i, pt.Name, back.Points[i].Name)
		}
	}
	for _, bad := range []string{"sweep:\n  planner.tau: [1, 2]\n  sample: 0\n", "sweep:\n  planner.tau: [1, 2]\n  sample: x\n"} {
		p := writeFile(t, "c.yaml", bad)
		if _, err := Load(config.Options{Path: p}, nil); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "sample") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
