package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
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
// (env.Shaped); and it steps aside for a
// non-Gaussian coordinate.
func TestGaussRolloutsEqualGeneric(t *testing.T) {
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
								ends, shaped bool
							}{{false, false}, {true, false}, {false, true}, {true, true}} {
								ends := tc.ends
								var sim Simulator = expfam.NewStepper(m)
								if mean {
									sim = expfam.NewMeanStepper(m)
								}
								if delta {
									sim = deltaSim{sim}
								}
								name := fmt.Sprintf("d_s=%d d_a=%d %v %v mean=%v delta=%v ends=%v shaped=%v", ds, da, dist, feat, mean, delta, ends, tc.shaped)
								var task env.Task = boxTask{ends}
								if tc.shaped {
									task = shapedBoxTask{boxTask{ends}}
								}
								fast := newRollouts(task, 7, 5, false, ds)
								slow := newRollouts(task, 7, 5, false, ds)
								if _, ok := fast.gaussPath(sim); !ok {
									t.Fatalf("%s: the Gaussian path does not take the model", name)
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
									a := fast.Value(sim, s, act, rand.New(rand.NewPCG(uint64(trial), 9)))
									b := slow.Value(generic, s, act, rand.New(rand.NewPCG(uint64(trial), 9)))
									if math.Float64bits(a) != math.Float64bits(b) {
										t.Fatalf("%s, trial %d: fast value %v, generic %v", name, trial, a, b)
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
