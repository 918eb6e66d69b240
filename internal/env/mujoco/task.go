//go:build mujoco

package mujoco

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

// spec is a MuJoCo task as Gymnasium's v4 environment defines it.
type spec struct {
	name, alias, doc string
	xml              string // the MJCF model
	frameSkip        int    // model steps per environment step
	horizon          int    // Gymnasium's max_episode_steps
	dim              int    // the observation's length
	nu               int    // the action's length (actuators)
	ctrlRange        float64
	labels           []string
	// observe writes the observation of d.
	observe func(t *task, d *data, out []float64)
	// restore writes into d.qpos and d.qvel the state of observation s:
	// what the dynamics depend on (the tasks leave out x, on which they do
	// not); data.restore then computes its kinematics.
	restore func(d *data, s []float64)
	// reset draws Gymnasium's reset_model into d.qpos and d.qvel, which
	// hold the model's initial qpos0 and zero velocities.
	reset func(rng *rand.Rand, d *data)
	// progress, when set, is the true reward of a step of the model from a
	// state whose x was xBefore, played with a, now in d (HalfCheetah's
	// and Hopper's forward progress Δx/dt, x not being observed); nil:
	// the true reward is the task's Reward(s, a).
	progress func(xBefore float64, d *data, a []float64) float64
	// newTask is the reward and terminal states the agents plan with.
	newTask func(t *task) env.Task
	// sigma are the learners' default noise scales per coordinate;
	// inScale the typical ranges of (s, a) for random Fourier features.
	sigma, inScale []float64
}

// task is a loaded spec: its compiled model and scratch data for drawing
// initial states.
type task struct {
	*spec
	m    *model
	dt   float64 // the environment step, timestep·frame_skip
	pool sync.Pool
	// bodies the observation reads (Reacher's fingertip and target).
	bodies map[string]int
}

// kind is the registration of a spec: env.kind NAME and its Gymnasium
// id, which sets the horizon and the box of actions (env.MuJoCoKinds,
// shared with the untagged build).
func (sp *spec) kind() env.Kind {
	k := sp.table()
	return env.Kind{Part: config.Part{Name: sp.name, Aliases: []config.Alias{k.GymAlias()},
		Doc: sp.doc, Uses: []string{"model"}, Dim: sp.dim, Validate: sp.validate},
		Build: sp.build}
}

// table is sp's entry of env.MuJoCoKinds.
func (sp *spec) table() env.MuJoCoKind {
	for _, k := range env.MuJoCoKinds {
		if k.Name == sp.name {
			return k
		}
	}
	panic("mujoco: " + sp.name + " is not in env.MuJoCoKinds")
}

// validate checks that the actions are boxes of the task's actuators.
func (sp *spec) validate(c *config.Config, bad config.Bad) {
	if c.Env.ActionSpace != "box" {
		bad("env.action_space", "%s has continuous actions (box; env.kind: %s sets it), got %q", sp.name, sp.alias, c.Env.ActionSpace)
	}
	if c.Env.ActionDim != sp.nu {
		bad("env.action_dim", "%s has %d actuators, got action_dim %d", sp.name, sp.nu, c.Env.ActionDim)
	}
}

// load compiles the model of sp.
func (sp *spec) load() (*task, error) {
	m, err := loadModel(sp.xml)
	if err != nil {
		return nil, fmt.Errorf("env.kind %s: %w", sp.name, err)
	}
	if m.nu != sp.nu {
		return nil, fmt.Errorf("env.kind %s: the model has %d actuators, the task %d", sp.name, m.nu, sp.nu)
	}
	t := &task{spec: sp, m: m, dt: m.timestep * float64(sp.frameSkip), bodies: map[string]int{}}
	t.pool.New = func() any { return newData(m) }
	for _, b := range []string{"fingertip", "target"} {
		if id := m.bodyID(b); id >= 0 {
			t.bodies[b] = id
		}
	}
	return t, nil
}

