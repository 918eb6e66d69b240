//go:build mujoco && linux

package mujoco

import (
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time (user + system) of the calling OS thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStep measures environment steps per second through smrl's
// stepping path: the true simulator's ScoredStep (the runner's call),
// each from the observation it wrote last, under random actions, with a
// reset every horizon steps. steps/cpu-s divides by the CPU time of the
// benchmark's (locked) thread, so a loaded machine does not understate
// the rate per core; steps/s is per second of wall time.
func BenchmarkStep(b *testing.B) {
	for _, sp := range []*spec{invertedPendulum, reacher, halfCheetah, hopper} {
		b.Run(sp.alias, func(b *testing.B) {
			t, err := sp.load()
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			s, next := make([]float64, sp.dim), make([]float64, sp.dim)
			a := make([]float64, sp.nu)
			t.init(rng, s)
			sim := t.NewSimulator().(*trueSim)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu0 := threadCPU()
			for i := 0; i < b.N; i++ {
				if i%sp.horizon == 0 {
					t.init(rng, s)
				}
				for j := range a {
					a[j] = sp.ctrlRange * (2*rng.Float64() - 1)
				}
				sim.ScoredStep(s, a, rng, next)
				s, next = next, s
			}
			b.ReportMetric(float64(b.N)/(threadCPU()-cpu0).Seconds(), "steps/cpu-s")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// BenchmarkMeanStep measures the oracle's step: the state restored from
// the observation (mj_forward), then the frame skip's steps.
func BenchmarkMeanStep(b *testing.B) {
	for _, sp := range []*spec{invertedPendulum, halfCheetah} {
		b.Run(sp.alias, func(b *testing.B) {
			t, err := sp.load()
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			s, next := make([]float64, sp.dim), make([]float64, sp.dim)
			a := make([]float64, sp.nu)
			t.init(rng, s)
			sim := t.NewMean()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sim.Step(s, a, rng, next)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}
