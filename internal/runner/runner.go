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
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
)

// Options controls execution.
type Options struct {
	Workers int // <= 0: all cores
	// Record, when not nil, returns the Recorder of trial i (nil for
	// none), which receives every transition the trial plays.
	Record func(i int) Recorder
	// Models, when not nil, returns the ModelSink of trial i (nil for
	// none), which receives the trial's learned model when it ends.
	Models func(i int) ModelSink
	// OnTrial, when not nil, is called with every completed trial (its
	// index in trials and its episodes), one call at a time, in completion
	// order. An error stops the run: no new trial starts.
	OnTrial func(i int, eps []record.Episode) error
	// Done, when not nil, counts completed trials (for progress reports).
	Done *atomic.Int64
	// Episodes, when not nil, counts completed episodes, so that progress
	// shows within long trials.
	Episodes *atomic.Int64
	// OnEpisode, when not nil, is called after every completed episode of
	// every trial, from the trial's worker as it happens (so concurrently
	// for several workers, and in completion order): the live metrics
	// (metrics.jsonl). Its Job is the job's index.
	OnEpisode func(EpisodeDone)
	// Grace bounds how long the trials in flight run on once ctx is
	// cancelled (0: until they finish); closing Abandon (after the
	// cancellation) ends the wait at once. See RunJobs.
	Grace   time.Duration
	Abandon <-chan struct{}
}

// Run runs the given trials of c on mdp. The result's order follows trials,
// whatever the number of workers.
//
// When ctx is cancelled no new trial starts, but the trials in flight run
// to completion (and reach OnTrial), so an interrupted run loses no finished
// work. Run then returns the partial result, with nil episodes for trials
// that did not run, and an error wrapping ctx.Err().
func Run(ctx context.Context, c *config.Config, mdp *env.MDP, trials []record.Trial, opt Options) (*record.Result, error) {
	jobs := make([]Job, len(trials))
	for i, t := range trials {
		jobs[i] = Job{Config: c, MDP: mdp, Trial: t}
		if opt.Record != nil {
			jobs[i].Record = opt.Record(i)
		}
		if opt.Models != nil {
			jobs[i].Models = opt.Models(i)
		}
	}
	eps, err := RunJobs(ctx, jobs, opt)
	if eps == nil {
		return nil, err
	}
	return &record.Result{Trials: trials, Episodes: eps}, err
}

