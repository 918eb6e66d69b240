// Package runner runs an experiment: every (agent, seed) trial of a config
// on a worker pool, with common random numbers across agents, and collects
// one record per (agent, seed, episode).
//
// Every agent in seed i faces the same initial states and the same noise
// stream of the real MDP in every episode (streams keyed by seed and
// episode), so regret against the oracle is paired episode by episode, and
// two agents that play the same actions see the same transitions.
package runner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

// Trial identifies one run of one agent.
type Trial struct {
	Agent string
	Seed  int // 0-based seed index
}

// Episode is the outcome of one episode of one trial.
type Episode struct {
	Episode   int     // from 1
	Reward    float64 // Σ_h r(s_h) over the H states of the episode
	PlusCount int     // steps that played the first action of env.actions
	W         []float64
	WError    float64 // |Ŵ − W0|_F after the end-of-episode update; NaN for the oracle
}

// Result holds every trial's episodes.
type Result struct {
	Trials   []Trial
	Episodes [][]Episode // per trial, in the order of Trials
}

// Trials lists the (agent, seed) pairs of a config in canonical order:
// agents in config order, then seeds.
func Trials(c *config.Config) []Trial {
	var ts []Trial
	for _, a := range c.Agents {
		for s := 0; s < c.Seeds; s++ {
			ts = append(ts, Trial{Agent: a, Seed: s})
		}
	}
	return ts
}

// Options controls execution.
type Options struct {
	Workers  int                   // <= 0: all cores
	Progress func(done, total int) // called after each trial, may be nil
}

// Run runs the given trials of c on mdp. The result's order follows trials,
// whatever the number of workers.
func Run(ctx context.Context, c *config.Config, mdp *env.MDP, trials []Trial, opt Options) (*Result, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, max(len(trials), 1))
	res := &Result{Trials: trials, Episodes: make([][]Episode, len(trials))}
	errs := make([]error, len(trials))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(trials) || ctx.Err() != nil {
					return
				}
				res.Episodes[i], errs[i] = RunTrial(ctx, c, mdp, trials[i])
				d := done.Add(1)
				if opt.Progress != nil {
					opt.Progress(int(d), len(trials))
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("agent %s, seed %d: %w", trials[i].Agent, trials[i].Seed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// RunTrial runs one agent for c.Episodes episodes on seed t.Seed.
func RunTrial(ctx context.Context, c *config.Config, mdp *env.MDP, t Trial) ([]Episode, error) {
	ag, err := agent.New(t.Agent, mdp.True, agent.Config{Lambda: c.Lambda, LDSSigma: c.LDS.Sigma})
	if err != nil {
		return nil, err
	}
	ds := mdp.StateDim()
	pl, err := agent.NewPlanner(c.Planner.Mode, c.Planner.NRollouts, c.Planner.Tau, c.Planner.NSequences,
		c.Planner.CRN, mdp.Actions, mdp.Reward.At, ds)
	if err != nil {
		return nil, err
	}
	planPCG := rand.NewPCG(streamSeed(c.Seed, purposePlan, uint64(t.Seed), agentIndex(t.Agent)))
	planRng := rand.New(planPCG)
	envPCG := rand.NewPCG(0, 0)
	envRng := rand.New(envPCG)
	truth := mdpStepper(mdp)
	s, next := make([]float64, ds), make([]float64, ds)
	w0 := mdp.True.W
	out := make([]Episode, 0, c.Episodes)
	for ep := 1; ep <= c.Episodes; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		envPCG.Seed(streamSeed(c.Seed, purposeEnv, uint64(t.Seed), uint64(ep)))
		mdp.Init(envRng, s)
		var reward float64
		plus := 0
		for h := 0; h < mdp.Horizon; h++ {
			reward += mdp.Reward.At(s)
			ai := pl.Act(ag.Sim, s, planRng)
			if ai == 0 {
				plus++
			}
			a := mdp.Actions[ai]
			truth.Step(s, a, envRng, next)
			ag.Observe(s, a, next)
			s, next = next, s
		}
		if err := ag.EndEpisode(); err != nil {
			return nil, fmt.Errorf("episode %d: %w", ep, err)
		}
		e := Episode{Episode: ep, Reward: reward, PlusCount: plus, W: append([]float64(nil), ag.Model.W...), WError: math.NaN()}
		if t.Agent != "oracle" && len(e.W) == len(w0) {
			var d2 float64
			for i := range w0 {
				d := e.W[i] - w0[i]
				d2 += d * d
			}
			e.WError = math.Sqrt(d2)
		}
		out = append(out, e)
	}
	return out, nil
}
