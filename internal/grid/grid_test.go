package grid

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseSetValues(t *testing.T) {
	for _, tc := range []struct {
		arg   string
		scale Scale
		want  []any
		texts string
	}{
		{"planner.tau=1,2, 5", List, []any{int64(1), int64(2), int64(5)}, "1,2,5"},
		{"lambda=1e-4,0.01", List, []any{1e-4, 0.01}, "0.0001,0.01"},
		{"planner.common_random_numbers=true,false", List, []any{true, false}, "true,false"},
		{"planner.rollout=sample,mean", List, []any{"sample", "mean"}, "sample,mean"},
		{"seed=0,18446744073709551615", List, []any{uint64(0), uint64(math.MaxUint64)}, "0,18446744073709551615"},
		{"env.w0=[[1, 1]],[[1,-1]]", List, []any{[][]float64{{1, 1}}, [][]float64{{1, -1}}}, "[[1,1]],[[1,-1]]"},
		{"env.actions=[1,-1],[-1,1]", List, []any{[]float64{1, -1}, []float64{-1, 1}}, "[1,-1],[-1,1]"},
		{"confidence.b_psi=auto,3", List, []any{"auto", "3"}, "auto,3"},
		// Ranges: exact endpoints, 12 significant digits inside, whole
		// numbers for integer keys.
		{"lambda=lin:0:1:11", Lin, nil, "0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1"},
		{"lambda=log:1e-6:1e-2:5", Log, []any{1e-6, 1e-5, 1e-4, 1e-3, 1e-2}, "1e-06,1e-05,0.0001,0.001,0.01"},
		{"planner.n_rollouts=log:1:1000:4", Log, []any{int64(1), int64(10), int64(100), int64(1000)}, "1,10,100,1000"},
		{"planner.tau=lin:10:1:10", Lin, nil, "10,9,8,7,6,5,4,3,2,1"},
		{"seed=lin:0:4:5", Lin, []any{uint64(0), uint64(1), uint64(2), uint64(3), uint64(4)}, "0,1,2,3,4"},
		{"confidence.alpha1=log:0.5:2:3", Log, []any{"0.5", "1", "2"}, "0.5,1,2"},
	} {
		a, err := ParseSet(tc.arg)
		if err != nil {
			t.Errorf("%s: %v", tc.arg, err)
			continue
		}
		if a.Scale != tc.scale || strings.Join(a.Texts, ",") != tc.texts {
			t.Errorf("%s: scale %v texts %v, want %v %s", tc.arg, a.Scale, a.Texts, tc.scale, tc.texts)
		}
		if tc.want != nil && !reflect.DeepEqual(a.Values, tc.want) {
			t.Errorf("%s: values %#v, want %#v", tc.arg, a.Values, tc.want)
		}
	}
}

