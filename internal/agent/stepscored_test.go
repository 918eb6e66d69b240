package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// plainSim hides every method of a simulator but Step and Deterministic.
type plainSim struct{ env.Simulator }

func (plainSim) Deterministic() bool { return true }

// countingStepper counts the calls of StepReward of the RewardStepper it
// wraps.
type countingStepper struct {
	env.RewardStepper
	calls int
}

func (c *countingStepper) StepReward(s, a, out []float64) float64 {
	c.calls++
	return c.RewardStepper.StepReward(s, a, out)
}
func (c *countingStepper) Deterministic() bool { return true }

// Rollouts under a simulator that scores the task (the pendulum's oracle)
// take the fused loop (stepScored) and give generic's values bit for bit,
// for every horizon from the shortest on. (A RewardStepper is
// deterministic, so Value runs one rollout whatever the rollout count.)
func TestStepScoredIsGeneric(t *testing.T) {
	_, m := load(t, "../../configs/pendulum.yaml")
	rs, ok := m.Dynamics.NewMean().(env.RewardStepper)
	if !ok {
		t.Fatal("the pendulum's mean simulator is not a RewardStepper")
	}
	fused := &countingStepper{RewardStepper: rs}
	rng := rand.New(rand.NewPCG(24, 7))
	for _, tau := range []int{1, 2, 3, 16} {
		r := newRollouts(m.Task, tau, 3, false, 3)
		steps := r.Steps()
		act := make([][]float64, steps)
		for i := range act {
			act[i] = []float64{0}
		}
		for range 2000 {
			th := 2 * math.Pi * (2*rng.Float64() - 1)
			s := []float64{math.Cos(th), math.Sin(th), 8 * (2*rng.Float64() - 1)}
			for i := range act {
				act[i][0] = 2.5 * (2*rng.Float64() - 1)
			}
			got := r.Value(fused, s, act, rng)
			want := r.Value(plainSim{rs}, s, act, rng)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("τ %d, s %v, a %v: stepScored %v, generic %v", tau, s, act, got, want)
			}
		}
	}
	if fused.calls == 0 {
		t.Fatal("the fused loop never ran")
	}
}

// Values steps the rollouts of many sequences together under the
// pendulum's oracle and gives K Value calls' values and flags bit for bit:
// horizons from the shortest on, 1–70 sequences (more than one batch of
// 64), with and without common random numbers (whose stream Values leaves
// where Value does), sequences with torques beyond the box, states with a
// non-finite speed (flags set), and the upright pendulum at rest without
// torque, whose rewards are all −0 and whose value is +0.
func TestValuesIsValue(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("the pendulum steps no batch in a build whose compiler may fuse multiply-adds")
	}
	_, m := load(t, "../../configs/pendulum.yaml")
	sim := m.Dynamics.NewMean()
	rng := rand.New(rand.NewPCG(24, 8))
	for _, tau := range []int{1, 2, 3, 16} {
		for _, crn := range []bool{false, true} {
			batch := newRollouts(m.Task, tau, 3, crn, 3)
			one := newRollouts(m.Task, tau, 3, crn, 3)
			if batch.Batched(sim) != (tau >= 2) {
				t.Fatalf("τ %d: Batched %v", tau, batch.Batched(sim))
			}
			if tau < 2 {
				continue
			}
			batch.Begin(rand.New(rand.NewPCG(1, uint64(tau))))
			one.Begin(rand.New(rand.NewPCG(1, uint64(tau))))
			steps := batch.Steps()
			for trial := range 300 {
				k := 1 + rng.IntN(70)
				th := 2 * math.Pi * (2*rng.Float64() - 1)
				s := []float64{math.Cos(th), math.Sin(th), 8 * (2*rng.Float64() - 1)}
				if trial%50 == 7 {
					s[2] = math.Inf(1)
				}
				seqs := make([]float64, k*steps)
				for i := range seqs {
					seqs[i] = 2.5 * (2*rng.Float64() - 1)
				}
				if trial%50 == 13 { // upright at rest, no torque: every reward −0, the value +0
					s = []float64{1, 0, 0}
					clear(seqs)
				}
				got := make([]float64, k)
				batch.Values(sim, s, seqs, 1, got)
				for j := range k {
					act := make([][]float64, steps)
					for t := range act {
						act[t] = seqs[j*steps+t : j*steps+t+1]
					}
					want := one.Value(sim, s, act, rng)
					if math.Float64bits(got[j]) != math.Float64bits(want) && !(math.IsNaN(got[j]) && math.IsNaN(want)) {
						t.Fatalf("τ %d, crn %v, %d sequences, s %v, sequence %d: Values %v, Value %v", tau, crn, k, s, j, got[j], want)
					}
				}
				if batch.bad != one.bad || batch.badReward != one.badReward {
					t.Fatalf("τ %d, s %v: flags bad %v, badReward %v; Value's %v, %v", tau, s, batch.bad, batch.badReward, one.bad, one.badReward)
				}
				sb, _ := batch.crn.MarshalBinary()
				so, _ := one.crn.MarshalBinary()
				if string(sb) != string(so) {
					t.Fatalf("τ %d, crn %v: the common random numbers' stream is left elsewhere than by Value", tau, crn)
				}
			}
			// A reward that is not finite at a state that is not finite is
			// the state's fault (bad), not the reward's (badReward).
			if batch.badReward || !batch.bad {
				t.Fatalf("τ %d: an infinite speed set flags bad %v, badReward %v; want true, false", tau, batch.bad, batch.badReward)
			}
		}
	}
}

