package results

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
)

func TestJournalRoundTripsEveryEpisodeField(t *testing.T) {
	e := record.Episode{Episode: 3, Reward: 1.0 / 3, Steps: 9, PlusCount: 7, W: []float64{0.1, -2e-300}, SE: []float64{0.01, 3e-310}, WError: math.Pi, Beta: 2.5, Accept: 0.75, Lambda: 1e-5,
		Diag: &record.Diag{Cond: 1.5e7, MinEigN: 4e-320, WStep: 0}, Actions: []int{0, 9, 0}}
	// If Episode gains a field, set it above and teach the journal about it.
	v := reflect.ValueOf(e)
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			t.Fatalf("test does not set Episode.%s: the journal must round-trip it", v.Type().Field(i).Name)
		}
	}
	nan := record.Episode{Episode: 1, W: []float64{1}, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN(),
		Diag: &record.Diag{Cond: math.NaN(), MinEigN: math.NaN(), WStep: 1}}
	dir := t.TempDir()
	j, err := CreateJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	tr := record.Trial{Agent: "sm", Seed: 4}
	if err := j.Append(tr, []record.Episode{e, nan}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	got, err := ReadJournal(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	eps := got[tr]
	if len(eps) != 2 || !reflect.DeepEqual(eps[0], e) || !math.IsNaN(eps[1].WError) || !math.IsNaN(eps[1].Beta) || !math.IsNaN(eps[1].Accept) ||
		eps[1].Diag == nil || !math.IsNaN(eps[1].Diag.Cond) || !math.IsNaN(eps[1].Diag.MinEigN) || eps[1].Diag.WStep != 1 || eps[1].Actions != nil {
		t.Errorf("round trip: %+v", eps)
	}
}

func TestJournalErrors(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, JournalFile)
	os.WriteFile(p, []byte("{\"agent\":\"sm\",\"seed\":0,\"episodes\":[]}\nnot json\n{\"agent\":\"lds\"}\n"), 0o644)
	_, err := ReadJournal(dir, nil)
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("malformed line: %v", err)
	}
	if _, err := ReadJournal(t.TempDir(), nil); !errors.Is(err, errs.ErrInvalidInput) {
		t.Errorf("missing journal: %v", err)
	}
}

func episodes(k, wlen int) []record.Episode {
	eps := make([]record.Episode, k)
	for i := range eps {
		eps[i] = record.Episode{Episode: i + 1, Reward: float64(i), Steps: 10, PlusCount: 1, W: make([]float64, wlen)}
	}
	return eps
}

