package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

const logFile = `agent,seed,episode,step,s0,s1,a0,s_next0,s_next1,reward,terminal
sm,0,1,1,0.5,-1,0.1,0.52,-0.98,1,0
sm,0,1,2,0.52,-0.98,-0.3,0.49,-0.97,1,1
sm,1,1,1,1,2,3,4,5,0.5,0
lds,0,2,1,6,7,8,9,10,-2,0
`

// A transitions log reads as a data set, and filters select its rows by
// agent, seed and episode.
func TestReadLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transitions.csv")
	if err := os.WriteFile(path, []byte(logFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		where []string
		s     []float64 // the first state coordinate of the rows kept
	}{
		{nil, []float64{0.5, 0.52, 1, 6}},
		{[]string{"agent=sm"}, []float64{0.5, 0.52, 1}},
		{[]string{"agent=sm", "seed=1"}, []float64{1}},
		{[]string{"seed=0-1", "episodes=2-"}, []float64{6}},
		{[]string{"episodes=1"}, []float64{0.5, 0.52, 1}},
	} {
		f, err := ParseFilter(tc.where)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadFileFilter(path, f)
		if err != nil {
			t.Fatalf("%v: %v", tc.where, err)
		}
		var got []float64
		for i := range d.Len() {
			got = append(got, d.State(i)[0])
		}
		if d.StateDim != 2 || d.ActionDim != 1 || !slices.Equal(got, tc.s) {
			t.Errorf("%v: d_s %d, d_a %d, s0 %v; want 2, 1, %v", tc.where, d.StateDim, d.ActionDim, got, tc.s)
		}
	}
	// AppendLog writes what Read gives back.
	b := []byte(strings.Join(LogHeader(1, 1), ",") + "\n")
	b = AppendLog(b, "sm", 3, 2, 1, []float64{0.1}, []float64{-1}, []float64{1e-300}, -0.25, true)
	d, err := Read(strings.NewReader(string(b)), "x")
	if err != nil || d.S[0] != 0.1 || d.A[0] != -1 || d.Next[0] != 1e-300 {
		t.Fatalf("AppendLog round trip: %+v, %v", d, err)
	}
}

// Bad logs and filters are invalid input naming the file, line and
// column.
func TestReadLogErrors(t *testing.T) {
	head := "agent,seed,episode,step,s,a,s_next,reward,terminal\n"
	for _, tc := range []struct {
		name, file string
		where      []string
		want       string
	}{
		{"missing step column", "agent,seed,episode,s,a,s_next,reward,terminal\nsm,0,1,1,2,3,0,0\n", nil, `line 1: column 4 is "s", expected "step"`},
		{"missing terminal", "agent,seed,episode,step,s,a,s_next,reward\nsm,0,1,1,1,2,3,0\n", nil, `line 1: column 8 is "reward", expected "terminal"`},
		{"missing run columns", "s,a,s_next,reward,terminal\n1,2,3,0,0\n", nil, `line 1: column 1 is "s", expected "agent"`},
		{"NaN state", head + "sm,0,1,1,NaN,1,2,0,0\n", nil, `line 2 column "s": NaN is not allowed`},
		{"NaN reward", head + "sm,0,1,1,0,1,2,NaN,0\n", nil, `line 2 column "reward": NaN is not allowed`},
		{"wide row", head + "sm,0,1,1,0,1,2,3,0,0\n", nil, "line 2: expected 9 fields, got 10"},
		{"short row", head + "sm,0,1,1,0,1,0,0\n", nil, "line 2: expected 9 fields, got 8"},
		{"bad seed", head + "sm,x,1,1,0,1,2,0,0\n", nil, `line 2 column "seed": "x" is not an integer`},
		{"episode 0", head + "sm,0,0,1,0,1,2,0,0\n", nil, `line 2 column "episode": 0 is less than 1`},
		{"bad terminal", head + "sm,0,1,1,0,1,2,0,2\n", nil, `line 2 column "terminal": "2" is not 0 or 1`},
		{"empty agent", head + ",0,1,1,0,1,2,0,0\n", nil, `line 2 column "agent": empty agent name`},
		{"filter without run columns", "s,a,s_next\n1,2,3\n", []string{"agent=sm"}, "line 1: a filter (agent, seeds, episodes) needs the columns agent,seed,episode,step"},
		{"nothing matches", head + "sm,0,1,1,0,1,2,0,0\n", []string{"agent=lds"}, "no transitions match the filter agent lds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.csv")
			os.WriteFile(path, []byte(tc.file), 0o644)
			f, err := ParseFilter(tc.where)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadFileFilter(path, f)
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// Each error names the term and what is wrong with it.
	for _, tc := range []struct {
		where []string
		want  string
	}{
		{[]string{"agent"}, `"agent": not key=value`},
		{[]string{"agent="}, `"agent=": not key=value`},
		{[]string{"seed=a"}, `"a" does not start with a non-negative integer`},
		{[]string{"seed=-1"}, `"-1" does not start with a non-negative integer`},
		{[]string{"episodes=abc"}, `"abc" does not start with a non-negative integer`},
		{[]string{"episodes=0"}, "episodes count from 1"},
		{[]string{"seed=3-1"}, `in "3-1", "1" is not an integer of at least 3`},
		{[]string{"seed=5-2"}, `in "5-2", "2" is not an integer of at least 5`},
		{[]string{"seed=1-"}, `in "1-", "" is not an integer of at least 1`},
		{[]string{"seed=0-99999999"}, "range 0-99999999 is too wide"},
		{[]string{"colour=red"}, `unknown key "colour"`},
		{[]string{"agent=a", "agent=b"}, "key agent given twice"},
	} {
		_, err := ParseFilter(tc.where)
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFilter(%q): err = %v, want invalid input with %q", tc.where, err, tc.want)
		}
	}
}
