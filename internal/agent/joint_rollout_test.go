//go:build unix

package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// rolloutValues returns the oracle's value V(s, a) of every action at each
// state, under the true family of c with planners' chains of k transitions
// (sampler.rollout_steps), n rollouts of tau states each, every sequence
// holding its action (rss constant mode, the paper's), with the rollouts'
// noise from seed; and the process CPU time per decision (both actions).
func rolloutValues(t *testing.T, path string, k, n, tau int, states [][]float64, seed uint64) ([][]float64, time.Duration) {
	t.Helper()
	c := testutil.LoadConfig(t, path)
	c.Sampler.RolloutSteps = k
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	spec := mdp.Model
	m, err := expfam.NewModel(spec.Family, spec.Features, spec.W0)
	if err != nil {
		t.Fatal(err)
	}
	sim := expfam.NewStepper(m)
	r := newRollouts(mdp.Task, tau, n, false, mdp.Dim)
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([][]float64, len(states))
	start := cpuNow()
	for i, s := range states {
		for _, a := range mdp.Actions {
			seq := make([][]float64, r.Steps())
			for j := range seq {
				seq[j] = a
			}
			out[i] = append(out[i], r.Value(sim, s, seq, rng))
		}
	}
	return out, (cpuNow() - start) / time.Duration(len(states))
}

// cpuNow is the process's CPU time (user + system, every thread).
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func argmax(v []float64) int {
	b := 0
	for i, x := range v {
		if x > v[b] {
			b = i
		}
	}
	return b
}

// TestJointRolloutChainBias measures, on configs/coupled.yaml, the bias
// that the planners' short chains (sampler.rollout_steps = k, warm-started
// at each rollout's previous state) put into the oracle's decisions,
// against chains of 100 transitions: at 100 states drawn uniformly from
// the initial box, the agreement of the chosen actions, the mean
// |V_k − V_100| over states and actions, and the mean value lost by
// choosing with k (V_100 of the reference's choice minus V_100 of k's),
// with 200 rollouts per action. The row "100 (replicate)" is the
// reference again with other noise: the Monte Carlo floor of the columns.
// It prints the table of docs/joint-families.md; make reproduce runs it
// (SMRL_REPRODUCE=1).
func TestJointRolloutChainBias(t *testing.T) {
	if os.Getenv("SMRL_REPRODUCE") == "" {
		t.Skip("set SMRL_REPRODUCE=1 (make reproduce)")
	}
	const path, nStates, n, tau, ref = "../../configs/coupled.yaml", 100, 200, 3, 100
	rng := rand.New(rand.NewPCG(1, 2))
	states := make([][]float64, nStates)
	for i := range states {
		states[i] = make([]float64, 4)
		for j := range states[i] {
			states[i][j] = 2*rng.Float64() - 1
		}
	}
	vRef, _ := rolloutValues(t, path, ref, n, tau, states, 1)
	var b strings.Builder
	fmt.Fprintf(&b, "| rollout_steps k | same action as k = %d | mean abs(V_k − V_%d) | value lost by choosing with k | CPU per decision |\n| ---: | ---: | ---: | ---: | ---: |\n", ref, ref)
	for _, k := range []int{1, 2, 5, 10, 20, ref} {
		seed := uint64(2)
		v, dt := rolloutValues(t, path, k, n, tau, states, seed)
		agree, absErr, lost := 0, 0.0, 0.0
		for i := range states {
			ak, ar := argmax(v[i]), argmax(vRef[i])
			if ak == ar {
				agree++
			}
			lost += (vRef[i][ar] - vRef[i][ak]) / nStates
			for j := range v[i] {
				absErr += math.Abs(v[i][j]-vRef[i][j]) / float64(nStates*len(v[i]))
			}
		}
		label := fmt.Sprint(k)
		if k == ref {
			label += " (replicate)"
		}
		fmt.Fprintf(&b, "| %s | %.1f%% | %.4f | %.4f | %v |\n", label, 100*float64(agree)/nStates, absErr, lost, dt.Round(time.Millisecond))
	}
	t.Log("\n" + b.String())
}
