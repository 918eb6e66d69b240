package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// boxTask rewards −|x|² − 0.1|a|² and, when ends, stops with a bonus of −5
// once |x_0| > 1.5 (a rollout of a drifting model crosses it part way).
type boxTask struct{ ends bool }

func (boxTask) Reward(s, a []float64) float64 {
	var r float64
	for _, v := range s {
		r -= v * v
	}
	for _, v := range a {
		r -= 0.1 * v * v
	}
	return r
}
func (boxTask) Terminal(s []float64) (bool, float64) { return math.Abs(s[0]) > 1.5, -5 }
func (t boxTask) Terminates() bool                   { return t.ends }

// shapedBoxTask is boxTask with a potential (env.Shaped) that the rollouts
// add at a rollout's last state, as Acrobot's height potential.
type shapedBoxTask struct{ boxTask }

func (shapedBoxTask) Potential(s []float64) float64 { return 3*s[0] - 0.5*s[len(s)-1]*s[len(s)-1] }

// batchBoxTask is boxTask scoring a batch of states in one call
// (env.BatchRewarder), each as Reward does; the slow side hides the
// method (hiddenTask).
// It counts its calls when calls is not nil, and scores +Inf from the
// state whose first coordinate exceeds infAbove when that is not zero.
type batchBoxTask struct {
	boxTask
	calls    *int
	infAbove float64
}

func (b batchBoxTask) Reward(s, a []float64) float64 {
	if b.infAbove != 0 && s[0] > b.infAbove {
		return math.Inf(1)
	}
	return b.boxTask.Reward(s, a)
}

func (b batchBoxTask) Rewards(xs []float64, acts [][]float64, out []float64) {
	if b.calls != nil {
		*b.calls++
	}
	ds := len(xs) / len(out)
	for t := range out {
		out[t] = b.Reward(xs[t*ds:(t+1)*ds], acts[t])
	}
}

// survTask is a Survival task: 0.7 per step; terminal, with −3, when x_0
// or x_{d_s−1} leaves [−1.5, 1.2]. hiddenTask hides that it is one.
type survTask struct{ ds int }

func (survTask) Reward(_, _ []float64) float64 { return 0.7 }
func (t survTask) Terminal(s []float64) (bool, float64) {
	if s[0] < -1.5 || s[0] > 1.2 || s[t.ds-1] < -1.5 || s[t.ds-1] > 1.2 {
		return true, -3
	}
	return false, 0
}
func (survTask) Terminates() bool { return true }
func (t survTask) Survival() env.SurvivalSpec {
	return env.SurvivalSpec{Reward: 0.7, Bonus: -3, Bounds: []env.Bound{{I: 0, Lo: -1.5, Hi: 1.2}, {I: t.ds - 1, Lo: -1.5, Hi: 1.2}}}
}

type hiddenTask struct{ env.Task }

// shapedBatchBoxTask is batchBoxTask with shapedBoxTask's potential;
// hiddenShapedTask hides that it scores batches, not its potential.
type shapedBatchBoxTask struct{ batchBoxTask }

func (shapedBatchBoxTask) Potential(s []float64) float64 { return shapedBoxTask{}.Potential(s) }

type hiddenShapedTask struct{ hiddenTask }

func (hiddenShapedTask) Potential(s []float64) float64 { return shapedBoxTask{}.Potential(s) }

// opaqueSim hides a Simulator from the specialised loops (the generic loop
// steps it), keeping whether it is deterministic.
type opaqueSim struct {
	Simulator
	det bool
}

func (o opaqueSim) Deterministic() bool { return o.det }

