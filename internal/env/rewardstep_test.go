package env

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The pendulum's noise-free simulator scores its own task: StepReward gives
// the bits of Task.Reward and of the mean Step, on random states (off the
// unit circle too, as a learner's predictions are) and torques beyond the
// clip. It scores no other task, and mountain car's simulator none.
func TestPendulumStepRewardIsRewardAndStep(t *testing.T) {
	mdp, err := New(physicsConfig(t, "pendulum"))
	if err != nil {
		t.Fatal(err)
	}
	mean := mdp.Dynamics.NewMean()
	rs, ok := mean.(RewardStepper)
	if !ok || !rs.Scores(mdp.Task) {
		t.Fatal("the pendulum's mean simulator does not score its task")
	}
	if rs.Scores(pendulumTask{maxTorque: 3}) || rs.Scores(mountainCarTaskOf(t)) {
		t.Error("the pendulum's simulator scores another task")
	}
	if r, ok := mdp.Dynamics.NewSimulator().(RewardStepper); ok && r.Scores(mdp.Task) {
		t.Error("the noisy simulator claims to score")
	}
	rng := rand.New(rand.NewPCG(24, 6))
	s, a := make([]float64, 3), make([]float64, 1)
	got, want := make([]float64, 3), make([]float64, 3)
	for range 100_000 {
		th, rad := 2*math.Pi*(2*rng.Float64()-1), 0.5+rng.Float64()
		s[0], s[1], s[2] = rad*math.Cos(th), rad*math.Sin(th), 10*(2*rng.Float64()-1)
		a[0] = 3 * (2*rng.Float64() - 1)
		r := rs.StepReward(s, a, got)
		wantR := mdp.Task.Reward(s, a)
		mean.Step(s, a, nil, want)
		if math.Float64bits(r) != math.Float64bits(wantR) {
			t.Fatalf("s %v, a %v: StepReward's reward %v, Reward %v", s, a, r, wantR)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("s %v, a %v: StepReward's s'_%d %v, Step %v", s, a, i, got[i], want[i])
			}
		}
	}
}

// mountainCarTaskOf returns mountain car's task (another task than the
// pendulum's), and checks that its simulator scores none.
func mountainCarTaskOf(t *testing.T) Task {
	t.Helper()
	mc, err := New(physicsConfig(t, "mountain-car"))
	if err != nil {
		t.Fatal(err)
	}
	if rs, ok := mc.Dynamics.NewMean().(RewardStepper); ok && rs.Scores(mc.Task) {
		t.Error("mountain car's simulator claims to score its task")
	}
	return mc.Task
}

// The pendulum's task scores a batch of states (BatchRewarder) to the bits
// of one Reward call each: batches of every length up to 150 (beyond its
// chunk of 64), states on and off the unit circle with special values among
// them (zeros, infinities, NaN: the vector kernel's lanes that atan2
// computes again), torques beyond the clip.
func TestPendulumRewardsIsReward(t *testing.T) {
	mdp, err := New(physicsConfig(t, "pendulum"))
	if err != nil {
		t.Fatal(err)
	}
	br, ok := mdp.Task.(BatchRewarder)
	if !ok {
		t.Fatal("the pendulum's task scores no batch")
	}
	rng := rand.New(rand.NewPCG(24, 7))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e-310, 1e300}
	for n := range 151 {
		xs, acts, out := make([]float64, 3*n), make([][]float64, n), make([]float64, n)
		for k := range n {
			th, rad := 2*math.Pi*(2*rng.Float64()-1), 0.5+rng.Float64()
			xs[3*k], xs[3*k+1], xs[3*k+2] = rad*math.Cos(th), rad*math.Sin(th), 10*(2*rng.Float64()-1)
			if rng.IntN(8) == 0 {
				xs[3*k+rng.IntN(2)] = special[rng.IntN(len(special))]
			}
			acts[k] = []float64{3 * (2*rng.Float64() - 1)}
		}
		br.Rewards(xs, acts, out)
		for k, got := range out {
			want := mdp.Task.Reward(xs[3*k:3*k+3], acts[k])
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("batch of %d, state %d %v, a %v: Rewards %v, Reward %v", n, k, xs[3*k:3*k+3], acts[k], got, want)
			}
		}
	}
}

