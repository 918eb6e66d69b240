//go:build mujoco

package mujoco

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/env"
)

var specs = []*spec{invertedPendulum, reacher, halfCheetah, hopper}

func load(t *testing.T, sp *spec) *task {
	t.Helper()
	tk, err := sp.load()
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestRegistered: every task env.MuJoCoKinds promises (the untagged
// binary's list) is registered here, with its Gymnasium id, sizes,
// action box and horizon.
func TestRegistered(t *testing.T) {
	kinds := env.Kinds()
	for _, k := range env.MuJoCoKinds {
		if !slices.Contains(kinds, k.Name) {
			t.Errorf("env.kind %s is not registered", k.Name)
		}
		i := slices.IndexFunc(specs, func(sp *spec) bool { return sp.name == k.Name })
		if i < 0 {
			t.Errorf("no spec named %s", k.Name)
			continue
		}
		sp := specs[i]
		if sp.alias != k.Alias || sp.dim != k.Dim || sp.nu != k.ActionDim || sp.ctrlRange != k.CtrlRange || sp.horizon != k.Horizon {
			t.Errorf("%s: spec %s d_s %d d_a %d ±%v H %d, env.MuJoCoKinds %+v", k.Name, sp.alias, sp.dim, sp.nu, sp.ctrlRange, sp.horizon, k)
		}
	}
	if len(specs) != len(env.MuJoCoKinds) {
		t.Errorf("%d specs, env.MuJoCoKinds names %d", len(specs), len(env.MuJoCoKinds))
	}
}

// TestSizes: the compiled models have Gymnasium's coordinates and
// actuators, and the observations its sizes (InvertedPendulum 4, Reacher
// 11, HalfCheetah 17, Hopper 11) and steps (timestep × frame skip).
func TestSizes(t *testing.T) {
	want := map[string]struct {
		nq, nv, nu, dim int
		dt              float64
	}{
		"inverted-pendulum": {2, 2, 1, 4, 0.04}, "reacher": {4, 4, 2, 11, 0.02},
		"half-cheetah": {9, 9, 6, 17, 0.05}, "hopper": {6, 6, 3, 11, 0.008},
	}
	for _, sp := range specs {
		tk, w := load(t, sp), want[sp.name]
		if tk.m.nq != w.nq || tk.m.nv != w.nv || tk.m.nu != w.nu || sp.dim != w.dim || math.Abs(tk.dt-w.dt) > 1e-15 {
			t.Errorf("%s: nq %d nv %d nu %d dim %d dt %v, want %+v", sp.name, tk.m.nq, tk.m.nv, tk.m.nu, sp.dim, tk.dt, w)
		}
		if len(sp.labels) != sp.dim || len(sp.sigma) != sp.dim || len(sp.inScale) != sp.dim+sp.nu {
			t.Errorf("%s: %d labels, %d scales, %d input scales for d_s %d, d_a %d", sp.name, len(sp.labels), len(sp.sigma), len(sp.inScale), sp.dim, sp.nu)
		}
		s := make([]float64, sp.dim)
		tk.init(rand.New(rand.NewPCG(1, 1)), s)
		for i, x := range s {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("%s: s_1[%d] = %v", sp.name, i, x)
			}
		}
	}
}

// setState puts (qpos, qvel) into a fresh data of tk and returns its
// observation.
func setState(tk *task, qpos, qvel []float64) (*data, []float64) {
	d := newData(tk.m)
	copy(d.qpos, qpos)
	copy(d.qvel, qvel)
	d.restore()
	s := make([]float64, tk.dim)
	tk.observe(tk, d, s)
	return d, s
}

// TestObservationLayout checks each observation against the state it
// describes, coordinate by coordinate, and restore against observe.
func TestObservationLayout(t *testing.T) {
	t.Run("inverted-pendulum", func(t *testing.T) {
		_, s := setState(load(t, invertedPendulum), []float64{0.1, -0.05}, []float64{0.3, 2})
		want := []float64{0.1, -0.05, 0.3, 2}
		if !slices.Equal(s, want) {
			t.Errorf("observation %v, want (x, θ, ẋ, θ̇) = %v", s, want)
		}
	})
	t.Run("half-cheetah", func(t *testing.T) {
		qpos := []float64{5, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}
		qvel := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
		_, s := setState(load(t, halfCheetah), qpos, qvel)
		if want := append(slices.Clone(qpos[1:]), qvel...); !slices.Equal(s, want) {
			t.Errorf("observation %v, want (qpos[1:], qvel) = %v", s, want)
		}
	})
	t.Run("hopper", func(t *testing.T) {
		qpos := []float64{3, 1.25, 0.1, -0.2, -0.3, 0.1}
		qvel := []float64{1, -20, 3, 11, -5, 9.5}
		_, s := setState(load(t, hopper), qpos, qvel)
		want := []float64{1.25, 0.1, -0.2, -0.3, 0.1, 1, -10, 3, 10, -5, 9.5} // qvel clipped to ±10
		if !slices.Equal(s, want) {
			t.Errorf("observation %v, want %v", s, want)
		}
	})
	t.Run("reacher", func(t *testing.T) {
		q0, q1, gx, gy := 0.3, -0.5, 0.05, 0.12
		_, s := setState(load(t, reacher), []float64{q0, q1, gx, gy}, []float64{0.7, -0.4, 0, 0})
		// The fingertip is 0.1 m along link 0 and 0.11 m along link 1 from
		// the root; the target body sits at (0.1, −0.1) displaced by
		// (qpos[2] − 0.1, qpos[3] + 0.1) (its slide joints' refs); both at
		// height 0.01.
		fx := 0.1*math.Cos(q0) + 0.11*math.Cos(q0+q1)
		fy := 0.1*math.Sin(q0) + 0.11*math.Sin(q0+q1)
		want := []float64{math.Cos(q0), math.Cos(q1), math.Sin(q0), math.Sin(q1), gx, gy, 0.7, -0.4, fx - gx, fy - gy, 0}
		for i := range want {
			if math.Abs(s[i]-want[i]) > 1e-12 {
				t.Errorf("s[%d] = %v, want %v", i, s[i], want[i])
			}
		}
		a := []float64{0.5, -0.25}
		wantR := -math.Hypot(fx-gx, fy-gy) - (0.25 + 0.0625)
		if r := (reacherTask{}).Reward(s, a); math.Abs(r-wantR) > 1e-12 {
			t.Errorf("reward %v, want −|fingertip − target| − |a|² = %v", r, wantR)
		}
	})
	// restore inverts observe: the state restored from an observation
	// gives the observation back.
	for _, sp := range specs {
		tk := load(t, sp)
		s, back := make([]float64, sp.dim), make([]float64, sp.dim)
		tk.init(rand.New(rand.NewPCG(3, 4)), s)
		d := newData(tk.m)
		tk.resetData(d)
		tk.restore(d, s)
		d.restore()
		tk.observe(tk, d, back)
		for i := range s {
			if math.Abs(s[i]-back[i]) > 1e-12 {
				t.Errorf("%s: restored observation [%d] = %v, want %v", sp.name, i, back[i], s[i])
			}
		}
	}
}

// TestCheetahForwardReward: HalfCheetah's true reward is (x_after −
// x_before)/dt − 0.1|a|². Its model integrates with semi-implicit Euler
// (x_{k+1} = x_k + h·ẋ_{k+1}), so Δx/dt is the mean of ẋ after each of
// the 5 model steps, which the test records one model step at a time.
func TestCheetahForwardReward(t *testing.T) {
	tk := load(t, halfCheetah)
	rng := rand.New(rand.NewPCG(5, 6))
	s, next := make([]float64, 17), make([]float64, 17)
	tk.init(rng, s)
	sim := tk.NewSimulator().(*trueSim)
	ref := newData(tk.m)
	a := []float64{0.5, -1, 0.3, 1, -0.2, 0.8}
	for step := range 30 {
		// the reference continues from the simulator's own state
		tk.resetData(ref)
		copy(ref.qpos, sim.d.qpos)
		copy(ref.qvel, sim.d.qvel)
		if step == 0 {
			tk.restore(ref, s)
		}
		ref.restore()
		var mean float64
		for range 5 {
			ref.step(a, 1)
			mean += ref.qvel[0] / 5
		}
		r := sim.ScoredStep(s, a, rng, next)
		want := mean - 0.1*(0.25+1+0.09+1+0.04+0.64)
		if math.Abs(r-want) > 1e-9 {
			t.Fatalf("step %d: reward %v, want mean ẋ − 0.1|a|² = %v", step, r, want)
		}
		s, next = next, s
	}
	if r := (cheetahTask{}).Reward([]float64{0, 0, 0, 0, 0, 0, 0, 0, 2.5, 9, 9, 9, 9, 9, 9, 9, 9}, a); math.Abs(r-(2.5-0.302)) > 1e-12 {
		t.Errorf("planners' reward %v, want ẋ − 0.1|a|² = %v", r, 2.5-0.302)
	}
}

// TestHopperRewardAndHealth: the planners' reward is 1 + ẋ − 0.001|a|²;
// the true reward adds Δx/dt to the healthy 1; a state is terminal
// unless 0.7 < z, |pitch| < 0.2 and |s_i| < 100 (bounds strict, as
// Gymnasium's).
func TestHopperRewardAndHealth(t *testing.T) {
	h := hopperTask{}
	s := []float64{1.2, 0.05, -0.3, -0.4, 0.2, 1.5, 0.1, 0.2, 0.3, 0.4, 0.5}
	a := []float64{1, -0.5, 0.2}
	if r, want := h.Reward(s, a), 1+1.5-1e-3*(1+0.25+0.04); math.Abs(r-want) > 1e-12 {
		t.Errorf("reward %v, want %v", r, want)
	}
	for _, c := range []struct {
		i    int
		v    float64
		done bool
	}{
		{0, 0.7, true}, {0, math.Nextafter(0.7, 1), false}, {0, 5, false}, {0, math.Inf(1), true}, {0, math.NaN(), true},
		{1, 0.2, true}, {1, -0.2, true}, {1, 0.199, false}, {1, -0.199, false},
		{3, 100, true}, {3, -100, true}, {3, 99.9, false}, {8, 100, true}, {8, math.NaN(), true},
	} {
		x := slices.Clone(s)
		x[c.i] = c.v
		if done, bonus := h.Terminal(x); done != c.done || bonus != 0 {
			t.Errorf("s[%d] = %v: terminal %v (bonus %v), want %v", c.i, c.v, done, bonus, c.done)
		}
	}
	// The true reward: a hopper standing at rest drops a little under
	// gravity and its motors; Δx/dt from the simulator against x read
	// from its data before and after.
	tk := load(t, hopper)
	rng := rand.New(rand.NewPCG(7, 8))
	x0, x1 := make([]float64, 11), make([]float64, 11)
	tk.init(rng, x0)
	sim := tk.NewSimulator().(*trueSim)
	sim.ScoredStep(x0, a, rng, x1) // the state is now the simulator's
	before := sim.d.qpos[0]
	r := sim.ScoredStep(x1, a, rng, x0)
	if want := (sim.d.qpos[0]-before)/0.008 + 1 - 1e-3*(1+0.25+0.04); math.Abs(r-want) > 1e-12 {
		t.Errorf("true reward %v, want Δx/dt + 1 − 0.001|a|² = %v", r, want)
	}
}

// TestPoleBounds: InvertedPendulum's terminal states are |θ| > 0.2
// exactly, in Terminal and in its Survival form alike.
func TestPoleBounds(t *testing.T) {
	p := poleTask{}
	sp := p.Survival()
	for _, th := range []float64{0, 0.2, -0.2, math.Nextafter(0.2, 1), math.Nextafter(-0.2, -1), 0.5, -3} {
		s := []float64{0.3, th, 1, -2}
		done, bonus := p.Terminal(s)
		want := math.Abs(th) > 0.2
		if done != want || bonus != 0 || sp.Ends(s) != want {
			t.Errorf("θ = %v: terminal %v (bonus %v), survival %v; want %v", th, done, bonus, sp.Ends(s), want)
		}
	}
	if p.Reward(nil, nil) != 1 || sp.Reward != 1 || sp.Bonus != 0 {
		t.Errorf("reward %v, survival %+v: want 1 per step and no terminal reward", p.Reward(nil, nil), sp)
	}
}

// TestResetDeterministic: s_1 depends on the stream alone (two draws
// from equal seeds are equal bit for bit, from other seeds not), and lies
// within Gymnasium's reset noise around the model's initial state.
func TestResetDeterministic(t *testing.T) {
	for _, sp := range specs {
		tk := load(t, sp)
		a, b, c := make([]float64, sp.dim), make([]float64, sp.dim), make([]float64, sp.dim)
		tk.init(rand.New(rand.NewPCG(9, 10)), a)
		tk.init(rand.New(rand.NewPCG(9, 10)), b)
		tk.init(rand.New(rand.NewPCG(9, 11)), c)
		if !sameBits(a, b) || sameBits(a, c) {
			t.Errorf("%s: s_1 from equal seeds %v and %v, from another %v", sp.name, a, b, c)
		}
	}
	rng := rand.New(rand.NewPCG(12, 13))
	ip, rc, hc := load(t, invertedPendulum), load(t, reacher), load(t, halfCheetah)
	s := make([]float64, 17)
	for range 200 {
		ip.init(rng, s[:4])
		for i, x := range s[:4] {
			if math.Abs(x) > 0.01 {
				t.Fatalf("InvertedPendulum s_1[%d] = %v outside U(−0.01, 0.01)", i, x)
			}
		}
		rc.init(rng, s[:11])
		if g := math.Hypot(s[4], s[5]); g >= 0.2 || math.Abs(s[6]) > 0.005 || math.Abs(s[7]) > 0.005 {
			t.Fatalf("Reacher s_1 = %v: target at radius %v (want < 0.2), velocities beyond 0.005", s[:11], g)
		}
		if th0 := math.Atan2(s[2], s[0]); math.Abs(th0) > 0.1 {
			t.Fatalf("Reacher s_1: q0 = %v outside U(−0.1, 0.1)", th0)
		}
		hc.init(rng, s)
		// z's qpos0 is 0 (the torso's 0.7 m is its body offset); the
		// angles' too.
		for i, x := range s[:8] {
			if math.Abs(x) > 0.1 {
				t.Fatalf("HalfCheetah s_1[%d] = %v outside U(−0.1, 0.1)", i, x)
			}
		}
	}
}

// TestTrueAndMeanStepsAgree: the oracle's step (the state restored from
// the observation) matches the true environment's (which keeps its own
// state): exactly for InvertedPendulum and Reacher, whose observations
// hold their dynamics' state, and closely for HalfCheetah and Hopper
// (x is unobserved but the floor is a plane; the solver's warm start
// differs), over 50 steps of random actions; two true simulators given
// the same calls agree bit for bit.
func TestTrueAndMeanStepsAgree(t *testing.T) {
	tol := map[string]float64{"inverted-pendulum": 1e-12, "reacher": 1e-12, "half-cheetah": 1e-6, "hopper": 1e-6}
	for _, sp := range specs {
		tk := load(t, sp)
		rng := rand.New(rand.NewPCG(14, 15))
		s := make([]float64, sp.dim)
		tk.init(rng, s)
		s2 := slices.Clone(s)
		sim, twin, mean := tk.NewSimulator(), tk.NewSimulator(), tk.NewMean()
		next, next2, pred := make([]float64, sp.dim), make([]float64, sp.dim), make([]float64, sp.dim)
		a := make([]float64, sp.nu)
		worst := 0.0
		for range 50 {
			for j := range a {
				a[j] = sp.ctrlRange * (2*rng.Float64() - 1)
			}
			mean.Step(s, a, nil, pred)
			sim.Step(s, a, nil, next)
			twin.Step(s2, a, nil, next2)
			if !sameBits(next, next2) {
				t.Fatalf("%s: two true simulators differ: %v and %v", sp.name, next, next2)
			}
			for i := range next {
				worst = max(worst, math.Abs(next[i]-pred[i])/max(1, math.Abs(next[i])))
			}
			if done, _ := tk.newTask(tk).Terminal(next); done {
				break
			}
			s, next = next, s
			s2, next2 = next2, s2
		}
		if worst > tol[sp.name] {
			t.Errorf("%s: the oracle's step differs from the true step by %g (relative), tolerance %g", sp.name, worst, tol[sp.name])
		}
	}
}

// TestPendulumPeriod: InvertedPendulum's pole, with the cart held (an
// armature of 1e12 on the slider), its hinge damping removed and gravity
// reversed (so that upright is the stable equilibrium), swings with the
// small-angle period of a physical pendulum, T = 2π√(I/(m g l)), I its
// moment of inertia about the hinge and l the hinge's distance to its
// centre of mass, derived here from the MJCF's capsule (radius 0.049,
// from (0, 0, 0) to (0.001, 0, 0.6), density 1000 kg/m³ by default):
//
//	m_c = ρπr²L, m_h = ρ(2/3)πr³ (each cap), m = m_c + 2m_h, l = |end|/2,
//	I = m_c(3r² + L²)/12 + 2[(2/5 − 9/64)m_h r² + m_h(L/2 + 3r/8)²] + m l².
func TestPendulumPeriod(t *testing.T) {
	tk := load(t, invertedPendulum)
	const rho, r, g = 1000.0, 0.049, 9.81
	L := math.Hypot(0.001, 0.6)
	mc, mh := rho*math.Pi*r*r*L, rho*2.0/3.0*math.Pi*r*r*r
	m, l := mc+2*mh, L/2
	I := mc*(3*r*r+L*L)/12 + 2*((2.0/5-9.0/64)*mh*r*r+mh*(L/2+3*r/8)*(L/2+3*r/8)) + m*l*l
	want := 2 * math.Pi * math.Sqrt(I/(m*g*l))
	if mass, _, _ := tk.m.bodyMass(2); math.Abs(mass-m) > 1e-9*m {
		t.Errorf("the pole's mass is %v in the model, %v from the capsule", mass, m)
	}

	grav, arm, damp := tk.m.gravity(), tk.m.dofArmature(), tk.m.dofDamping()
	grav[2], arm[0], damp[1] = +g, 1e12, 0
	d := newData(tk.m)
	tk.resetData(d)
	d.qpos[1] = 0.01 // rad: sin θ = θ to 2e-5 relative
	d.restore()
	// Time the upward zero crossings of θ, interpolated linearly, over
	// about 8 periods.
	var crossings []float64
	h := tk.m.timestep
	prev := d.qpos[1]
	zero := []float64{0}
	for k := 1; k <= 800; k++ {
		d.step(zero, 1)
		th := d.qpos[1]
		if prev < 0 && th >= 0 {
			crossings = append(crossings, (float64(k-1)+prev/(prev-th))*h)
		}
		prev = th
	}
	if len(crossings) < 5 {
		t.Fatalf("%d upward crossings of θ = 0 in 16 s", len(crossings))
	}
	got := (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	// Linear interpolation of a sine over h = T/64 errs by < 1e-4·T.
	if math.Abs(got-want) > 1e-3*want {
		t.Errorf("small-angle period %.6f s, want 2π√(I/(mgl)) = %.6f s (m %.5f kg, l %.4f m, I %.6f kg m²)", got, want, m, l, I)
	}
	t.Logf("period %.6f s, analytic %.6f s", got, want)
}