// The Gaussian rollout loop (gaussModel) is the generic loop's arithmetic:
// the same values to the bit for Gaussian and Coords-of-GaussCoord
// families, linear, affine and random Fourier features (d_φ on both sides
// of expfam.LongRow), drawn and mean rollouts, models of s' and of s' − s,
// terminating and non-terminating tasks, with and without a potential
// (env.Shaped), with a Survival task scored by its closed form, drawing
// through the rand.Rand or from its PCG directly; and it steps aside for a
// non-Gaussian coordinate.
func TestGaussRolloutsEqualGeneric(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("the Gaussian and the generic loop may fuse different multiply-adds in this build")
	}
	sin, _ := expfam.NewSin(4, 1.7)
	n := 0
	for _, ds := range []int{1, 4, 16} {
		for _, da := range []int{1, 2} {
			gauss, _ := expfam.NewGaussian(ds, 0.3)
			cs := make([]expfam.Coord, ds)
			for i := range cs {
				cs[i], _ = expfam.NewGaussCoord(0.1 + 0.05*float64(i))
			}
			coords, _ := expfam.NewCoords(cs)
			rff, _ := expfam.NewRFF(ds, da, 37, 0.8, 5)
			for _, dist := range []expfam.Distribution{gauss, coords} {
				for _, feat := range []expfam.Features{expfam.Linear{DS: ds, DA: da}, expfam.Affine{DS: ds, DA: da}, rff} {
					w := make([]float64, ds*feat.Dim())
					for i := range w {
						w[i] = 0.25*math.Sin(1.3*float64(i)+0.2) + 0.05
					}
					m, err := expfam.NewModel(dist, feat, w)
					if err != nil {
						t.Fatal(err)
					}
					for _, mean := range []bool{false, true} {
						for _, delta := range []bool{false, true} {
							for _, tc := range []struct {
								ends, shaped, surv, batch bool
							}{{false, false, false, false}, {true, false, false, false}, {false, true, false, false}, {true, true, false, false}, {true, false, true, false},
								{false, false, false, true}, {true, false, false, true}, {false, true, false, true}} {
								ends := tc.ends
								var sim Simulator = expfam.NewStepper(m)
								if mean {
									sim = expfam.NewMeanStepper(m)
								}
								if delta {
									sim = deltaSim{Simulator: sim}
								}
								name := fmt.Sprintf("d_s=%d d_a=%d %v %v mean=%v delta=%v ends=%v shaped=%v survival=%v batch=%v", ds, da, dist, feat, mean, delta, ends, tc.shaped, tc.surv, tc.batch)
								var task env.Task = boxTask{ends}
								if tc.shaped {
									task = shapedBoxTask{boxTask{ends}}
								}
								if tc.surv {
									task = survTask{ds}
								}
								if tc.batch {
									task = batchBoxTask{boxTask: boxTask{ends}}
									if tc.shaped {
										task = shapedBatchBoxTask{batchBoxTask{boxTask: boxTask{ends}}}
									}
								}
								// The generic loop with the task's calls;
								// the Gaussian loop and, for a Survival
								// task, the generic loop with its closed
								// form (the oracle's path).
								fast := newRollouts(task, 7, 5, false, ds)
								slowTask := task
								if tc.surv || tc.batch {
									slowTask = hiddenTask{task}
									if tc.batch && tc.shaped {
										slowTask = hiddenShapedTask{hiddenTask{task}}
									}
								}
								slow := newRollouts(slowTask, 7, 5, false, ds)
								mid := newRollouts(task, 7, 5, false, ds)
								if _, ok := fast.gaussPath(sim); !ok {
									t.Fatalf("%s: the Gaussian path does not take the model", name)
								}
								if (fast.surv != nil) != tc.surv || slow.surv != nil {
									t.Fatalf("%s: the rollouts do not see the Survival task as one", name)
								}
								if (fast.batch != nil) != (tc.batch && !ends) || slow.batch != nil {
									t.Fatalf("%s: the rollouts do not see the batch rewards (only of a task that does not terminate)", name)
								}
								generic := opaqueSim{sim, mean}
								s := make([]float64, ds)
								act := make([][]float64, 6)
								for trial := range 6 {
									for i := range s {
										s[i] = -1.2 + 0.31*float64(trial+i)
									}
									for j := range act {
										act[j] = make([]float64, da)
										for i := range act[j] {
											act[j][i] = math.Cos(float64(3*j + i + trial))
										}
									}
									// Odd trials draw from the PCG directly.
									pcg := rand.NewPCG(uint64(trial), 9)
									rng := rand.New(pcg)
									if trial%2 == 1 && !fast.bind(rng, pcg) {
										t.Fatalf("%s: cannot bind the stream", name)
									}
									a := fast.Value(sim, s, act, rng)
									after := rng.Uint64()
									slowRng := rand.New(rand.NewPCG(uint64(trial), 9))
									b := slow.Value(generic, s, act, slowRng)
									if math.Float64bits(a) != math.Float64bits(b) {
										t.Fatalf("%s, trial %d: fast value %v, generic %v", name, trial, a, b)
									}
									if slowAfter := slowRng.Uint64(); after != slowAfter {
										t.Fatalf("%s, trial %d: the fast loop leaves the stream elsewhere", name, trial)
									}
									if tc.surv {
										c := mid.Value(generic, s, act, rand.New(rand.NewPCG(uint64(trial), 9)))
										if math.Float64bits(c) != math.Float64bits(b) {
											t.Fatalf("%s, trial %d: generic loop with the closed form %v, with the calls %v", name, trial, c, b)
										}
									}
									n++
								}
							}
						}
					}
				}
			}
			// A coordinate of another family: the generic loop.
			mixed := append([]expfam.Coord{expfam.NewScalarCoord(sin)}, cs[1:]...)
			mc, _ := expfam.NewCoords(mixed)
			m, _ := expfam.NewModel(mc, expfam.Linear{DS: ds, DA: da}, make([]float64, ds*(ds+da)))
			if _, ok := newRollouts(boxTask{}, 3, 1, false, ds).gaussPath(expfam.NewStepper(m)); ok {
				t.Errorf("d_s = %d: the Gaussian path took a custom-sin coordinate", ds)
			}
		}
	}
	if n == 0 {
		t.Fatal("nothing compared")
	}
}

