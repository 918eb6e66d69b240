package runner

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// BenchmarkScaleStep is one real step of sm at the size of a MuJoCo task
// (testdata/scale-lq17.yaml: d_s = 17, d_a = 6, D = 2000 random Fourier
// features, MPPI 32 × τ 16): the decision, the true transition, the
// statistics of the transition (Observe) and the step's share of the refit
// at the end of each episode (EndEpisode / horizon), from an agent fitted
// to one episode of random play. Its sub-benchmarks set the horizon, so
// the refit's share: h200, a refit every 200 steps (the config's), and
// h1000, every 1000 steps, the episodes of the MuJoCo tasks of that size
// (HalfCheetah: 17 states, 6 actions, 1000 steps; configs/half-cheetah.yaml).
// Run it by episodes: -benchtime 2000x is two of h1000 and ten of h200. It
// reports the thread's CPU time per step (ms/step) and its three parts.
func BenchmarkScaleStep(b *testing.B) { scaleSteps(b, false) }

// BenchmarkScaleStepFMA is BenchmarkScaleStep with model.features.fma:
// true (the features in fused multiply-adds: other bits, fewer operations
// and, with AVX-512, sixteen states per pass over the frequencies).
func BenchmarkScaleStepFMA(b *testing.B) { scaleSteps(b, true) }

// scaleSteps runs BenchmarkScaleStep's sub-benchmarks with
// model.features.fma set to fma.
func scaleSteps(b *testing.B, fma bool) {
	for _, bc := range []struct {
		name    string
		environ []string
	}{
		{"h200", nil},
		{"h1000", []string{"SMRL_ENV_HORIZON=1000"}},
	} {
		environ := bc.environ
		if fma {
			environ = append(environ, "SMRL_MODEL_FEATURES_FMA=true")
		}
		b.Run(bc.name, func(b *testing.B) { benchScaleStep(b, environ, fma) })
	}
}

// benchScaleStep is BenchmarkScaleStep on testdata/scale-lq17.yaml with
// the SMRL_* variables of environ, which set model.features.fma to fma.
func benchScaleStep(b *testing.B, environ []string, fma bool) {
	c := testutil.LoadConfigOptions(b, config.Options{Path: "testdata/scale-lq17.yaml", Environ: environ})
	m, err := env.New(c)
	if err != nil {
		b.Fatal(err)
	}
	if r, ok := m.Model.Features.(*expfam.RFF); !ok || r.FMA != fma {
		b.Fatalf("features %v, want rff with FMA %v", m.Model.Features, fma)
	}
	ag, err := agent.New("sm", m.Model, m.Dynamics, agent.Config{Lambda: c.Lambda, Confidence: agent.ConfidenceOf(c), Rollout: c.Planner.Rollout})
	if err != nil {
		b.Fatal(err)
	}
	pl, err := agent.NewFromConfig(c.Planner, m.Actions, &agent.Box{Low: m.Box.Low, High: m.Box.High}, m.Task, m.StateDim())
	if err != nil {
		b.Fatal(err)
	}
	h := c.Env.Horizon
	rng := rand.New(rand.NewPCG(1, 2))
	sim := m.Dynamics.NewSimulator()
	ds := m.StateDim()
	s, next, a := make([]float64, ds), make([]float64, ds), make([]float64, m.ActionDim())
	m.Init(rng, s)
	for range h { // one episode of random play, then the first fit
		m.RandomAction(rng, a)
		sim.Step(s, a, rng, next)
		ag.Observe(s, a, next)
		s, next = next, s
	}
	if err := ag.EndEpisode(); err != nil {
		b.Fatal(err)
	}
	pcg := rand.NewPCG(3, 4)
	prng := rand.New(pcg)
	pl.BindSource(prng, pcg)
	// CPU time of this goroutine's thread (locked to it), so that other
	// jobs on a shared machine do not count; run with -cpu 1, where the
	// products of internal/linalg stay on it. Not testutil.ThreadCPU:
	// scripts/bench-step.sh compiles this file against 68a1240, whose
	// testutil lacks it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	now := func() time.Duration {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ts.Nano())
	}
	var decide, observe, refit time.Duration
	for i := 0; b.Loop(); i++ {
		if i%h == 0 {
			m.Init(rng, s)
			pl.Reset()
		}
		t0 := now()
		act := pl.Action(pl.Act(ag.Sim, s, prng))
		t1 := now()
		sim.Step(s, act, rng, next)
		t2 := now()
		ag.Observe(s, act, next)
		t3 := now()
		decide += t1 - t0
		observe += t3 - t2
		s, next = next, s
		if i%h == h-1 {
			if err := ag.EndEpisode(); err != nil {
				b.Fatal(err)
			}
			refit += now() - t3
		}
	}
	n := float64(b.N)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(decide.Nanoseconds())/n/1e6, "decide-ms/step")
	b.ReportMetric(float64(observe.Nanoseconds())/n/1e6, "observe-ms/step")
	b.ReportMetric(float64(refit.Nanoseconds())/n/1e6, "refit-ms/step")
	b.ReportMetric(float64((decide+observe+refit).Nanoseconds())/n/1e6, "ms/step")
}