// Bumps.Rewards gives At's bits for every state of a batch: 1–3 state
// coordinates; no centre, a few, and more than one vector batch holds
// (over 64: state by state); batches of 0–150 states in which some
// coordinates are far off (exponentials that underflow), infinite or NaN.
func TestBumpsRewardsIsAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	special := []float64{math.Inf(1), math.Inf(-1), math.NaN(), 9, -40, 1e300}
	for _, ds := range []int{1, 2, 3} {
		for _, nc := range []int{0, 1, 2, 3, 5, 33, 64, 70} {
			b := &Bumps{Width: 0.5 + 20*rng.Float64()}
			for range nc {
				c := make([]float64, ds)
				for i := range c {
					c[i] = 2 * (2*rng.Float64() - 1)
				}
				b.Centers = append(b.Centers, c)
			}
			var br BatchRewarder = b
			for n := range 151 {
				xs, out := make([]float64, ds*n), make([]float64, n)
				for i := range xs {
					xs[i] = 3 * (2*rng.Float64() - 1)
					if rng.IntN(16) == 0 {
						xs[i] = special[rng.IntN(len(special))]
					}
				}
				br.Rewards(xs, nil, out)
				for k, got := range out {
					want := b.At(xs[ds*k : ds*(k+1)])
					if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
						t.Fatalf("d_s %d, %d centres, batch of %d, state %d %v: Rewards %v, At %v", ds, nc, n, k, xs[ds*k:ds*(k+1)], got, want)
					}
				}
			}
		}
	}
}

// The pendulum's noise-free simulator steps batches: StepRewards gives
// StepReward's next states and rewards, bit for bit, for batches of 0–150
// states (more than one batch of 64), with angles all around the circle,
// speeds and torques beyond their clips, signed zeros where the step adds
// its zero noise (s = (1, −0, −0) with a = −0, and s = (1, −0, −2⁻¹⁰⁷⁴)
// whose θ + θ̇'·dt is −0 + −0), and infinite or NaN entries.
func TestPendulumStepRewardsIsStepReward(t *testing.T) {
	mdp, err := New(physicsConfig(t, "pendulum"))
	if err != nil {
		t.Fatal(err)
	}
	brs, ok := mdp.Dynamics.NewMean().(BatchRewardStepper)
	if ok == compilerFuses {
		t.Fatalf("the pendulum's noise-free simulator steps batches: %v; the compiler may fuse multiply-adds: %v", ok, compilerFuses)
	}
	if !ok {
		t.Skip("no batch step in a build whose compiler may fuse multiply-adds")
	}
	negZero := math.Copysign(0, -1)
	rng := rand.New(rand.NewPCG(24, 10))
	special := []float64{0, negZero, math.Inf(1), math.Inf(-1), math.NaN(), 1e-310, 1e300}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for n := range 151 {
		xs, acts := make([]float64, 3*n), make([][]float64, n)
		for k := range n {
			th, rad := 2*math.Pi*(2*rng.Float64()-1), 0.5+rng.Float64()
			xs[3*k], xs[3*k+1], xs[3*k+2] = rad*math.Cos(th), rad*math.Sin(th), 10*(2*rng.Float64()-1)
			acts[k] = []float64{3 * (2*rng.Float64() - 1)}
			switch rng.IntN(10) {
			case 0:
				xs[3*k+rng.IntN(3)] = special[rng.IntN(len(special))]
			case 1:
				xs[3*k], xs[3*k+1], xs[3*k+2], acts[k][0] = 1, negZero, negZero, negZero
			case 2:
				xs[3*k], xs[3*k+1], xs[3*k+2], acts[k][0] = 1, negZero, -math.SmallestNonzeroFloat64, 0
			}
		}
		out, rw := make([]float64, 3*n), make([]float64, n)
		brs.StepRewards(xs, acts, out, rw)
		want := make([]float64, 3)
		for k := range n {
			s := xs[3*k : 3*k+3]
			r := brs.StepReward(s, acts[k], want)
			if !same(rw[k], r) {
				t.Fatalf("batch of %d, state %d %v, a %v: StepRewards' reward %v, StepReward's %v", n, k, s, acts[k], rw[k], r)
			}
			for i := range want {
				if !same(out[3*k+i], want[i]) {
					t.Fatalf("batch of %d, state %d %v, a %v: StepRewards' s'_%d %v, StepReward's %v", n, k, s, acts[k], i, out[3*k+i], want[i])
				}
			}
		}
	}
}