func TestParseSetErrors(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"planner.tau", "want KEY=VALUES"},
		{"=1,2", "want KEY=VALUES"},
		{"planner.ta=1,2", `unknown config key "planner.ta"; did you mean planner.tau?`},
		{"planner=1", "planner is a section, not a key"},
		{"workers=1,2", "workers cannot be swept"},
		{"name=a,b", "name cannot be swept"},
		{"estimate.n=10,20", "estimate.n cannot be swept"},
		{"planner.tau=1,x", `planner.tau: "x" must be an integer`},
		{"planner.tau=1,2.5", `planner.tau: "2.5" must be an integer`},
		{"lambda=1,,2", "empty value"},
		{"planner.tau=5,5", "value 5 is given twice"},
		{"lambda=0.1,1e-1", "value 0.1 is given twice"},
		{"planner.common_random_numbers=yes", "must be true or false"},
		{"planner.tau=lin:1:2:3", "gives 1.5, which is not a whole number"},
		{"planner.n_rollouts=log:10:100:4", "gives 21.5443469003, which is not a whole number"},
		{"lambda=log:0:1:3", "a log range needs FROM > 0 and TO > 0"},
		{"lambda=lin:0:1:1", "COUNT must be a whole number in [2, 10000]"},
		{"lambda=lin:0:1", "want lin:FROM:TO:COUNT"},
		{"lambda=lin:0:inf:3", "FROM and TO must be finite numbers"},
		{"planner.rollout=lin:1:2:2", "ranges are for numeric keys, and planner.rollout is a text key"},
		{"seed=lin:-1:1:3", "outside [0, 2^64)"},
		{"env.w0=1,2", "must be a list of lists"},
		// Text after a bracketed value is refused, not dropped.
		{"env.w0=[[1,1]];[[2,2]]", `env.w0: "[[1,1]];[[2,2]]" must be one list such as [[1, 0.5]], with nothing after its closing bracket`},
		{"env.w0=[[1,1]]junk", `env.w0: "[[1,1]]junk" must be one list`},
		{"env.actions=[1,-1]]", `env.actions: "[1,-1]]": unbalanced brackets: a ] closes no [`},
		{"env.actions=[1,-1],[1", `env.actions: "[1,-1],[1": unbalanced brackets: a [ is not closed`},
		{"env.actions=[1,-1]x,[-1,1]", `env.actions: "[1,-1]x" must be one list`},
		{"env.actions=[-1,1],[1,-1]junk", `env.actions: "[1,-1]junk" must be one list`},
	} {
		_, err := ParseSet(tc.arg)
		if err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--set %s: err = %v, want an input error containing %q", tc.arg, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), "--set "+tc.arg) {
			t.Errorf("--set %s: the error does not quote the argument: %v", tc.arg, err)
		}
	}
}

func TestLogSpaced(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want bool
	}{
		{"planner.tau=1,2,3,5,10", true},
		{"planner.n_rollouts=10,30,100", true},
		{"planner.tau=1,2,3,4,5", false},
		{"planner.tau=1,10", false},            // two values say nothing about spacing
		{"lambda=0.1,0.2,0.3", false},          // spans less than a factor 10
		{"lambda=0,0.01,1", false},             // not positive
		{"lambda=log:1e-3:1:2", true},          // a log range always
		{"lambda=lin:0.001:1:3", false},        // a lin range never
		{"planner.rollout=sample,mean", false}, // not numbers
	} {
		a, err := ParseSet(tc.arg)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.LogSpaced(); got != tc.want {
			t.Errorf("%s: LogSpaced = %v, want %v", tc.arg, got, tc.want)
		}
	}
}