// plannerBox is the MDP's box of continuous actions for the planner, or nil.
func plannerBox(m *env.MDP) *agent.Box {
	if m.Box == nil {
		return nil
	}
	return &agent.Box{Low: m.Box.Low, High: m.Box.High}
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// RunTrial runs one agent for c.Episodes episodes on seed t.Seed.
func RunTrial(ctx context.Context, c *config.Config, mdp *env.MDP, t record.Trial) ([]record.Episode, error) {
	return runTrial(ctx, Job{Config: c, MDP: mdp, Trial: t})
}

// runTrial is RunTrial of j, reporting to j.Record and j.Models when they
// are set.
func runTrial(ctx context.Context, j Job) ([]record.Episode, error) {
	c, mdp, t := j.Config, j.MDP, j.Trial
	w, err := newWorld(ctx, c, mdp, t)
	if err != nil {
		return nil, err
	}
	defer w.close()
	ag, err := agent.New(t.Agent, mdp.Model, w.dynamics(), agent.Config{Lambda: c.Lambda, Confidence: agent.ConfidenceOf(c), Rollout: c.Planner.Rollout, Horizon: mdp.Horizon, Box: mdp.Box, CV: AgentCV(c), SaveSE: c.Stats.SaveSE})
	if err != nil {
		return nil, err
	}
	ds := mdp.StateDim()
	var ctrl []float64 // the action of an agent that needs no planner (ag.Ctrl, ag.Random)
	if ag.Ctrl != nil || ag.Random {
		ctrl = make([]float64, mdp.ActionDim())
	}
	pl, err := agent.NewFromConfig(c.Planner, mdp.Actions, plannerBox(mdp), mdp.Task, ds)
	if err != nil {
		return nil, err
	}
	planPCG := rand.NewPCG(streamSeed(c.Seed, purposePlan, uint64(t.Seed), agentIndex(t.Agent)))
	planRng := rand.New(planPCG)
	pl.BindSource(planRng, planPCG) // the same draws, without a call per draw
	rec := j.Record
	s, next := make([]float64, ds), make([]float64, ds)
	var prevW []float64 // Ŵ of the previous refit, for Episode.WStep
	// |Ŵ − W0|_F is an estimation error only for an agent whose Ŵ lives in
	// the true family (an lds agent's Gaussian W on the paper's custom-sin
	// MDP does not: the distance compared two families).
	inFamily := config.InTrueFamily(c, t.Agent)
	if ag.Model != nil {
		prevW = append([]float64(nil), ag.Model.W...)
	}
	out := make([]record.Episode, 0, c.Episodes)
	totalSteps := 0
	for ep := 1; ep <= c.Episodes; ep++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		epStart := time.Now()
		if err := w.reset(ep, s); err != nil {
			return nil, fmt.Errorf("episode %d: %w", ep, err)
		}
		pl.Reset()
		if err := ag.BeginEpisode(pl, s, planRng); err != nil {
			return nil, fmt.Errorf("episode %d: %w", ep, err)
		}
		var reward float64
		plus, steps := 0, 0
		var counts []int
		if mdp.Box == nil {
			counts = make([]int, len(mdp.Actions))
		}
		for h := 0; h < mdp.Horizon; h++ {
			var ai int
			var a []float64
			switch {
			case ag.Ctrl != nil:
				ag.Ctrl.Control(s, h, ctrl)
				ai, a = agent.BoxAction, ctrl
			case ag.Random:
				if ai = ag.RandomAction(planRng, len(mdp.Actions), ctrl); ai == agent.BoxAction {
					a = ctrl
				} else {
					a = pl.Action(ai)
				}
			default:
				ai = pl.Act(ag.Sim, s, planRng)
				if err := w.planErr(); err != nil {
					return nil, fmt.Errorf("episode %d step %d: the oracle's rollouts: %w", ep, h+1, err)
				}
				if err := pl.Err(); err != nil {
					return nil, fmt.Errorf("episode %d step %d: %w", ep, h+1, planError(err, ag, mdp))
				}
				a = pl.Action(ai)
			}
			a, r, terminal, bonus, done, err := w.step(s, a, next)
			if err != nil {
				return nil, fmt.Errorf("episode %d step %d: %w", ep, h+1, err)
			}
			reward += r
			if ai == 0 || (ai == agent.BoxAction && a[0] > 0) {
				plus++
			}
			if ai >= 0 && ai < len(counts) {
				counts[ai]++
			}
			ag.Observe(s, a, next)
			steps++
			if rec != nil {
				rec.Transition(ep, steps, s, a, next, r+bonus, terminal)
			}
			s, next = next, s
			if done {
				reward += bonus
				break
			}
		}
		if err := ag.EndEpisode(); err != nil {
			return nil, fmt.Errorf("episode %d: %w", ep, err)
		}
		e := episodeRecord(ag, t.Agent, mdp.Model, prevW, inFamily)
		e.Episode, e.Reward, e.Steps, e.PlusCount, e.Actions = ep, reward, steps, plus, counts
		out = append(out, e)
		totalSteps += steps
		episodeDone(ctx, EpisodeDone{Trial: t, Episode: &out[len(out)-1], StepsSoFar: totalSteps, Seconds: time.Since(epStart).Seconds()})
	}
	if sink := j.Models; sink != nil && ag.Last != nil && ag.Model != nil && !agent.OwnFeatures(t.Agent, mdp.Model) {
		sink.Learned(Learned{Method: ag.Method(), W: append([]float64(nil), ag.Model.W...),
			DPsi: ag.Model.Dist.StatDim(), DPhi: ag.Model.Feat.Dim(), Lambda: ag.Last.Lambda, N: ag.Last.N})
	}
	return out, nil
}

// trueStep scores the step (s, a) and draws the true next state into
// next (a simulator that scores its own steps, env.ScoredStepper, gives
// the reward, after the task's has been checked finite): errors name the reward (env.reward) or the true model (env.w0)
// that is not defined there, as invalid input.
func trueStep(mdp *env.MDP, truth env.Simulator, envRng *rand.Rand, s, a, next []float64) (float64, error) {
	r := mdp.Task.Reward(s, a)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		// A reward written as an expression can leave its domain.
		return 0, errs.Invalid(fmt.Errorf("env.reward is %v at s = %v, a = %v", r, s, a))
	}
	if mdp.CheckTransition != nil {
		if err := mdp.CheckTransition(s, a); err != nil {
			return 0, errs.Invalid(fmt.Errorf("%w; the true transition is not defined there (choose an env.w0 that keeps η inside on the states episodes reach)", err))
		}
	}
	if ss, ok := truth.(env.ScoredStepper); ok {
		r = ss.ScoredStep(s, a, envRng, next)
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return 0, errs.Invalid(fmt.Errorf("the true reward is %v at s = %v, a = %v", r, s, a))
		}
	} else {
		truth.Step(s, a, envRng, next)
	}
	if !finite(next) {
		return 0, errs.Invalid(fmt.Errorf("the true transition drew a non-finite state from s = %v, a = %v: %s", s, a, nonFiniteAdvice(mdp)))
	}
	return r, nil
}

