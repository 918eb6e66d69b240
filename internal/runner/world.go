package runner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
)

// world is the true environment of one trial: the MDP's initial states,
// true simulator and task, or, for an environment that keeps its own
// state (MDP.Live, env.kind external), the trial's session of it. Both
// draw from the same environment stream, keyed by (seed, episode): a
// session is reset with a seed drawn from it, so every agent of a seed
// faces the same episodes whichever process serves it.
type world struct {
	mdp    *env.MDP
	c      *config.Config
	seed   int // the trial's seed index
	envPCG *rand.PCG
	envRng *rand.Rand
	truth  env.Simulator
	sess   env.Session
	ends   bool
	act    []float64 // the action sent to a session: clipped to the box
}

// newWorld opens trial t's true environment (a session of a live MDP, which
// ctx's end stops); close releases it.
func newWorld(ctx context.Context, c *config.Config, mdp *env.MDP, t record.Trial) (*world, error) {
	w := &world{mdp: mdp, c: c, seed: t.Seed, envPCG: rand.NewPCG(0, 0)}
	w.envRng = rand.New(w.envPCG)
	if mdp.Live == nil {
		w.truth = mdp.Dynamics.NewSimulator() // private scratch; shared tables
		w.ends = mdp.Task.Terminates()
		return w, nil
	}
	s, err := mdp.Live.Open(ctx)
	if err != nil {
		return nil, err
	}
	w.sess, w.act = s, make([]float64, mdp.ActionDim())
	return w, nil
}

// close releases the session, if any.
func (w *world) close() {
	if w.sess != nil {
		w.sess.Close()
	}
}

// dynamics is the true transition the trial's agents are built with: a
// session's process is started for the oracle's rollouts only when an
// agent asks for a simulator of it.
func (w *world) dynamics() env.Dynamics {
	if w.sess == nil {
		return w.mdp.Dynamics
	}
	return sessionDynamics{w}
}

type sessionDynamics struct{ w *world }

func (d sessionDynamics) get() env.Dynamics {
	if dyn := d.w.sess.Dynamics(); dyn != nil {
		return dyn
	}
	return d.w.mdp.Dynamics // the oracle was refused when the MDP was built
}
func (d sessionDynamics) NewSimulator() env.Simulator { return d.get().NewSimulator() }
func (d sessionDynamics) NewMean() env.Simulator      { return d.get().NewMean() }

// planErr is the first failure of the session in the oracle's rollouts.
func (w *world) planErr() error {
	if w.sess == nil {
		return nil
	}
	return w.sess.Err()
}

// reset starts episode ep and writes s_1 to s.
func (w *world) reset(ep int, s []float64) error {
	w.envPCG.Seed(streamSeed(w.c.Seed, purposeEnv, uint64(w.seed), uint64(ep)))
	if w.sess != nil {
		// 53 bits: exact in every language's JSON numbers.
		return w.sess.Reset(w.envRng.Uint64()>>11, s)
	}
	w.mdp.Init(w.envRng, s)
	return nil
}

// step plays a at s and writes the next state to next. It returns the
// action played (a session's is clipped to the box: what was sent), the
// reward r(s, a), whether next is terminal with its terminal reward, and
// whether the episode ends there (terminal, or cut short by a session).
func (w *world) step(s, a, next []float64) (played []float64, r float64, terminal bool, bonus float64, ends bool, err error) {
	if w.sess != nil {
		if b := w.mdp.Box; b != nil {
			for i, x := range a {
				w.act[i] = min(max(x, b.Low[i]), b.High[i])
			}
			a = w.act
		}
		r, term, trunc, err := w.sess.Step(a, next)
		return a, r, term, 0, term || trunc, err
	}
	r, err = trueStep(w.mdp, w.truth, w.envRng, s, a, next)
	if err != nil || !w.ends {
		return a, r, false, 0, false, err
	}
	done, bonus := w.mdp.Task.Terminal(next)
	if done && math.IsNaN(bonus) {
		return a, r, false, 0, false, errs.Invalid(fmt.Errorf("env.terminal is undefined (compares a NaN) at s = %v", next))
	}
	return a, r, done, bonus, done, nil
}