func mustGrid(t *testing.T, args ...string) *Grid {
	t.Helper()
	var axes []*Axis
	for _, s := range args {
		a, err := ParseSet(s)
		if err != nil {
			t.Fatal(err)
		}
		axes = append(axes, a)
	}
	g, err := Combine(nil, axes, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPointsAndNames(t *testing.T) {
	g := mustGrid(t, "planner.tau=1,5", "planner.n_rollouts=10,30,100")
	pts := g.Points()
	var names []string
	for _, p := range pts {
		names = append(names, p.Name)
	}
	want := []string{
		"planner.tau=1,planner.n_rollouts=10", "planner.tau=1,planner.n_rollouts=30", "planner.tau=1,planner.n_rollouts=100",
		"planner.tau=5,planner.n_rollouts=10", "planner.tau=5,planner.n_rollouts=30", "planner.tau=5,planner.n_rollouts=100",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if !reflect.DeepEqual(pts[4].Coords, []int{1, 1}) || pts[4].Index != 4 {
		t.Errorf("point 4: %+v", pts[4])
	}
	s := g.Settings(pts[5].Coords)
	if s[0].Key != "planner.tau" || s[0].Value != int64(5) || s[1].Value != int64(100) || s[1].Source != "--set" {
		t.Errorf("settings %+v", s)
	}

	// Unsafe bytes are escaped, so names stay one path component and
	// distinct.
	g = mustGrid(t, "env.w0=[[1,1]],[[1,-1]]", "planner.rollout=sample,mean")
	n := g.DirName([]int{1, 0})
	if n != "env.w0=%5B%5B1%2C-1%5D%5D,planner.rollout=sample" {
		t.Errorf("escaped name %q", n)
	}
	// Messages name a point by its readable label, not its directory.
	if p := g.Points()[2]; p.Name != n || p.Label != "env.w0=[[1,-1]],planner.rollout=sample" {
		t.Errorf("point 2: name %q, label %q", p.Name, p.Label)
	}
	// Long names keep a unique hash.
	long := mustGrid(t, "env.reward.centers=["+strings.Repeat("0.123456789,", 40)+"1],["+strings.Repeat("0.123456789,", 40)+"2]")
	a, b := long.DirName([]int{0}), long.DirName([]int{1})
	if len(a) != maxName || len(b) != maxName || a == b || !strings.Contains(a, "~") {
		t.Errorf("long names %q (%d), %q (%d)", a, len(a), b, len(b))
	}
	for _, name := range []string{n, a, b} {
		if strings.ContainsAny(name, "/\\ []*?'\"$") {
			t.Errorf("name %q holds an unsafe character", name)
		}
	}
}

func TestCombine(t *testing.T) {
	fileAxis, _ := ParseSet("planner.tau=1,2")
	fileAxis.Source = "a.yaml line 3"
	other, _ := ParseSet("lambda=0.1,1")
	other.Source = "a.yaml line 4"
	set, _ := ParseSet("planner.tau=3,4,5")
	var notes []string
	g, err := Combine([]*Axis{fileAxis, other}, []*Axis{set}, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Keys(), " ") != "planner.tau lambda" || g.Axes[0] != set || g.Size() != 6 {
		t.Errorf("combined grid %v (size %d)", g.Keys(), g.Size())
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "--set planner.tau=3,4,5 replaces the sweep of planner.tau in a.yaml line 3") {
		t.Errorf("notes %q", notes)
	}
	if _, err := Combine(nil, []*Axis{set, set}, nil); err == nil || !strings.Contains(err.Error(), "--set planner.tau is given twice") {
		t.Errorf("twice: %v", err)
	}
	if _, err := Combine(nil, nil, nil); err == nil || !strings.Contains(err.Error(), "nothing to sweep") {
		t.Errorf("empty: %v", err)
	}
	big1, _ := ParseSet("lambda=lin:0:1:101")
	big2, _ := ParseSet("confidence.scale=lin:0:1:100")
	if _, err := Combine(nil, []*Axis{big1, big2}, nil); err == nil || !strings.Contains(err.Error(), "more than 10000 points") {
		t.Errorf("too big: %v", err)
	}
}

const sweepFile = `name: tiny
seeds: 2
episodes: 3
planner:
  n_rollouts: 7
sweep:
  planner.tau: [1, 3]        # a list
  lambda: "log:1e-4:1e-2:3"  # a range
agents: [sm, oracle]
`

func TestLoadFromFile(t *testing.T) {
	p := writeFile(t, "tiny.yaml", sweepFile)
	s, err := Load(config.Options{Path: p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 6 || strings.Join(s.Grid.Keys(), " ") != "planner.tau lambda" {
		t.Fatalf("points %d keys %v", len(s.Points), s.Grid.Keys())
	}
	if s.Grid.Axes[0].Source != p+" line 7" || s.Grid.Axes[1].Scale != Log {
		t.Errorf("axes %+v %+v", s.Grid.Axes[0], s.Grid.Axes[1])
	}
	// The agents line after the section still counts: its line is kept.
	p5 := s.Points[5]
	if c := p5.Config; c.Planner.Tau != 3 || c.Lambda != 1e-2 || c.Planner.NRollouts != 7 || c.Seeds != 2 ||
		!reflect.DeepEqual(c.Agents, []string{"sm", "oracle"}) || c.Name != "tiny+6" || p5.Name != "planner.tau=3,lambda=0.01" {
		t.Errorf("point 5: %s %+v", p5.Name, p5.Config)
	}
	// The point's config is the one config.Load gives with the same keys
	// set in a file.
	direct := testutil.LoadConfig(t, writeFile(t, "d.yaml", "name: tiny+6\nseeds: 2\nepisodes: 3\nagents: [sm, oracle]\nlambda: 0.01\nplanner: {n_rollouts: 7, tau: 3}\n"))
	if !direct.Equal(p5.Config) {
		t.Errorf("point config differs from the direct config:\n%+v\n%+v", p5.Config, direct)
	}

	// sweep.yaml reads back to the same sweep.
	b, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if !IsDir(dir) || IsDir(t.TempDir()) {
		t.Error("IsDir")
	}
	back, err := LoadDir(dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if d := s.Grid.Diff(back.Grid); d != "" || back.Grid.Axes[1].Scale != Log {
		t.Errorf("manifest round trip: %s", d)
	}
	for i := range s.Points {
		if !s.Points[i].Config.Equal(back.Points[i].Config) || s.Points[i].Name != back.Points[i].Name {
			t.Errorf("point %d differs after the round trip", i)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	// A value that makes a point invalid is refused, naming the point,
	// the key and where the value came from.
	p := writeFile(t, "a.yaml", "sweep:\n  planner.tau: [0, 2]\n")
	_, err := Load(config.Options{Path: p}, nil)
	if err == nil || !errors.Is(err, errs.ErrInvalidInput) ||
		!strings.Contains(err.Error(), "sweep point planner.tau=0: "+p+" line 2: planner.tau: must be >= 1, got 0") {
		t.Errorf("invalid point: %v", err)
	}
	// A value whose problem lies in a combination names the point too.
	_, err = Load(config.Options{}, []string{"env.family.dim=1,2"})
	if err == nil || !strings.Contains(err.Error(), "sweep point env.family.dim=2: ") || !strings.Contains(err.Error(), "env.w0") {
		t.Errorf("invalid combination: %v", err)
	}
	// Points are named in messages as KEY=VALUE, not %-encoded.
	_, err = Load(config.Options{}, []string{"env.w0=[]", "planner.tau=1,2"})
	if err == nil || !strings.Contains(err.Error(), "sweep point env.w0=[],planner.tau=1: --set: env.w0: is empty") || strings.Contains(err.Error(), "%5B") {
		t.Errorf("point label: %v", err)
	}
	_, err = Load(config.Options{}, []string{"planner.tau=0,-1,2"})
	if err == nil || !strings.Contains(err.Error(), "(and 1 more invalid points)") {
		t.Errorf("two invalid points: %v", err)
	}
	// The base alone need not be valid: only its points run.
	p = writeFile(t, "b.yaml", "planner:\n  tau: 0\nsweep:\n  planner.tau: [1, 2]\n")
	if _, err := Load(config.Options{Path: p}, nil); err != nil {
		t.Errorf("invalid base, valid points: %v", err)
	}
	// A swept key that SMRL_* also sets contradicts it.
	_, err = Load(config.Options{Environ: []string{"SMRL_PLANNER_TAU=4"}}, []string{"planner.tau=1,2"})
	if err == nil || !strings.Contains(err.Error(), "--set sweeps planner.tau, which SMRL_PLANNER_TAU also sets") {
		t.Errorf("env conflict: %v", err)
	}
	// Two values that are one config.
	_, err = Load(config.Options{Environ: []string{"SMRL_AGENTS=sm-ucb"}}, []string{"confidence.b_psi=3,3.0"})
	if err == nil || !strings.Contains(err.Error(), "sweep points confidence.b_psi=3 and confidence.b_psi=3.0 have the same config") {
		t.Errorf("same config: %v", err)
	}
	// A key of a section the run does not use (rss plans with no CEM
	// settings) would run the same trials under two names: the schema
	// says so.
	_, err = Load(config.Options{}, []string{"planner.cem.population=8,16"})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "planner.cem.population: is set but planner.kind is rss") {
		t.Errorf("unused key: %v", err)
	}
	// So does a key only another family reads, and 0 and −0 are one point.
	_, err = Load(config.Options{}, []string{"env.family.sigma=1,2"})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "env.family.sigma: is set but env.family.kind is custom-sin") {
		t.Errorf("unused family key: %v", err)
	}
	_, err = Load(config.Options{}, []string{"lambda=0,-0"})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "have the same config") {
		t.Errorf("lambda=0,-0: %v", err)
	}
	// Used, it is a grid.
	if _, err := Load(config.Options{Environ: []string{"SMRL_PLANNER_KIND=cem"}}, []string{"planner.cem.population=8,16"}); err != nil {
		t.Errorf("a used key: %v", err)
	}
	for _, tc := range []struct{ body, want string }{
		{"sweep:\n  planner.tau: [1, 2]\nsweep:\n  lambda: [1]\n", "line 3: a second sweep: section (the first is at line 1)"},
		{"sweep: [1, 2]\n", "line 1: sweep: want a mapping from config keys to values"},
		{"sweep:\n  planner.tau: [1, 2]\n  planner.tau: [3]\n", "line 3: sweep.planner.tau is swept twice (first at line 2)"},
		{"sweep:\n  planner.tau: [1, 2.5]\n", "c.yaml line 2: sweep: planner.tau: want a whole number, got \"2.5\""},
		{"sweep:\n  planner.tau:\n    - 1\n    - 2.5\n", "c.yaml line 4: sweep: planner.tau: want a whole number, got \"2.5\""},
		{"sweep:\n  planner.tau: {a: 1}\n", "want a list of values or a range"},
		{"sweep:\n  planner.ta: [1]\n", "did you mean planner.tau?"},
		{"sweep:\n  env.w0: [1, 2]\n", "c.yaml line 2: sweep: env.w0: want a list of lists of numbers, e.g. [[1, 0.5]], got \"1\""},
		{"sweep:\n  agents: [sm]\n", "c.yaml line 2: sweep: agents: want a list of agent names, e.g. [sm, lds], got \"sm\""},
		{"sweep:\n  env.actions: [[1, -1], 2]\n", "c.yaml line 2: sweep: env.actions: want a list of numbers, e.g. [1, 0.5], got \"2\""},
		{"sweep:\n  planner.tau: [[1]]\n", "c.yaml line 2: sweep: planner.tau: want a single value, got a list"},
		{"sweep:\n  env.w0: \"[[1,1]]junk\"\n", `env.w0: "[[1,1]]junk" must be one list such as [[1, 0.5]], with nothing after its closing bracket`},
		{"sweep:\n  env.actions: \"[1,-1]], [-1,1]\"\n", `env.actions: "[1,-1]], [-1,1]": unbalanced brackets`},
		{"sweep:\n  planner.tau: lin:1:2:3\n", "gives 1.5, which is not a whole number"},
		{"{episodes: 2, sweep: {planner.tau: [1]}}\n", "block style"},
		{"sweep: {}\n", "nothing to sweep"},
		{"sweep:\n  planner.tau: [1, 2]\n---\nsweep:\n  lambda: [1]\n", "c.yaml line 3: a second YAML document starts here"},
	} {
		p := writeFile(t, "c.yaml", tc.body)
		_, err := Load(config.Options{Path: p}, nil)
		if err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.body, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "sweep: line ") {
			t.Errorf("%q: err = %v names the line twice", tc.body, err)
		}
	}
	// A sweep directory's manifest with a second document is refused too.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte("seeds: 1\nsweep:\n  planner.tau: [1, 2]\n---\nseeds: 3\n"), 0o644)
	if _, err := LoadDir(dir); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), ManifestFile+" line 4: a second YAML document") {
		t.Errorf("manifest with two documents: %v", err)
	}
	// smrl run and the other commands refuse a file with a grid.
	p = writeFile(t, "d.yaml", "episodes: 3\nsweep:\n  planner.tau: [1, 2]\nseeds: 2\n")
	if _, err := config.Load(config.Options{Path: p}); err == nil || !strings.Contains(err.Error(), "line 2: the sweep: section is a grid for smrl sweep") {
		t.Errorf("config.Load of a sweep file: %v", err)
	}
	// The lines after the cut section keep their numbers in errors.
	p = writeFile(t, "e.yaml", "episodes: 3\nsweep:\n  planner.tau: [1, 2]\nseeds: x\n")
	if _, err := Load(config.Options{Path: p}, nil); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("line numbers after the section: %v", err)
	}
}

func TestTableRoundTrip(t *testing.T) {
	p := writeFile(t, "tiny.yaml", sweepFile)
	s, err := Load(config.Options{Path: p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	for _, pt := range s.Points {
		for j, a := range s.Agents() {
			rows = append(rows, Row{Point: pt.Name, Values: s.Grid.Texts(pt.Coords), Agent: a, Seeds: 2, Episode: 3,
				CumReward: Stat{1.5, 1, 2}, CumRegret: Stat{float64(j), math.NaN(), math.NaN()}, RegretSlope: 0.5,
				FinalReturn: Stat{0.1, 0.05, 0.15}, WError: math.NaN()})
		}
	}
	var buf bytes.Buffer
	if err := s.Grid.WriteTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(buf.String(), "\n", 3)
	if first[0] != "point,planner.tau,lambda,agent,seeds,episode,cum_reward_mean,cum_reward_lo,cum_reward_hi,cum_regret_mean,cum_regret_lo,cum_regret_hi,regret_slope,final_return_mean,final_return_lo,final_return_hi,w_error_mean" ||
		first[1] != `"planner.tau=1,lambda=0.0001",1,0.0001,sm,2,3,1.5,1,2,0,,,0.5,0.1,0.05,0.15,` {
		t.Errorf("sweep.csv starts\n%s\n%s", first[0], first[1])
	}
	path := filepath.Join(t.TempDir(), TableFile)
	os.WriteFile(path, buf.Bytes(), 0o644)
	back, err := s.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) || back[3].CumRegret.Mean != 1 || !math.IsNaN(back[3].CumRegret.Lo) || back[3].FinalReturn != rows[3].FinalReturn {
		t.Errorf("read back %+v", back[3])
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	for _, tc := range []struct{ body, want string }{
		{strings.Join(lines[:len(lines)-2], ""), "has 11 rows but the sweep has 12"},
		{strings.TrimSuffix(buf.String(), "\n"), "does not end with a newline"},
		{strings.Replace(buf.String(), "sm,2,3,1.5", "sm,2,3,x", 1), "line 2, column 7 (cum_reward_mean): \"x\" is not a number"},
		// NaN and ±Inf are never smrl's output: it writes NaN as an empty cell.
		{strings.Replace(buf.String(), "sm,2,3,1.5,1,", "sm,2,3,1.5,NaN,", 1), "line 2, column 8 (cum_reward_lo): \"NaN\" is not a finite number"},
		{strings.Replace(buf.String(), "sm,2,3,1.5,1,", "sm,2,3,1.5,Inf,", 1), "line 2, column 8 (cum_reward_lo): \"Inf\" is not a finite number"},
		{strings.Replace(buf.String(), "sm,2,3,1.5,1,2,0,", "sm,2,3,1.5,1,2,-Inf,", 1), "line 2, column 10 (cum_regret_mean): \"-Inf\" is not a finite number"},
		{strings.Replace(buf.String(), ",0.5,0.1,", ",+Inf,0.1,", 1), "line 2, column 13 (regret_slope): \"+Inf\" is not a finite number"},
		{strings.Replace(buf.String(), "sm,2,3,1.5", "sm,2,3,", 1), "line 2, column 7 (cum_reward_mean): empty cell"},
		// seeds and episode are those of the point's config.
		{strings.Replace(buf.String(), "sm,2,3,", "sm,999,3,", 1), "line 2, column 5 (seeds): 999, but the point's config has seeds = 2"},
		{strings.Replace(buf.String(), "sm,2,3,", "sm,2,-5,", 1), "line 2, column 6 (episode): -5 is less than 1"},
		{strings.Replace(buf.String(), "sm,2,3,", "sm,2,2,", 1), "line 2, column 6 (episode): 2, but the point's config has episodes = 3"},
		{strings.Replace(buf.String(), "sm,2,3,", "sm,2.0,3,", 1), "line 2, column 5 (seeds): \"2.0\" is not an integer"},
		{strings.Replace(buf.String(), "oracle", "lds", 1), "line 3: want point planner.tau=1,lambda=0.0001, agent oracle"},
		{strings.Replace(buf.String(), "point,", "pt,", 1), "line 1: header"},
	} {
		os.WriteFile(path, []byte(tc.body), 0o644)
		if _, err := s.ReadTable(path); err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
	// seeds swept: its key column replaces the seeds column.
	g := mustGrid(t, "seeds=2,3")
	if h := strings.Join(g.Header(), ","); strings.Count(h, "seeds") != 1 {
		t.Errorf("header with seeds swept: %s", h)
	}
}

// Every shipped config with a grid loads as a sweep with every point
// valid; the planner ablation is τ ∈ {1, 2, 3, 5, 10} × rollouts ∈ {10,
// 30, 100} on the paper's MDP.
func TestShippedSweeps(t *testing.T) {
	files, _ := filepath.Glob("../../configs/*.yaml")
	found := false
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("\nsweep:")) {
			continue
		}
		s, err := Load(config.Options{Path: p}, nil)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if filepath.Base(p) != "ablation-tau-rollouts.yaml" {
			continue
		}
		found = true
		if got := s.Grid.describe(); got != "planner.tau (5) × planner.n_rollouts (3)" || s.Grid.Axes[0].Scale != List ||
			strings.Join(s.Grid.Axes[0].Texts, ",") != "1,2,3,5,10" || strings.Join(s.Grid.Axes[1].Texts, ",") != "10,30,100" {
			t.Errorf("ablation grid %s", got)
		}
		paper := testutil.LoadConfig(t, "")
		c := *s.Points[len(s.Points)-1].Config
		if c.Seeds != 10 || c.Episodes != 50 || strings.Join(c.Agents, ",") != "sm,lds,oracle" || c.Planner.Tau != 10 || c.Planner.NRollouts != 100 {
			t.Errorf("ablation point %+v", c)
		}
		c.Name, c.Seeds, c.Planner.Tau, c.Planner.NRollouts = paper.Name, paper.Seeds, paper.Planner.Tau, paper.Planner.NRollouts
		c.Agents = paper.Agents
		if !c.Equal(paper) {
			t.Errorf("the ablation's MDP or settings differ from the paper's beyond seeds and the grid:\n%+v\n%+v", c, *paper)
		}
		if !s.Grid.Axes[0].LogSpaced() || !s.Grid.Axes[1].LogSpaced() {
			t.Error("the ablation's keys are not drawn on log axes")
		}
	}
	if !found {
		t.Error("configs/ablation-tau-rollouts.yaml not found")
	}
}

// Issue 19, item 12: the --set list grammar. A list key's value is written
// in brackets on every command: sweep's --set (several points, split at
// the commas outside brackets) and the one-value --set of run, compare,
// estimate and config (ParseOne), where a bare 1,-1 would otherwise read
// as one list on one command and as two points on another.
func TestSetListGrammar(t *testing.T) {
	for _, tc := range []struct {
		arg               string
		one               any   // ParseOne's value; nil: refused with wantOne
		many              []any // ParseSet's values; nil: refused with wantMany
		wantOne, wantMany string
	}{
		{arg: "env.actions=[1,-1]", one: []float64{1, -1}, many: []any{[]float64{1, -1}}},
		{arg: "env.actions=[1,-1],[2,-2]", wantOne: "gives 2 values", many: []any{[]float64{1, -1}, []float64{2, -2}}},
		{arg: "env.actions=1,-1", wantOne: "env.actions is a list key: write its value in brackets: env.actions=[1,-1]",
			wantMany: "env.actions is a list key: write each of its values in brackets: env.actions=[1,-1] is one point"},
		{arg: "env.actions=1", wantOne: "write its value in brackets: env.actions=[1]", wantMany: "env.actions=[1] is one point"},
		{arg: "env.actions= 1,-1", wantOne: "env.actions=[1,-1]", wantMany: "write each of its values in brackets"},
		{arg: "model.family=[gaussian,relu]", one: []string{"gaussian", "relu"}, many: []any{[]string{"gaussian", "relu"}}},
		{arg: "model.family=gaussian", wantOne: "model.family=[gaussian]", wantMany: "model.family=[gaussian] is one point"},
		// agents is a list key like env.actions (issue 38: it may be swept).
		{arg: "agents=[sm,lds]", one: []string{"sm", "lds"}, many: []any{[]string{"sm", "lds"}}},
		{arg: "agents=[sm,oracle],[lds,oracle]", wantOne: "gives 2 values", many: []any{[]string{"sm", "oracle"}, []string{"lds", "oracle"}}},
		{arg: "agents=sm,lds", wantOne: "agents is a list key: write its value in brackets: agents=[sm,lds]", wantMany: "agents=[sm,lds] is one point"},
		// Keys a sweep cannot vary take one value, in the same grammar.
		{arg: "estimate.sweep_n=[100,200]", one: []int{100, 200}, wantMany: "estimate.sweep_n cannot be swept"},
		{arg: "estimate.sweep_n=100,200", wantOne: "estimate.sweep_n=[100,200]", wantMany: "estimate.sweep_n cannot be swept"},
		// A list of lists keeps its own grammar; scalars are unchanged.
		{arg: "env.w0=[[1,-1]]", one: [][]float64{{1, -1}}, many: []any{[][]float64{{1, -1}}}},
		{arg: "planner.tau=3", one: int64(3), many: []any{int64(3)}},
	} {
		s, err := ParseOne(tc.arg)
		switch {
		case tc.one == nil && (err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.wantOne)):
			t.Errorf("ParseOne(%s): err = %v, want an input error containing %q", tc.arg, err, tc.wantOne)
		case tc.one != nil && err != nil:
			t.Errorf("ParseOne(%s): %v", tc.arg, err)
		case tc.one != nil && !reflect.DeepEqual(s.Value, tc.one):
			t.Errorf("ParseOne(%s) = %#v, want %#v", tc.arg, s.Value, tc.one)
		}
		a, err := ParseSet(tc.arg)
		switch {
		case tc.many == nil && (err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.wantMany)):
			t.Errorf("ParseSet(%s): err = %v, want an input error containing %q", tc.arg, err, tc.wantMany)
		case tc.many != nil && err != nil:
			t.Errorf("ParseSet(%s): %v", tc.arg, err)
		case tc.many != nil && !reflect.DeepEqual(a.Values, tc.many):
			t.Errorf("ParseSet(%s) = %#v, want %#v", tc.arg, a.Values, tc.many)
		}
	}
}

// Issue 35, item 3: a sweep of more than MaxTrials trials (points × agents
// × seeds) is refused when it is loaded, naming the count; at the cap it
// loads.
func TestLoadTrialCap(t *testing.T) {
	env := []string{"SMRL_SEEDS=1000000", "SMRL_AGENTS=sm"}
	_, err := Load(config.Options{Environ: env}, []string{"planner.tau=1,2"})
	want := "the sweep has 2000000 trials (points × agents × seeds: 2 × up to 1 × up to 1000000), more than the 1000000 a sweep may run"
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), want) {
		t.Errorf("2 000 000 trials: %v, want %q", err, want)
	}
	// Seeds swept: the points' trials add up.
	_, err = Load(config.Options{Environ: []string{"SMRL_AGENTS=sm,lds"}}, []string{"seeds=1,500000"})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "the sweep has 1000002 trials") {
		t.Errorf("1 000 002 trials: %v", err)
	}
	if _, err := Load(config.Options{Environ: []string{"SMRL_AGENTS=sm", "SMRL_SEEDS=500000"}}, []string{"planner.tau=1,2"}); err != nil {
		t.Errorf("MaxTrials trials: %v", err)
	}
}