// episodeRecord is the record of ag's end-of-episode refit: its β, ball
// acceptance, λ, diagnostics (moving prevW on), Ŵ with its standard
// errors in the model class's columns, and, when its Ŵ lives in the true
// family (inFamily, config.InTrueFamily), |Ŵ − W0|_F; the caller fills in
// the episode's number, return, length and action counts.
func episodeRecord(ag *agent.Agent, name string, model env.ModelSpec, prevW []float64, inFamily bool) record.Episode {
	e := record.Episode{WError: math.NaN(), Beta: ag.Beta, Accept: ag.Accept, Lambda: ag.CVLambda()}
	e.Diag = refitDiagnostics(ag, prevW)
	// W is recorded in the columns of the model class's features; an
	// agent on other features (lds with model.lds_features) has none.
	if ag.Model != nil && !agent.OwnFeatures(name, model) {
		e.W = append([]float64(nil), ag.Model.W...)
		if ag.SE != nil {
			e.SE = append([]float64(nil), ag.SE...)
		}
	}
	if w0 := model.W0; ag.Learner() && inFamily && w0 != nil && len(e.W) == len(w0) {
		var d2 float64
		for i := range w0 {
			d := e.W[i] - w0[i]
			d2 += d * d
		}
		e.WError = math.Sqrt(d2)
	}
	return e
}

// planError explains an error of the planner's rollouts (Planner.Err): a
// reward or terminal condition that is not finite is the task's (it names
// its key); a non-finite state of a learner's model is its estimate's,
// which λ and b_star bound; the oracle's model is the true one, whose
// env.w0 or family is then at fault (invalid input).
func planError(err error, ag *agent.Agent, mdp *env.MDP) error {
	switch {
	case errors.Is(err, agent.ErrNonFiniteReward), errors.Is(err, agent.ErrUndefinedTerminal), errors.Is(err, agent.ErrValueOverflow):
		return err
	case !ag.Learner():
		return errs.Invalid(fmt.Errorf("%w under the true model the oracle plans with: %s", err, nonFiniteAdvice(mdp)))
	}
	return fmt.Errorf("%w (%s); a larger lambda or a smaller confidence.b_star keeps estimates in range", err, describeW(ag))
}

// refitDiagnostics returns the Diag of ag's last refit (nil for an agent
// that fits nothing) and moves prevW, Ŵ of the previous refit, on to the
// current Ŵ.
func refitDiagnostics(ag *agent.Agent, prevW []float64) *record.Diag {
	if ag.Last == nil || ag.Model == nil {
		return nil
	}
	d := &record.Diag{Cond: math.NaN(), MinEigN: math.NaN()}
	if c, ok := ag.Last.Conditioning(); ok {
		d.Cond = c.Cond
		if ag.Last.N > 0 {
			d.MinEigN = c.MinEig / float64(ag.Last.N)
		}
	}
	var d2 float64
	for i, w := range ag.Model.W {
		x := w - prevW[i]
		d2 += x * x
	}
	copy(prevW, ag.Model.W)
	d.WStep = math.Sqrt(d2)
	return d
}

// describeW names the planning model's parameter for an error message.
func describeW(ag *agent.Agent) string {
	if ag.Model == nil {
		return "the true transition"
	}
	return fmt.Sprintf("Ŵ = %v", ag.Model.W)
}

// nonFiniteAdvice says what makes the true transition leave the numbers.
func nonFiniteAdvice(mdp *env.MDP) string {
	if mdp.True != nil {
		return fmt.Sprintf("env.w0 = %v puts W0 phi(s, a) outside the range where %v can be normalised numerically; "+
			"choose a smaller env.w0 or a base measure q that decays faster (env.family.alpha of custom-sin, exp-sin and x-sin; env.family.log_q of an expression family)", mdp.True.W, mdp.True.Dist)
	}
	return fmt.Sprintf("the %s dynamics diverged; check the env.%s constants", mdp.Kind, mdp.Kind)
}

// AgentCV returns the cross-validation settings of the agents for lambda:
// cv, nil otherwise.
func AgentCV(c *config.Config) *agent.CVConfig {
	if !c.LambdaCV {
		return nil
	}
	return &agent.CVConfig{Grid: c.CV.Grid, Folds: c.CV.Folds}
}