// Resuming after a crash that cut a journal line short: the partial bytes
// are dropped before the next record is appended, so every later read
// succeeds.
func TestAppendJournalDropsPartialLine(t *testing.T) {
	dir := t.TempDir()
	j, err := CreateJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.Append(record.Trial{Agent: "sm", Seed: 0}, episodes(2, 2))
	j.Close()
	p := filepath.Join(dir, JournalFile)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"agent":"sm","seed":1,"episodes":[{"epi`)
	f.Close()

	j, err = AppendJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(record.Trial{Agent: "sm", Seed: 1}, episodes(2, 2)); err != nil {
		t.Fatal(err)
	}
	j.Close()
	want := &Expect{Agents: []string{"sm"}, Seeds: 2, Episodes: 2, Horizon: 10, WLen: map[string]int{"sm": 2}}
	got, err := ReadJournal(dir, want)
	if err != nil {
		t.Fatalf("journal unreadable after resume: %v", err)
	}
	if len(got) != 2 {
		t.Errorf("read %d trials, want 2", len(got))
	}
	b, _ := os.ReadFile(p)
	if n := bytes.Count(b, []byte("\n")); n != 2 || !bytes.HasSuffix(b, []byte("}\n")) {
		t.Errorf("journal has %d lines:\n%s", n, b)
	}
	// A journal that is only a partial line is emptied.
	os.WriteFile(p, []byte(`{"agent":"s`), 0o644)
	j, err = AppendJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	if b, _ := os.ReadFile(p); len(b) != 0 {
		t.Errorf("journal holds %q, want it empty", b)
	}
}

// Every record is checked against the config; the error names the file
// and the line.
func TestReadJournalChecksRecords(t *testing.T) {
	want := &Expect{Agents: []string{"sm", "oracle"}, Seeds: 2, Episodes: 3, Horizon: 10, WLen: map[string]int{"sm": 2, "oracle": 2}}
	good := episodes(3, 2)
	dup := episodes(3, 2)
	dup[2].Episode = 2
	shortW := episodes(3, 2)
	shortW[1].W = []float64{1}
	plus := episodes(3, 2)
	plus[0].PlusCount = 11
	steps := episodes(3, 2)
	steps[2].Steps = 0
	withSE := func(se ...float64) []record.Episode {
		eps := episodes(3, 2)
		eps[1].SE = se
		return eps
	}
	withLambda := func(l float64) []record.Episode {
		eps := episodes(3, 2)
		eps[2].Lambda = l
		return eps
	}
	for _, tc := range []struct {
		name   string
		trial  record.Trial
		eps    []record.Episode
		frag   string
		saveSE bool
		grid   []float64 // cv.grid with lambda: cv
	}{
		{"too few episodes", record.Trial{Agent: "sm", Seed: 1}, episodes(2, 2), "has 2 episodes, the config has 3", false, nil},
		{"duplicated episode", record.Trial{Agent: "sm", Seed: 1}, dup, "episode 3 is numbered 2", false, nil},
		{"wrong W length", record.Trial{Agent: "sm", Seed: 1}, shortW, "W has 1 entries", false, nil},
		{"unknown agent", record.Trial{Agent: "lds", Seed: 0}, good, `agent "lds"`, false, nil},
		{"seed out of range", record.Trial{Agent: "sm", Seed: 2}, good, "seed 2", false, nil},
		{"plus_count above its steps", record.Trial{Agent: "sm", Seed: 1}, plus, "plus_count 11", false, nil},
		{"no steps", record.Trial{Agent: "sm", Seed: 1}, steps, "steps 0 is outside [1, 10]", false, nil},
		{"se without stats.save_se", record.Trial{Agent: "sm", Seed: 1}, withSE(0.1, 0.2), "stats.save_se is off", false, nil},
		{"se shorter than W", record.Trial{Agent: "sm", Seed: 1}, withSE(0.1), "se has 1 entries, W 2", true, nil},
		{"se longer than W", record.Trial{Agent: "sm", Seed: 1}, withSE(0.1, 0.2, 0.3), "se has 3 entries, W 2", true, nil},
		{"negative se", record.Trial{Agent: "sm", Seed: 1}, withSE(0.1, -0.2), "negative standard error", true, nil},
		{"lambda without lambda: cv", record.Trial{Agent: "sm", Seed: 1}, withLambda(0.1), "lambda is not cv", false, nil},
		{"lambda off the grid", record.Trial{Agent: "sm", Seed: 1}, withLambda(0.5), "lambda 0.5 is not one of cv.grid [0.1 1]", false, []float64{0.1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j, _ := CreateJournal(dir)
			j.Append(record.Trial{Agent: "sm", Seed: 0}, good)
			j.Append(tc.trial, tc.eps)
			j.Close()
			want := *want
			want.SaveSE, want.CVGrid = tc.saveSE, tc.grid
			_, err := ReadJournal(dir, &want)
			if !errors.Is(err, errs.ErrInvalidInput) {
				t.Fatalf("ReadJournal: %v, want ErrInvalidInput", err)
			}
			for _, f := range []string{filepath.Join(dir, JournalFile) + " line 2", tc.frag} {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not mention %q", err, f)
				}
			}
		})
	}
	// A λ of cv.grid under lambda: cv is accepted.
	dir := t.TempDir()
	j, _ := CreateJournal(dir)
	j.Append(record.Trial{Agent: "sm", Seed: 0}, withLambda(1))
	j.Close()
	cv := *want
	cv.CVGrid = []float64{0.1, 1}
	if got, err := ReadJournal(dir, &cv); err != nil || got[record.Trial{Agent: "sm", Seed: 0}][2].Lambda != 1 {
		t.Errorf("λ of cv.grid: %v, %v", got, err)
	}
}

// A journal's action counts must agree with its plus_count (the plays of
// the first action): an edited [4, 6] beside plus_count 6 was resumed into
// an episodes.csv that contradicted itself.
func TestReadJournalActionsAgreeWithPlusCount(t *testing.T) {
	want := &Expect{Agents: []string{"sm"}, Seeds: 1, Episodes: 1, Horizon: 10, WLen: map[string]int{"sm": 2}, Actions: 2}
	for _, tc := range []struct {
		counts []int
		frag   string
	}{{[]int{1, 9}, ""}, {[]int{4, 6}, "actions counts 4 plays of the first action, plus_count 1"}} {
		eps := episodes(1, 2)
		eps[0].Actions = tc.counts
		dir := t.TempDir()
		j, _ := CreateJournal(dir)
		j.Append(record.Trial{Agent: "sm", Seed: 0}, eps)
		j.Close()
		_, err := ReadJournal(dir, want)
		if tc.frag == "" && err != nil || tc.frag != "" && (!errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.frag)) {
			t.Errorf("actions %v: err = %v, want %q", tc.counts, err, tc.frag)
		}
	}
}
