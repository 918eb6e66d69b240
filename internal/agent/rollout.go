package agent

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/env"
)

// Rollouts is the objective every planning method maximises: the value of
// an action sequence a_0, …, a_{L−1} (L = Steps() = max(τ−1, 1)) at a state
// s under a model, the mean over n rollouts of
//
//	Σ_{t<τ} r(x_t, a_min(t, L−1)),  x_0 = s,  x_{t+1} ~ sim(x_t, a_t),
//
// where a rollout that enters a terminal state collects its terminal reward
// and stops, and the last state x_{τ−1} is scored with the last action held
// (with a reward of the state alone, as in the paper, that is Σ_{t<τ}
// r(x_t)). A deterministic simulator is rolled out once: its mean is that
// rollout. A Task that is env.Shaped adds its potential Φ at each
// rollout's last state. With common random numbers every sequence of one decision
// replays the same noise (Begin draws its seeds).
type Rollouts struct {
	Task env.Task
	Tau  int  // states per rollout, x_0 = s included
	N    int  // rollouts per sequence
	CRN  bool // common random numbers

	x, next      []float64
	phi, phiNext []float64 // the fast path's φ = [x, a] scratch (fastPath sizes them)
	gcur, gnxt   []float64 // the Gaussian path's scratch (gaussPath sizes these four)
	gphi, geta   []float64
	gsig         []float64
	gz           []float64 // the Gaussian path's d_s standard normal deviates
	crn          *rand.PCG
	crnRand      *rand.Rand
	s1, s2       uint64
	bad          bool       // a rollout's value was not finite
	badReward    bool       // a rollout's reward was not finite at a finite state (see Planner.Err)
	badTerminal  bool       // env.terminal was undefined at a finite state a rollout reached
	overflow     bool       // a rollout's value was not finite though its rewards and states were
	rewardAt     []float64  // the first state of badReward, for the error
	terminalAt   []float64  // the first state of badTerminal, for the error
	ends         bool       // Task.Terminates()
	shaped       env.Shaped // the task's potential, added at a rollout's last state; nil: none
	// surv is the task's closed form (env.Survival) when it terminates and
	// its rewards are finite; nil otherwise. The loops then score a state
	// without the task's two calls.
	surv *env.SurvivalSpec
	// batch is the task when it scores a batch of states in one call and
	// never terminates (the Gaussian loop and the fast loop then keep the
	// states of bn rollouts at a time in bx, the Gaussian loop their
	// actions in bacts, and score them into brw); nil otherwise.
	batch env.BatchRewarder
	bn    int // rollouts per batch: N, up to batchStates states
	bx    []float64
	bacts [][]float64
	brw   []float64
	// The K rollouts of Values, stepped together: their states, next
	// states, actions of one step, rewards of one step and returns so far
	// (sized on first use).
	kx, knext, krw, kv []float64
	kacts              [][]float64
	// srcs are the streams whose PCG source is known (bindSource): the
	// common random numbers', and those the planner was told of.
	srcs []source
}

func newRollouts(task env.Task, tau, n int, crn bool, ds int) *Rollouts {
	pcg := rand.NewPCG(0, 0)
	shaped, _ := task.(env.Shaped)
	r := &Rollouts{Task: task, Tau: tau, N: n, CRN: crn, ends: task.Terminates(), shaped: shaped,
		x: make([]float64, ds), next: make([]float64, ds), crn: pcg, crnRand: rand.New(pcg)}
	if sv, ok := task.(env.Survival); ok && r.ends {
		spec := sv.Survival()
		if finite(spec.Reward) && finite(spec.Bonus) {
			r.surv = &spec
		}
	}
	if br, ok := task.(env.BatchRewarder); ok && !r.ends && tau > 1 {
		r.batch = br
		r.bn = max(1, min(n, batchStates/(tau-1)))
		m := r.bn * (tau - 1)
		r.bx, r.bacts, r.brw = make([]float64, m*ds), make([][]float64, m), make([]float64, m)
	}
	r.bind(r.crnRand, r.crn)
	return r
}

