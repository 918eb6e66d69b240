package runner

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
)

// fakeLive is a live environment in memory: it records the seeds and the
// actions it receives.
type fakeLive struct {
	seeds   []uint64
	actions [][]float64
}

func (f *fakeLive) Open(context.Context) (env.Session, error) { return f, nil }
func (f *fakeLive) Reset(seed uint64, s []float64) error {
	f.seeds = append(f.seeds, seed)
	s[0] = float64(seed % 1000)
	return nil
}
func (f *fakeLive) Step(a, next []float64) (float64, bool, bool, error) {
	f.actions = append(f.actions, slices.Clone(a))
	next[0] = a[0]
	return -a[0] * a[0], false, len(f.actions) == 3, nil
}
func (f *fakeLive) Dynamics() env.Dynamics { return nil }
func (f *fakeLive) Err() error             { return nil }
func (f *fakeLive) Close()                 {}

// TestWorldOfALiveEnvironment: a session is reset with a seed drawn from
// the trial's environment stream, (master seed, seed index, episode), the
// same for every agent of a seed and distinct across episodes and seeds,
// below 2⁵³; box actions are clipped before they are sent, and the action
// played (recorded and observed) is the one sent; truncation ends the
// episode without marking the state terminal.
func TestWorldOfALiveEnvironment(t *testing.T) {
	c := &config.Config{Seed: 11}
	seedsOf := func(agent string, seed int) []uint64 {
		f := &fakeLive{}
		m := &env.MDP{Dim: 1, Live: f, Box: &env.Box{Low: []float64{-1}, High: []float64{2}}}
		w, err := newWorld(context.Background(), c, m, record.Trial{Agent: agent, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		defer w.close()
		s := make([]float64, 1)
		for ep := 1; ep <= 3; ep++ {
			if err := w.reset(ep, s); err != nil {
				t.Fatal(err)
			}
		}
		return f.seeds
	}
	a, b, other := seedsOf("sm", 2), seedsOf("oracle", 2), seedsOf("sm", 3)
	if !slices.Equal(a, b) {
		t.Errorf("agents of one seed get seeds %v and %v", a, b)
	}
	all := append(slices.Clone(a), other...)
	slices.Sort(all)
	if len(slices.Compact(all)) != 6 {
		t.Errorf("seeds repeat across episodes or seed indices: %v, %v", a, other)
	}
	for _, s := range all {
		if s >= 1<<53 {
			t.Errorf("seed %d is not below 2^53", s)
		}
	}
	// The first episode's seed is the stream's first draw, shifted.
	want := rand.New(rand.NewPCG(streamSeed(11, purposeEnv, 2, 1))).Uint64() >> 11
	if a[0] != want {
		t.Errorf("episode 1's seed %d, want %d", a[0], want)
	}

	f := &fakeLive{}
	m := &env.MDP{Dim: 1, Live: f, Box: &env.Box{Low: []float64{-1}, High: []float64{2}}}
	w, err := newWorld(context.Background(), c, m, record.Trial{Agent: "sm"})
	if err != nil {
		t.Fatal(err)
	}
	s, next := []float64{0}, []float64{0}
	for i, x := range []float64{-3, 1.5, 7} {
		played, r, terminal, bonus, ends, err := w.step(s, []float64{x}, next)
		want := min(max(x, -1), 2)
		if err != nil || played[0] != want || f.actions[i][0] != want || r != -want*want || terminal || bonus != 0 || ends != (i == 2) {
			t.Errorf("step %d of %v: played %v, sent %v, r %v, terminal %v, bonus %v, ends %v, err %v", i+1, x, played, f.actions[i], r, terminal, bonus, ends, err)
		}
	}
}
