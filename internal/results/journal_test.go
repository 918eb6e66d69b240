package results

import (
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
