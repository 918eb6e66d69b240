package plotting

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// Bands are clipped to the seeds' range, which a Student-t interval over
// two seeds leaves: a CartPole return of 40 and 200 (H = 200) has the t
// interval 120 ± 12.7·80 = [−896, 1136], the band [40, 200]; a pendulum
// return never rises above its best seed (≤ 0).
func TestBandsClippedToSeedRange(t *testing.T) {
	const episodes = "agent,seed,episode,reward,steps\n" +
		"sm,0,1,40,40\nsm,1,1,200,200\n" +
		"sm,0,2,-10,200\nsm,1,2,-1500,200\n" +
		"lds,0,1,7,7\n"
	path := filepath.Join(t.TempDir(), "episodes.csv")
	if err := os.WriteFile(path, []byte(episodes), 0o644); err != nil {
		t.Fatal(err)
	}
	spans, err := readSeedSpans(path, []string{"reward", "steps", "missing"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans.seeds["reward"]["sm"]) != 2 {
		t.Errorf("with seed lines: %d seeds of sm, want 2", len(spans.seeds["reward"]["sm"]))
	}
	if off, err := readSeedSpans(path, []string{"reward"}, false); err != nil || len(off.seeds["reward"]) != 0 || off.r["reward"]["sm"][1] != (span{40, 200}) {
		t.Errorf("without seed lines: seeds %v, ranges %v, err %v; want no seeds and the same ranges", off.seeds, off.r, err)
	}
	for _, tc := range []struct {
		values []float64
		lo, hi float64
	}{
		{[]float64{40, 200}, 40, 200},
		{[]float64{-10, -1500}, -1500, -10},
	} {
		st := results.MeanCI(tc.values)
		if st.Lo >= tc.lo || st.Hi <= tc.hi {
			t.Fatalf("the t interval %v does not leave [%g, %g]: the test proves nothing", st, tc.lo, tc.hi)
		}
	}
	sm := series{Name: "sm", X: []float64{1, 2}, Y: []float64{120, -755}}
	for _, v := range [][]float64{{40, 200}, {-10, -1500}} {
		st := results.MeanCI(v)
		sm.Lo, sm.Hi = append(sm.Lo, st.Lo), append(sm.Hi, st.Hi)
	}
	lds := series{Name: "lds", X: []float64{1}, Y: []float64{7}, Lo: []float64{math.NaN()}, Hi: []float64{math.NaN()}}
	other := series{Name: "mle", X: []float64{1}, Y: []float64{0}, Lo: []float64{-5}, Hi: []float64{5}}
	spans.clip([]series{sm, lds, other}, "reward")
	if sm.Lo[0] != 40 || sm.Hi[0] != 200 || sm.Lo[1] != -1500 || sm.Hi[1] != -10 {
		t.Errorf("sm band %v–%v, want [40, 200] and [−1500, −10]", sm.Lo, sm.Hi)
	}
	if !math.IsNaN(lds.Lo[0]) || other.Lo[0] != -5 || other.Hi[0] != 5 {
		t.Errorf("a band without an interval or a range changed: %v %v", lds, other)
	}
	if len(spans.r["missing"]) != 0 || spans.r["steps"]["sm"][1] != (span{40, 200}) || len(spans.seeds["reward"]["sm"][1]) != 2 {
		t.Errorf("spans %v", spans)
	}
}

// smooth is the trailing moving average over k points, shorter at the
// start, skipping undefined values; k <= 1 changes nothing.
func TestSmooth(t *testing.T) {
	nan := math.NaN()
	s := series{Y: []float64{1, 2, 3, 4, 10}, Lo: []float64{0, nan, 2, 2, 2}, Hi: []float64{2, 4, 6, 8, 10}}
	smooth([]series{s}, 3)
	want := [][]float64{{1, 1.5, 2, 3, 17.0 / 3}, {0, nan, 1, 2, 2}, {2, 3, 4, 6, 8}}
	for k, got := range [][]float64{s.Y, s.Lo, s.Hi} {
		for i := range got {
			if w := want[k][i]; math.IsNaN(w) != math.IsNaN(got[i]) || !math.IsNaN(w) && !testutil.AbsWithin(got[i], w, 1e-15) {
				t.Fatalf("row %d = %v, want %v", k, got, want[k])
			}
		}
	}
	one := series{Y: []float64{1, 5}}
	smooth([]series{one}, 1)
	if one.Y[1] != 5 {
		t.Errorf("k = 1 changed the series: %v", one.Y)
	}
	if smoothNote(1) != "" || smoothNote(4) != "; moving average over 4 episodes" {
		t.Errorf("notes %q, %q", smoothNote(1), smoothNote(4))
	}
}
