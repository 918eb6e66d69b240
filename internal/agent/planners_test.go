package agent

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// quadTask is the reward r(s, a) = −|s − g|² − 0.2|a|²: with the drift
// x_1 = x_0 + a and τ = 2 (one transition, the last state scored with the
// action held), a sequence (a) from s has the value
//
//	V(a) = −|s − g|² − 0.2|a|² − |s + a − g|² − 0.2|a|²
//	     = −1.4|a − a*|² + const,  a* = (g − s)/1.4,
//
// a 1-step quadratic problem with its optimum a* in closed form.
type quadTask struct{ g []float64 }

func (q quadTask) Reward(s, a []float64) float64 {
	var v float64
	for i := range s {
		v -= (s[i]-q.g[i])*(s[i]-q.g[i]) + 0.2*a[i]*a[i]
	}
	return v
}
func (quadTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (quadTask) Terminates() bool                   { return false }

// detDrift is driftSim declared deterministic (one rollout per sequence).
type detDrift struct{ driftSim }

func (detDrift) Deterministic() bool { return true }

func plannerConfig(kind string) config.Planner {
	c := config.Planner{Kind: kind, Mode: "random", NRollouts: 1, Tau: 2, NSequences: 4000}
	switch kind {
	case "cem":
		c.Section = &CEMConfig{Population: 200, Elites: 20, Iterations: 6, Alpha: 0, InitStd: 0.5}
	case "mppi":
		c.Section = &MPPIConfig{Samples: 20000, Temperature: 0.01, NoiseStd: 1}
	}
	return c
}

// cemOf and mppiOf return c's planner.cem and planner.mppi sections (a
// scratch value when c is of another kind).
func cemOf(c *config.Planner) *CEMConfig {
	if k, ok := c.Section.(*CEMConfig); ok {
		return k
	}
	return new(CEMConfig)
}

func mppiOf(c *config.Planner) *MPPIConfig {
	if k, ok := c.Section.(*MPPIConfig); ok {
		return k
	}
	return new(MPPIConfig)
}

// The planners' quality in closed loop is tested on configs/lq.yaml
// against the exact optimum (runner.TestLQPlannersNearOptimum).

// Over a discrete set, rss (constant mode) and cem pick the action nearest
// a* = 0.5 from {−1, −0.5, 0, 0.4, 1}: 0.4, whose value is V(0.4).
func TestDiscretePlannersFindBestAction(t *testing.T) {
	task := quadTask{g: []float64{0.7}}
	actions := [][]float64{{-1}, {-0.5}, {0}, {0.4}, {1}}
	for _, kind := range []string{"rss", "cem"} {
		c := plannerConfig(kind)
		c.Mode = "constant"
		*cemOf(&c) = CEMConfig{Population: 50, Elites: 5, Iterations: 4, Alpha: 0.1, InitStd: 1}
		pl, err := NewFromConfig(c, actions, nil, task, 1)
		if err != nil {
			t.Fatal(err)
		}
		ai, v := pl.Best(detDrift{}, []float64{0}, rand.New(rand.NewPCG(1, 2)))
		want := task.Reward([]float64{0}, []float64{0.4}) + task.Reward([]float64{0.4}, []float64{0.4})
		if ai != 3 || !testutil.AbsWithin(v, want, 1e-15) {
			t.Errorf("%s: action %d value %v, want 3 (0.4) value %v", kind, ai, v, want)
		}
	}
	if _, err := NewFromConfig(plannerConfig("mppi"), actions, nil, task, 1); err == nil {
		t.Error("mppi accepted a discrete action set")
	}
}

// Every method scores sequences with Rollouts.Value: with a terminating
// task, a model that is rolled out once, and MPPI with one sample (the
// unperturbed mean, the box's centre a = 0.5 at every step), the value is
// the closed form of TestPlannerValueWithTermination's third case.
func TestMethodsShareTheObjective(t *testing.T) {
	box := &Box{Low: []float64{0, 0}, High: []float64{1, 0}}
	c := plannerConfig("mppi")
	c.Tau, c.NRollouts, mppiOf(&c).Samples = 8, 7, 1
	pl, err := NewFromConfig(c, nil, box, walkTask{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, v := pl.Best(countingSim{&n}, []float64{0.5, 0}, rand.New(rand.NewPCG(1, 1)))
	if want := 1.5*5 + 10; v != want || n != 5 {
		t.Errorf("value %v after %d transitions, want %v after 5", v, n, want)
	}
}

// nanTask is quadTask with the value NaN for actions whose first
// coordinate exceeds cut: a model gone out of range there.
type nanTask struct {
	quadTask
	cut float64
}

func (q nanTask) Reward(s, a []float64) float64 {
	if a[0] > q.cut {
		return math.NaN()
	}
	return q.quadTask.Reward(s, a)
}

// A NaN value does not stall CEM: those sequences are neither elites nor
// the value estimate, so CEM still finds the quadratic problem's optimum
// a* (0.5 over a box, 0.4 of a discrete set) next to a region of NaN (a_0 >
// 0.6, about 12% of the first round's samples), within 0.002 (each refit
// to the 20 best of 200 shrinks σ by about 0.3, so after six σ ≈ 5e-4);
// Planner.Err still reports the NaN.
// When every value is NaN the distribution stays where it was and the
// value is −∞.
func TestCEMSkipsNonFiniteValues(t *testing.T) {
	task := nanTask{quadTask{g: []float64{0.7, -0.35}}, 0.6}
	box := &Box{Low: []float64{-1, -1}, High: []float64{1, 1}}
	pl, err := NewFromConfig(plannerConfig("cem"), nil, box, task, 2)
	if err != nil {
		t.Fatal(err)
	}
	ai, v := pl.Best(detDrift{}, []float64{0, 0}, rand.New(rand.NewPCG(7, 8)))
	a := pl.Action(ai)
	if d := math.Hypot(a[0]-0.5, a[1]+0.25); ai != BoxAction || d > 0.002 {
		t.Errorf("box: chose %v, want (0.5, −0.25) ± 0.002 (distance %.4f)", a, d)
	}
	if opt := task.Reward([]float64{0, 0}, []float64{0.5, -0.25}) + task.Reward([]float64{0.5, -0.25}, []float64{0.5, -0.25}); !(v <= opt && v > opt-1e-4) {
		t.Errorf("box: value %v, want within 1e-4 below the optimum %v", v, opt)
	}
	m := pl.Method.(*cem)
	for _, e := range m.elite {
		if r := m.ret[e]; math.IsNaN(r) || math.IsInf(r, 0) {
			t.Errorf("box: elite %d has value %v", e, r)
		}
	}
	if err := pl.Err(); !errors.Is(err, ErrNonFinite) {
		t.Errorf("box: Err() = %v, want ErrNonFinite", err)
	}

	actions := [][]float64{{-1}, {-0.5}, {0}, {0.4}, {1}}
	c := plannerConfig("cem")
	*cemOf(&c) = CEMConfig{Population: 50, Elites: 5, Iterations: 4, Alpha: 0.1, InitStd: 1}
	dtask := nanTask{quadTask{g: []float64{0.7}}, 0.6}
	pl, err = NewFromConfig(c, actions, nil, dtask, 1)
	if err != nil {
		t.Fatal(err)
	}
	ai, v = pl.Best(detDrift{}, []float64{0}, rand.New(rand.NewPCG(1, 2)))
	want := dtask.Reward([]float64{0}, []float64{0.4}) + dtask.Reward([]float64{0.4}, []float64{0.4})
	if ai != 3 || !testutil.AbsWithin(v, want, 1e-15) {
		t.Errorf("discrete: action %d value %v, want 3 (0.4) value %v", ai, v, want)
	}
	if err := pl.Err(); !errors.Is(err, ErrNonFinite) {
		t.Errorf("discrete: Err() = %v, want ErrNonFinite", err)
	}

	// Every value NaN: no elites, μ stays at the box's centre.
	pl, err = NewFromConfig(plannerConfig("cem"), nil, box, nanTask{quadTask{g: []float64{0.7, -0.35}}, -2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	ai, v = pl.Best(detDrift{}, []float64{0, 0}, rand.New(rand.NewPCG(7, 8)))
	if a := pl.Action(ai); a[0] != 0 || a[1] != 0 || !math.IsInf(v, -1) {
		t.Errorf("all NaN: chose %v with value %v, want the centre (0, 0) and −Inf", a, v)
	}
	if err := pl.Err(); !errors.Is(err, ErrNonFinite) {
		t.Errorf("all NaN: Err() = %v, want ErrNonFinite", err)
	}
}

// MPPI's warm start: Act commits the plan shifted by one step, with the
// box's centre as the new last action; Reset returns to the centre; Best
// leaves the warm start alone.
func TestMPPIWarmStart(t *testing.T) {
	box := &Box{Low: []float64{-1}, High: []float64{3}}
	c := plannerConfig("mppi")
	c.Tau, mppiOf(&c).Samples = 4, 50
	task := quadTask{g: []float64{2}}
	pl, err := NewFromConfig(c, nil, box, task, 1)
	if err != nil {
		t.Fatal(err)
	}
	m := pl.Method.(*mppi)
	rng := rand.New(rand.NewPCG(3, 3))
	pl.Act(detDrift{}, []float64{0}, rng)
	plan := append([]float64(nil), m.Result()...)
	if want := []float64{plan[1], plan[2], 1}; m.warm[0] != want[0] || m.warm[1] != want[1] || m.warm[2] != want[2] {
		t.Errorf("warm start %v after plan %v, want %v", m.warm, plan, want)
	}
	before := append([]float64(nil), m.warm...)
	pl.Best(detDrift{}, []float64{0.5}, rng)
	for i := range before {
		if m.warm[i] != before[i] {
			t.Fatalf("Best moved the warm start: %v → %v", before, m.warm)
		}
	}
	pl.Reset()
	for _, v := range m.warm {
		if v != 1 {
			t.Fatalf("after Reset the warm start is %v, want the centre 1", m.warm)
		}
	}
}

// Optimistic leaves the best candidate's plan as the method's result: of
// two models, the one whose drift reaches the goal scores higher, and the
// action played is its plan's.
func TestOptimisticKeepsBestCandidatesPlan(t *testing.T) {
	box := &Box{Low: []float64{-1}, High: []float64{1}}
	for _, kind := range []string{"cem", "mppi"} {
		c := plannerConfig(kind)
		mppiOf(&c).Samples, cemOf(&c).Population = 500, 100
		pl, err := NewFromConfig(c, nil, box, quadTask{g: []float64{0.7}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		// Candidate 1 moves twice as far: a* = 0.7·2/(4 + 0.4) ≈ 0.318 and a
		// higher value than candidate 0's (a* = 0.5).
		cands := []Simulator{detDrift{}, scaledDrift{2}}
		j, ai, v := pl.Optimistic(cands, []float64{0}, rand.New(rand.NewPCG(5, 6)))
		got := pl.Action(ai)[0]
		_, v1 := pl.Best(cands[1], []float64{0}, rand.New(rand.NewPCG(9, 9)))
		if j != 1 || !testutil.AbsWithin(got, 0.7*2/4.4, 0.05) || !testutil.AbsWithin(v, v1, 0.01) {
			t.Errorf("%s: candidate %d, action %v, value %v; want 1, ≈ %.3f, ≈ %v", kind, j, got, v, 0.7*2/4.4, v1)
		}
	}
}

// scaledDrift is x' = x + k·a, deterministic.
type scaledDrift struct{ k float64 }

func (d scaledDrift) Step(s, a []float64, _ *rand.Rand, out []float64) {
	for i := range out {
		out[i] = s[i] + d.k*a[i]
	}
}
func (scaledDrift) Deterministic() bool { return true }

// Planning allocates nothing per decision, for every kind.
func TestPlannersDoNotAllocate(t *testing.T) {
	box := &Box{Low: []float64{-1, -1}, High: []float64{1, 1}}
	for _, kind := range []string{"rss", "cem", "mppi", "cem-keep", "mppi-iterations", "rss-vote", "rss-mean"} {
		c := plannerConfig(strings.Split(kind, "-")[0])
		c.Tau, c.NRollouts, c.NSequences = 6, 3, 20
		*cemOf(&c) = CEMConfig{Population: 20, Elites: 4, Iterations: 2, Alpha: 0.1, InitStd: 0.5, Beta: 2, KeepElites: kind == "cem-keep"}
		mppiOf(&c).Samples = 20
		if kind == "mppi-iterations" {
			mppiOf(&c).Iterations = 3
		}
		b, actions := box, [][]float64(nil)
		if tb, ok := strings.CutPrefix(kind, "rss-"); ok {
			c.TieBreak, b, actions = tb, nil, [][]float64{{1, 0}, {0, 1}, {-1, -1}}
		}
		pl, err := NewFromConfig(c, actions, b, bump, 2)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		s := []float64{0.1, 0.2}
		if n := testing.AllocsPerRun(20, func() { pl.Act(driftSim{}, s, rng) }); n != 0 {
			t.Errorf("%s: %v allocations per decision", kind, n)
		}
	}
}

// Coloured noise has unit variance per step and the autocovariance of its
// spectrum: Cov(y_t, y_{t+h}) = Σ_k c_k² cos(2πkh/T) / Σ_k c_k² with c_k the
// per-frequency scales (the DC and Nyquist terms counted once), computed
// here from the spectrum directly. White noise (β = 0) is uncorrelated.
// Tolerance: 5 standard errors of a covariance estimate over n = 40000
// sequences (√(2/n) ≈ 0.007).
func TestColouredNoiseCovariance(t *testing.T) {
	const n = 40000
	for _, c := range []struct {
		t    int
		beta float64
	}{{10, 0}, {10, 2}, {15, 1}, {16, 3}} {
		cn := newColouredNoise(c.t, c.beta)
		rng := rand.New(rand.NewPCG(11, 12))
		y := make([]float64, c.t)
		cov := make([]float64, c.t) // lag h, averaged over t
		var mean float64
		for range n {
			cn.draw(rng, y)
			for h := range c.t {
				for s := 0; s+h < c.t; s++ {
					cov[h] += y[s] * y[s+h] / float64(c.t-h)
				}
			}
			mean += y[0]
		}
		// The exact autocovariance from the spectrum s_k = max(k/T, 1/T)^(−β/2).
		want := make([]float64, c.t)
		var total float64
		for k := 0; k <= c.t/2; k++ {
			w := math.Pow(math.Max(float64(k), 1)/float64(c.t), -c.beta/2)
			w2 := 4 * w * w // a conjugate pair: (2 s_k)²
			if k == 0 || 2*k == c.t {
				w2 = 2 * w * w // real, with √2 the scale
			}
			total += w2
			for h := range c.t {
				want[h] += w2 * math.Cos(2*math.Pi*float64(k*h)/float64(c.t))
			}
		}
		tol := 5 * math.Sqrt(2.0/n)
		for h := range c.t {
			got := cov[h] / n
			testutil.AbsClosef(t, got, want[h]/total, tol, "T = %d, β = %v: Cov at lag %d = %.4f, want %.4f", c.t, c.beta, h, got, want[h]/total)
		}
		if math.Abs(mean/n) > 5/math.Sqrt(n) {
			t.Errorf("T = %d, β = %v: mean %v", c.t, c.beta, mean/n)
		}
		if c.beta == 0 && math.Abs(want[1]/total) > 1e-12 {
			t.Errorf("white noise has lag-1 covariance %v", want[1]/total)
		}
		if c.beta == 2 && want[1]/total < 0.5 {
			t.Errorf("β = 2 noise has lag-1 correlation %v, want strongly positive", want[1]/total)
		}
	}
}

// With keep_elites, CEM scores the warm start itself: on the quadratic
// problem with s = g = 0 the warm start (the box's centre, a = 0) is the
// optimum, so the value estimate is exactly its value, 0; without it, no
// sampled sequence hits 0 exactly and the estimate is below.
func TestCEMKeepElitesScoresWarmStart(t *testing.T) {
	task := quadTask{g: []float64{0, 0}}
	box := &Box{Low: []float64{-1, -1}, High: []float64{1, 1}}
	for _, keep := range []bool{false, true} {
		c := plannerConfig("cem")
		*cemOf(&c) = CEMConfig{Population: 8, Elites: 2, Iterations: 3, Alpha: 0, InitStd: 0.5, KeepElites: keep}
		pl, err := NewFromConfig(c, nil, box, task, 2)
		if err != nil {
			t.Fatal(err)
		}
		_, v := pl.Best(detDrift{}, []float64{0, 0}, rand.New(rand.NewPCG(5, 6)))
		if keep && v != 0 {
			t.Errorf("keep_elites: value %v, want 0 (the warm start's)", v)
		}
		if !keep && !(v < 0) {
			t.Errorf("without keep_elites: value %v, want < 0", v)
		}
	}
}

// With keep_elites the best sequence seen stays among the elites: after a
// decision the first elite's value is the value estimate (the best of all
// rounds), for every seed; without it the last round's elites often miss
// an earlier round's best (the check that the invariant is not vacuous).
func TestCEMKeepElitesKeepsTheBest(t *testing.T) {
	task := quadTask{g: []float64{0.7, -0.35}}
	box := &Box{Low: []float64{-1, -1}, High: []float64{1, 1}}
	for _, keep := range []bool{false, true} {
		lost := 0
		for seed := range uint64(20) {
			c := plannerConfig("cem")
			*cemOf(&c) = CEMConfig{Population: 4, Elites: 2, Iterations: 4, Alpha: 0, InitStd: 0.5, KeepElites: keep}
			pl, err := NewFromConfig(c, nil, box, task, 2)
			if err != nil {
				t.Fatal(err)
			}
			_, v := pl.Best(detDrift{}, []float64{0, 0}, rand.New(rand.NewPCG(seed, 6)))
			m := pl.Method.(*cem)
			if first := m.ret[m.elite[0]]; first != v {
				lost++
				if keep {
					t.Errorf("keep_elites, seed %d: first elite's value %v, value estimate %v", seed, first, v)
				}
			}
		}
		if !keep && lost == 0 {
			t.Error("without keep_elites the last round's elites held the best of every decision: the check tells nothing")
		}
	}
}
