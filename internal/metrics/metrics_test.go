package metrics

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// A line is on disk as soon as Write returns (no buffer holds it), NaN
// |Ŵ − W0| is left out, and Read gives back what was written.
func TestWriteIsVisibleAtOnce(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := []Line{NewLine("sm", 0, 1, 10, -1.5, 0.25, 0.01, 0.02), NewLine("oracle", 1, 1, 10, 2, math.NaN(), 0.5, 0.75)}
	for i, l := range in {
		if err := w.Write(l); err != nil {
			t.Fatal(err)
		}
		got, err := Read(filepath.Join(dir, File))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != i+1 {
			t.Fatalf("after %d writes the file holds %d lines", i+1, len(got))
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, File))
	want := `{"agent":"sm","seed":0,"episode":1,"steps":10,"return":-1.5,"w_error":0.25,"episode_seconds":0.01,"wall_seconds":0.02}
{"agent":"oracle","seed":1,"episode":1,"steps":10,"return":2,"episode_seconds":0.5,"wall_seconds":0.75}
`
	if string(b) != want {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
}

// Append keeps the lines and cuts a partial last line; Create replaces;
// Read skips a last line still being written and names a bad line.
func TestAppendCreateRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, File)
	os.WriteFile(p, []byte(`{"agent":"sm","seed":0,"episode":1,"steps":3,"return":1,"episode_seconds":0,"wall_seconds":0}`+"\n"+`{"agent":"s`), 0o644)
	if got, err := Read(p); err != nil || len(got) != 1 {
		t.Fatalf("Read of a file with a partial last line: %d lines, %v", len(got), err)
	}
	w, err := Append(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(NewLine("lds", 2, 1, 3, 4, 1, 0, 0))
	w.Close()
	got, err := Read(p)
	if err != nil || len(got) != 2 || got[1].Agent != "lds" || got[1].Seed != 2 {
		t.Fatalf("after Append: %+v, %v", got, err)
	}
	w, _ = Create(dir)
	w.Close()
	if got, _ := Read(p); len(got) != 0 {
		t.Errorf("Create kept %d lines", len(got))
	}
	for _, bad := range []string{`{"agent":"sm","seed":0,"episode":0,"steps":1,"return":1}`, `{"agent":"sm","bogus":1}`, `[1,2]`} {
		os.WriteFile(p, []byte(`{"agent":"sm","seed":0,"episode":1,"steps":3,"return":1}`+"\n"+bad+"\n"), 0o644)
		_, err := Read(p)
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("Read of %s: err = %v, want invalid input naming line 2", bad, err)
		}
	}
}

// Curves against a hand computation: means over the seeds that finished
// each episode, in the given order of agents, a repeated episode counted
// once (its last line).
func TestCurvesByHand(t *testing.T) {
	ls := []Line{
		{Agent: "sm", Seed: 1, Episode: 1, Return: 4},
		{Agent: "oracle", Seed: 0, Episode: 1, Return: 10},
		{Agent: "sm", Seed: 0, Episode: 1, Return: 1},
		{Agent: "sm", Seed: 0, Episode: 2, Return: 3},
		{Agent: "zz", Seed: 0, Episode: 1, Return: 7},
		{Agent: "sm", Seed: 1, Episode: 1, Return: 5}, // recomputed after a resume
	}
	got := Curves(ls, []string{"oracle", "sm"})
	if len(got) != 3 || got[0].Agent != "oracle" || got[1].Agent != "sm" || got[2].Agent != "zz" {
		t.Fatalf("agents %+v, want oracle, sm, zz", got)
	}
	sm := got[1]
	// episode 1: (1 + 5)/2 = 3 over 2 seeds; episode 2: 3 over 1 seed.
	if len(sm.Mean) != 2 || sm.Mean[0] != 3 || sm.N[0] != 2 || sm.Mean[1] != 3 || sm.N[1] != 1 {
		t.Errorf("sm curve %+v, want means [3 3] over [2 1] seeds", sm)
	}
}

// The ETA from measured episode times per agent, on synthetic timings: a
// run whose slow agent comes first. The run's average rate extrapolated
// (the old estimate) is 3× too high once the slow agent is done; the
// per-agent estimate is exact.
func TestETAOnSyntheticTimings(t *testing.T) {
	// One worker; 2 trials of "slow" (episodes of 5 s) then 4 of "fast"
	// (1 s), 10 episodes each: 100 s + 40 s = 140 s in all.
	const eps = 10
	e := NewETA(1)
	for range 2 {
		e.AddTrial("slow", eps)
	}
	for range 4 {
		e.AddTrial("fast", eps)
	}
	if _, ok := e.Remaining(); ok {
		t.Error("an ETA before any episode")
	}
	elapsed, done := 0.0, 0
	for k := range 2 * eps {
		e.Episode("slow", (k+1)%eps == 0, 5)
		elapsed += 5
		done++
	}
	// The slow trials are done (100 s); the fast ones were measured once.
	e.Episode("fast", false, 1)
	elapsed++
	done++
	got, ok := e.Remaining()
	want := 39.0 // the 39 fast episodes left
	old := elapsed / float64(done) * float64(6*eps-done)
	if !ok || !numeric.AbsWithin(got.Seconds(), want, 1e-9) {
		t.Errorf("ETA %v, want %v s", got, want)
	}
	if old/want < 3 {
		t.Errorf("the average-rate ETA is %.0f s, want it ≥ 3× the true %v s (the case the estimator fixes)", old, want)
	}
	// With 3 workers and 3 fast trials left, the work is shared by 3.
	e3 := NewETA(3)
	for range 3 {
		e3.AddTrial("fast", 2)
	}
	e3.Episode("fast", false, 2)
	if got, _ := e3.Remaining(); !numeric.AbsWithin(got.Seconds(), 5*2.0/3, 1e-9) {
		t.Errorf("ETA on 3 workers %v, want %v s", got, 5*2.0/3)
	}
	// An agent not measured yet takes the mean of all episodes so far.
	e2 := NewETA(1)
	e2.AddTrial("a", 1)
	e2.AddTrial("b", 2)
	e2.Episode("a", true, 4)
	if got, _ := e2.Remaining(); got != 8*time.Second {
		t.Errorf("ETA with an unmeasured agent %v, want 8s", got)
	}
}

// The cost of one line: a JSON encoding and one write call, against an
// episode of milliseconds (go test -bench Write ./internal/metrics).
func BenchmarkWrite(b *testing.B) {
	w, err := Create(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	l := NewLine("sm", 3, 17, 1700, -123.456789, 0.0123, 0.0042, 12.5)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(l); err != nil {
			b.Fatal(err)
		}
	}
}