// A decision of each planner with a simulator that steps batches (its
// sequences drawn first, then valued together by Values) plays the action
// and value of one whose simulator hides that (one Value call per
// sequence), decision after decision: MPPI with one and two rounds, CEM
// plain, iCEM with kept elites and the warm start scored, and random
// shooting.
func TestBatchedPlansAreSequential(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("the pendulum steps no batch in a build whose compiler may fuse multiply-adds")
	}
	c, m := load(t, "../../configs/pendulum.yaml")
	sim := m.Dynamics.NewMean()
	hidden := struct{ env.RewardStepper }{sim.(env.RewardStepper)}
	box := &Box{Low: []float64{-2}, High: []float64{2}}
	mppi2 := *c.Planner.Section.(*MPPIConfig)
	mppi2.Iterations = 2
	icem := CEMConfig{Population: 12, Elites: 3, Iterations: 3, Alpha: 0.1, InitStd: 0.5, Beta: 2, KeepElites: true}
	cemPlain := CEMConfig{Population: 16, Elites: 3, Iterations: 2, Alpha: 0, InitStd: 1}
	for _, tc := range []struct {
		name    string
		section any
		kind    string
		build   func(config.Planner, *Rollouts, [][]float64, *Box) (Method, error)
	}{
		{"mppi", c.Planner.Section, "mppi", newMPPI},
		{"mppi, 2 rounds", &mppi2, "mppi", newMPPI},
		{"cem", &cemPlain, "cem", newCEM},
		{"icem, kept elites", &icem, "cem", newCEM},
		{"rss", nil, "rss", newRSS},
	} {
		pc := c.Planner
		pc.Kind, pc.Section, pc.Mode, pc.NSequences = tc.kind, tc.section, "random", 40
		plan := func() Method {
			mt, err := tc.build(pc, newRollouts(m.Task, pc.Tau, 1, false, 3), nil, box)
			if err != nil {
				t.Fatal(err)
			}
			return mt
		}
		a, b := plan(), plan()
		ra, rb := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
		s := []float64{-1, 0, 0}
		for step := range 40 {
			_, va := a.Plan(sim, s, ra)
			_, vb := b.Plan(hidden, s, rb)
			if math.Float64bits(va) != math.Float64bits(vb) || fmt.Sprint(a.Result()) != fmt.Sprint(b.Result()) {
				t.Fatalf("%s, decision %d: batched plays %v (value %v), sequential %v (value %v)", tc.name, step, a.Result(), va, b.Result(), vb)
			}
			next := make([]float64, 3)
			sim.Step(s, a.Result()[:1], nil, next)
			s = next
			a.Commit()
			b.Commit()
		}
	}
	if r := newRollouts(m.Task, c.Planner.Tau, 1, false, 3); !r.Batched(sim) || r.Batched(hidden) {
		t.Fatal("the batch path is not the one under test")
	}
}
