package runner

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// scoredSim wraps a true simulator and scores each step itself, with
// 1000 + the step's number: the rewards the task would give (the paper's
// bumps, at most 1 each) can be told apart from them.
type scoredSim struct {
	env.Simulator
	n int
}

func (s *scoredSim) ScoredStep(x, a []float64, rng *rand.Rand, out []float64) float64 {
	s.Step(x, a, rng, out)
	s.n++
	return 1000 + float64(s.n)
}

type scoredDynamics struct{ env.Dynamics }

func (d scoredDynamics) NewSimulator() env.Simulator {
	return &scoredSim{Simulator: d.Dynamics.NewSimulator()}
}

// TestScoredStepperGivesTheReward: a true simulator that scores its own
// steps (env.ScoredStepper: the MuJoCo tasks, whose reward depends on an
// unobserved position) gives the episode's rewards, not the task.
func TestScoredStepperGivesTheReward(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("seeds: 1\nepisodes: 2\nagents: [oracle]\nenv:\n  horizon: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := testutil.LoadConfig(t, path)
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	m.Dynamics = scoredDynamics{m.Dynamics}
	eps, err := RunTrial(context.Background(), c, m, record.Trial{Agent: "oracle", Seed: 0})
	if err != nil {
		t.Fatal(err)
	}
	// One simulator per trial: episode 1 scores steps 1..4, episode 2
	// steps 5..8.
	for i, want := range []float64{4*1000 + 1 + 2 + 3 + 4, 4*1000 + 5 + 6 + 7 + 8} {
		if eps[i].Reward != want {
			t.Errorf("episode %d: return %v, want %v (the simulator's rewards)", i+1, eps[i].Reward, want)
		}
	}
}