// The Gaussian loop scores the states of all of a sequence's rollouts with
// one Rewards call (not one Reward per state), and a reward that is not
// finite in the batch sets the flag Planner.Err reports, as in the generic
// loop.
func TestGaussRolloutsScoreBatches(t *testing.T) {
	const ds, da, tau, n = 2, 1, 6, 4
	gauss, _ := expfam.NewGaussian(ds, 0.3)
	feat := expfam.Affine{DS: ds, DA: da}
	w := make([]float64, ds*feat.Dim())
	for i := range w {
		w[i] = 0.3 + 0.1*float64(i)
	}
	m, err := expfam.NewModel(gauss, feat, w)
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{0.2, -0.1}
	act := [][]float64{{0.5}, {-0.5}, {1}, {0.25}, {0}}
	for _, tc := range []struct {
		name     string
		infAbove float64
		bad      bool
	}{{"finite", 0, false}, {"an infinite reward", 1.5, true}} {
		var calls int
		task := batchBoxTask{calls: &calls, infAbove: tc.infAbove}
		fast := newRollouts(task, tau, n, false, ds)
		slow := newRollouts(hiddenTask{task}, tau, n, false, ds)
		sim := expfam.NewStepper(m)
		a := fast.Value(sim, s, act, rand.New(rand.NewPCG(1, 2)))
		b := slow.Value(opaqueSim{sim, false}, s, act, rand.New(rand.NewPCG(1, 2)))
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("%s: batch value %v, generic %v", tc.name, a, b)
		}
		if calls != 1 {
			t.Errorf("%s: %d Rewards calls for the %d rollouts of one sequence", tc.name, calls, n)
		}
		if fast.badReward != tc.bad || slow.badReward != tc.bad {
			t.Errorf("%s: the flag of a non-finite reward is %v (batch) and %v (generic), want %v", tc.name, fast.badReward, slow.badReward, tc.bad)
		}
	}
}

// Long rollouts are scored in batches of at most batchStates states: the
// paper's fast loop and the Gaussian loop (shaped or not) give the generic
// loop's values bit for bit when a sequence's rollouts take one batch,
// several full ones and a short last one, or one batch each, and the kept
// states stay within the bound.
func TestRolloutBatchesAreBounded(t *testing.T) {
	const ds, n = 2, 7
	sin, _ := expfam.NewSin(4, 1.7)
	prod, _ := expfam.NewProduct(sin, ds)
	lin := expfam.Linear{DS: ds, DA: 1}
	w := make([]float64, ds*lin.Dim())
	for i := range w {
		w[i] = 0.3 - 0.1*float64(i%4)
	}
	paper, _ := expfam.NewModel(prod, lin, w)
	gauss, _ := expfam.NewGaussian(ds, 0.3)
	aff := expfam.Affine{DS: ds, DA: 1}
	wg := make([]float64, ds*aff.Dim())
	for i := range wg {
		wg[i] = 0.2 + 0.05*float64(i)
	}
	gm, _ := expfam.NewModel(gauss, aff, wg)
	bumps := &env.Bumps{Width: 2, Centers: [][]float64{{0.4, -0.2}, {-1, 0.5}}}
	for _, tau := range []int{2, 5, 700, 1400, 5000} {
		for _, tc := range []struct {
			name string
			task env.Task
			slow env.Task
			sim  Simulator
		}{
			{"paper", bumps, hiddenTask{bumps}, expfam.NewStepper(paper)},
			{"gauss", batchBoxTask{}, hiddenTask{batchBoxTask{}}, expfam.NewStepper(gm)},
			{"gauss, shaped", shapedBatchBoxTask{}, hiddenShapedTask{hiddenTask{shapedBatchBoxTask{}}}, expfam.NewStepper(gm)},
		} {
			if testutil.FusedMulAdd && tc.name != "paper" {
				continue // the Gaussian and the generic loop may fuse different multiply-adds
			}
			fast, slow := newRollouts(tc.task, tau, n, false, ds), newRollouts(tc.slow, tau, n, false, ds)
			if want := max(1, min(n, batchStates/(tau-1))); fast.bn != want || len(fast.bx) != want*(tau-1)*ds {
				t.Fatalf("%s, τ %d: %d rollouts per batch, %d kept numbers; want %d, %d", tc.name, tau, fast.bn, len(fast.bx), want, want*(tau-1)*ds)
			}
			act := make([][]float64, tau-1)
			for i := range act {
				act[i] = []float64{0.7 * math.Sin(float64(i))}
			}
			s := []float64{0.3, -0.6}
			a := fast.Value(tc.sim, s, act, rand.New(rand.NewPCG(5, uint64(tau))))
			b := slow.Value(opaqueSim{tc.sim, false}, s, act, rand.New(rand.NewPCG(5, uint64(tau))))
			if math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("%s, τ %d (%d rollouts per batch): batched %v, generic %v", tc.name, tau, fast.bn, a, b)
			}
		}
	}
}