// bind makes the rollouts draw rng's deviates from pcg directly (source)
// when rng draws from pcg, and reports whether it does.
func (r *Rollouts) bind(rng *rand.Rand, pcg *rand.PCG) bool {
	s, ok := bindSource(rng, pcg)
	if ok {
		r.srcs = append(r.srcs, s)
	}
	return ok
}

// source returns the bound source of rng, if any.
func (r *Rollouts) source(rng *rand.Rand) (source, bool) {
	for _, s := range r.srcs {
		if s.rng == rng {
			return s, true
		}
	}
	return source{}, false
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Steps is the number of actions of a sequence, max(τ−1, 1).
func (r *Rollouts) Steps() int { return max(r.Tau-1, 1) }

// Begin starts a decision: with common random numbers it draws from rng the
// seeds that every sequence of the decision replays.
func (r *Rollouts) Begin(rng *rand.Rand) {
	if r.CRN {
		r.s1, r.s2 = rng.Uint64(), rng.Uint64()
	}
}

// deterministic is a Simulator that draws nothing (mean rollouts).
type deterministic interface{ Deterministic() bool }

// Value returns the mean rollout return of the sequence act (Steps()
// actions) from s under sim, drawing the rollouts' noise from rng, or
// with common random numbers from the decision's replayed stream. A
// non-finite value sets the flag Planner.Err reports.
func (r *Rollouts) Value(sim Simulator, s []float64, act [][]float64, rng *rand.Rand) float64 {
	if r.CRN {
		r.crn.Seed(r.s1, r.s2)
		rng = r.crnRand
	}
	r0 := r.reward(s, act[0])
	n := r.N
	if d, ok := sim.(deterministic); ok && d.Deterministic() {
		n = 1
	}
	var total float64
	if f, ok := r.fastPath(sim); ok {
		total = f.value(s, act, n, r.Tau, r.bn, r0, rng, r.phi, r.phiNext, r.bx, r.brw)
	} else if g, ok := r.gaussPath(sim); ok {
		total = g.value(r, s, act, n, r0, rng)
	} else {
		total = r.generic(sim, s, act, n, r0, rng)
	}
	if math.IsNaN(total) || math.IsInf(total, 0) {
		r.notFinite()
	}
	return total / float64(n)
}

// generic is Value's loop for any simulator: the sum over n rollouts of r0
// plus what each later state scores (see score), plus a shaped task's
// potential Φ at the rollout's last state.
func (r *Rollouts) generic(sim Simulator, s []float64, act [][]float64, n int, r0 float64, rng *rand.Rand) float64 {
	if rs, ok := r.rewardStepper(sim); ok {
		return r.stepScored(rs, s, act, n, r0)
	}
	last := len(act) - 1
	var total float64
	surv, tau := r.surv, r.Tau
	x, next := r.x, r.next // two scratch states, swapped at every step
	for k := 0; k < n; k++ {
		copy(x, s)
		v := r0
		for t := 1; t < tau; t++ {
			sim.Step(x, act[t-1], rng, next)
			x, next = next, x
			var rw float64
			var stop bool
			if surv != nil {
				rw, stop = surv.Score(x)
			} else {
				rw, stop = r.score(x, act[min(t, last)])
			}
			v += rw
			if stop {
				break
			}
		}
		if r.shaped != nil {
			v += r.shaped.Potential(x)
		}
		total += v
	}
	return total
}

// rewardStepper returns sim as an env.RewardStepper when it scores r's task
// and a rollout needs nothing else of its states (no terminal states, at
// least one step).
func (r *Rollouts) rewardStepper(sim Simulator) (env.RewardStepper, bool) {
	rs, ok := sim.(env.RewardStepper)
	if !ok || r.ends || r.surv != nil || r.Tau < 2 || !rs.Scores(r.Task) {
		return nil, false
	}
	return rs, true
}

// stepScored is generic's loop for a RewardStepper: each state x_t with
// 1 ≤ t < τ − 1 is scored with a_t and stepped from with a_t in one call
// (the two actions are one: generic's step from x_t plays act[t], and t ≤
// len(act) − 1), the last state is only scored; the same values, in the
// same order of additions.
func (r *Rollouts) stepScored(rs env.RewardStepper, s []float64, act [][]float64, n int, r0 float64) float64 {
	last, tau := len(act)-1, r.Tau
	var total float64
	for k := 0; k < n; k++ {
		x, next := r.x, r.next
		rs.Step(s, act[0], nil, x)
		v := r0
		for t := 1; t < tau; t++ {
			var rw float64
			scored := x // the state rw scores
			if t < tau-1 {
				rw = rs.StepReward(x, act[t], next)
				x, next = next, x
			} else {
				rw = r.Task.Reward(x, act[min(t, last)])
			}
			if !finite(rw) {
				r.blameReward(scored)
			}
			v += rw
		}
		if r.shaped != nil {
			v += r.shaped.Potential(x)
		}
		total += v
	}
	return total
}

// batchStepper returns sim as an env.BatchRewardStepper when Values can
// step the rollouts of many sequences together under it: it draws nothing,
// scores the rollouts' task as it steps (rewardStepper: no terminal
// states, τ ≥ 2), steps batches, the task scores batches, and no potential
// is added at a rollout's end.
func (r *Rollouts) batchStepper(sim Simulator) (env.BatchRewardStepper, bool) {
	if bs, ok := sim.(batchSim); ok {
		if r.ends || r.surv != nil || r.Tau < 2 || r.shaped != nil {
			return nil, false
		}
		return scoredBatch{bs, r}, true
	}
	rs, ok := r.rewardStepper(sim)
	if !ok || r.shaped != nil || r.batch == nil {
		return nil, false
	}
	if d, ok := sim.(deterministic); !ok || !d.Deterministic() {
		return nil, false // Values rolls out once
	}
	b, ok := rs.(env.BatchRewardStepper)
	return b, ok
}

// Batched reports whether Values evaluates sequences under sim together.
func (r *Rollouts) Batched(sim Simulator) bool {
	_, ok := r.batchStepper(sim)
	return ok
}

// Values sets rets[k] = Value(sim, s, act_k, ·) for the K = len(rets)
// sequences laid end to end in seqs (sequence k's actions at step t are
// seqs[k·n + t·d_a : k·n + (t+1)·d_a], n = len(seqs)/K), bit for bit K
// Value calls and with the same flags, by stepping the K rollouts together
// (one StepRewards call per step, one Rewards call for their last states).
// sim must be Batched; it draws nothing, so Values takes no stream.
func (r *Rollouts) Values(sim Simulator, s []float64, seqs []float64, da int, rets []float64) {
	b, _ := r.batchStepper(sim)
	if r.CRN {
		r.crn.Seed(r.s1, r.s2) // as each Value call does
	}
	k, ds, tau := len(rets), len(s), r.Tau
	n := len(seqs) / k
	last := n/da - 1
	if len(r.kv) < k {
		r.kx, r.knext = make([]float64, k*ds), make([]float64, k*ds)
		r.krw, r.kv, r.kacts = make([]float64, k), make([]float64, k), make([][]float64, k)
	}
	x, next, rw, v, acts := r.kx[:k*ds], r.knext[:k*ds], r.krw[:k], r.kv[:k], r.kacts[:k]
	setActs := func(t int) {
		for j := range acts {
			acts[j] = seqs[j*n+t*da : j*n+(t+1)*da]
		}
	}
	// x_1 and r(s, a_0), Value's r0, in one call.
	for j := range k {
		copy(x[j*ds:(j+1)*ds], s)
	}
	setActs(0)
	b.StepRewards(x, acts, next, rw)
	x, next = next, x
	for j, r0 := range rw {
		if !finite(r0) {
			r.blameReward(s)
		}
		v[j] = r0
	}
	// stepScored's loop, step by step across the rollouts.
	for t := 1; t < tau; t++ {
		scored := x // the states rw scores
		if t < tau-1 {
			setActs(t)
			b.StepRewards(x, acts, next, rw)
			x, next = next, x
		} else {
			setActs(min(t, last))
			r.rewards(x, acts, rw)
		}
		for j, w := range rw {
			if !finite(w) {
				r.blameReward(scored[j*ds : (j+1)*ds])
			}
			v[j] += w
		}
	}
	for j := range rets {
		var total float64
		total += v[j]
		if !finite(total) {
			r.notFinite()
		}
		rets[j] = total / 1 // Value's total / n, n = 1
	}
}

// rewards sets rw[k] = Task.Reward(x_k, acts[k]) for the states x_k laid
// end to end in x: one call of the task's batch when it has one.
func (r *Rollouts) rewards(x []float64, acts [][]float64, rw []float64) {
	if r.batch != nil {
		r.batch.Rewards(x, acts, rw)
		return
	}
	ds := len(x) / len(rw)
	for k, a := range acts {
		rw[k] = r.Task.Reward(x[k*ds:(k+1)*ds], a)
	}
}

// score returns what the state x_t (t >= 1) of a rollout adds to its
// return, and whether the rollout stops there: the terminal reward of a
// terminal state (stop), else r(x_t, a_min(t, L−1)) (see reward). The
// generic and the Gaussian loop share it; for a Survival task they score
// by its closed form (r.surv) instead, with the same values.
func (r *Rollouts) score(x, a []float64) (v float64, stop bool) {
	if r.ends {
		if done, bonus := r.Task.Terminal(x); done {
			if math.IsNaN(bonus) && finiteState(x) && !r.badTerminal {
				r.badTerminal = true // env.terminal undefined at x (env.Task)
				r.terminalAt = append(r.terminalAt[:0], x...)
			}
			return bonus, true
		}
	}
	return r.reward(x, a), false
}

// notFinite records a rollout value that is not finite. When no state or
// reward has been blamed, the rewards were finite and their sum
// overflowed: the task's fault (ErrValueOverflow), not the model's.
func (r *Rollouts) notFinite() {
	if !r.bad && !r.badReward && !r.badTerminal {
		r.overflow = true
	}
	r.bad = true
}

// blameReward records a reward that is not finite at the state x: the
// task's fault (ErrNonFiniteReward) when x is finite, the planning model's
// (ErrNonFinite) when x itself is not, as when a model's sampler fails.
func (r *Rollouts) blameReward(x []float64) {
	switch {
	case !finiteState(x):
		r.bad, r.overflow = true, false
	case !r.badReward:
		r.badReward = true
		r.rewardAt = append(r.rewardAt[:0], x...)
	}
}

func finiteState(x []float64) bool {
	for _, v := range x {
		if !finite(v) {
			return false
		}
	}
	return true
}

// batchStates bounds the states a batch of rollouts keeps (Rollouts.bn):
// their memory stays small whatever n_rollouts and τ.
const batchStates = 4096

// batchScore adds to total, rollout by rollout, the value of each of the n
// rollouts whose m states each are kept in bx (rollout by rollout, their
// actions in bacts): r0 plus their rewards, added one by one in their order
// (as the loops add each state's score), plus a shaped task's potential at
// the rollout's last state. The rewards come from one Rewards call. It
// sets reward's flag when one is not finite.
func (r *Rollouts) batchScore(total, r0 float64, n, m int) float64 {
	ds := len(r.x)
	rw := r.brw[:n*m]
	r.batch.Rewards(r.bx[:n*m*ds], r.bacts[:n*m], rw)
	for k := range n {
		v := r0
		for i, x := range rw[k*m : (k+1)*m] {
			if !finite(x) {
				r.blameReward(r.bx[(k*m+i)*ds : (k*m+i+1)*ds])
			}
			v += x
		}
		if r.shaped != nil {
			v += r.shaped.Potential(r.bx[((k+1)*m-1)*ds : (k+1)*m*ds])
		}
		total += v
	}
	return total
}

// reward returns r(x, a), and sets the flag Planner.Err reports as
// ErrNonFiniteReward when it is not finite.
func (r *Rollouts) reward(x, a []float64) float64 {
	rw := r.Task.Reward(x, a)
	if math.IsNaN(rw) || math.IsInf(rw, 0) {
		r.blameReward(x)
	}
	return rw
}