func (sp *spec) build(c *config.Config) (*env.MDP, error) {
	t, err := sp.load()
	if err != nil {
		return nil, err
	}
	model, err := env.LearnerSpec(c, sp.sigma, sp.nu, sp.inScale)
	if err != nil {
		return nil, err
	}
	return &env.MDP{Dim: sp.dim, Task: sp.newTask(t), Dynamics: t, Model: model, Init: t.init,
		Labels: sp.labels, Query: t.initial()}, nil
}

// init draws s_1: Gymnasium's reset (mj_resetData, reset_model's noise,
// mj_forward) and its observation.
func (t *task) init(rng *rand.Rand, s []float64) {
	d := t.pool.Get().(*data)
	defer t.pool.Put(d)
	t.resetData(d)
	t.reset(rng, d)
	d.restore()
	t.observe(t, d, s)
}

// initial is the observation of the model's initial state, without noise.
func (t *task) initial() []float64 {
	d := t.pool.Get().(*data)
	defer t.pool.Put(d)
	t.resetData(d)
	d.restore()
	s := make([]float64, t.dim)
	t.observe(t, d, s)
	return s
}

// resetData sets qpos to the model's qpos0 and qvel to zero.
func (t *task) resetData(d *data) {
	copy(d.qpos, floats(t.m.m.qpos0, t.m.nq))
	clear(d.qvel)
}

// NewSimulator returns the true environment: one mjData that keeps the
// whole state from step to step (x, velocities beyond the observation's
// clip, the solver's warm start) as Gymnasium's environment does. A step
// from a state other than the observation it wrote last (the first of an
// episode) starts from that observation, as after a reset.
func (t *task) NewSimulator() env.Simulator {
	return &trueSim{t: t, d: newData(t.m), last: make([]float64, t.dim), task: t.newTask(t)}
}

// NewMean returns the oracle's model: MuJoCo draws nothing, so the mean
// transition is the transition, each step from the state of its
// observation.
func (t *task) NewMean() env.Simulator { return &meanSim{t: t, d: newData(t.m)} }

type trueSim struct {
	t    *task
	d    *data
	last []float64 // the observation of d's state, when have
	have bool
	task env.Task // the reward of a task without progress
}

// Step moves s under a to out.
func (s *trueSim) Step(x, a []float64, rng *rand.Rand, out []float64) { s.ScoredStep(x, a, rng, out) }

// ScoredStep is Step, returning the step's true reward
// (env.ScoredStepper).
func (s *trueSim) ScoredStep(x, a []float64, _ *rand.Rand, out []float64) float64 {
	t, d := s.t, s.d
	if !s.have || !sameBits(x, s.last) {
		t.resetData(d)
		t.restore(d, x)
		d.restore()
	}
	xBefore := d.qpos[0]
	d.step(a, t.frameSkip)
	t.observe(t, d, out)
	copy(s.last, out)
	s.have = true
	if t.progress != nil {
		return t.progress(xBefore, d, a)
	}
	return s.task.Reward(x, a)
}

// Deterministic reports that the step draws nothing (MuJoCo's dynamics
// are deterministic; only the initial state is random).
func (*trueSim) Deterministic() bool { return true }

// sameBits reports whether x and y hold the same float64s bit for bit.
func sameBits(x, y []float64) bool {
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

type meanSim struct {
	t *task
	d *data
}

// Step moves s under a to out, from the state of observation s.
func (s *meanSim) Step(x, a []float64, _ *rand.Rand, out []float64) {
	t, d := s.t, s.d
	t.resetData(d)
	t.restore(d, x)
	d.restore()
	d.step(a, t.frameSkip)
	t.observe(t, d, out)
}

// Deterministic reports that the step draws nothing.
func (*meanSim) Deterministic() bool { return true }

// register is the registry of MuJoCo tasks: one line each.
func init() {
	env.Register(
		invertedPendulum.kind(),
		reacher.kind(),
		halfCheetah.kind(),
		hopper.kind(),
	)
}
