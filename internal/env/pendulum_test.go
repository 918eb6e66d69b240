package env

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func physicsConfig(t *testing.T, kind string) *config.Config {
	t.Helper()
	c := testutil.LoadConfig(t, "")
	c.Env.Kind = kind
	c.Env.ActionSpace = "box"
	c.Planner.Kind = "mppi"
	switch kind {
	case "pendulum":
		c.Env.Horizon = 200
		c.Env.ActionLow, c.Env.ActionHigh = []float64{-2}, []float64{2}
	case "mountain-car":
		c.Env.Horizon = 999
	case "lq":
		c.Env.Horizon = 30
		c.Planner.Kind = "cem"
	case "acrobot":
		c.Env.Horizon = 500
		c.Planner.Kind = "cem"
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Expected values from an independent Python transcription of Gymnasium's
// Pendulum-v1 step on the internal state (θ, θ̇): u = clip(u, ±2),
// θ̇' = clip(θ̇ + (3g/(2l) sin θ + 3/(ml²) u) dt, ±8), θ' = θ + θ̇' dt,
// reward −(angle_normalize(θ)² + 0.1 θ̇² + 0.001 u²), observed as
// (cos θ, sin θ, θ̇).
func TestPendulumMatchesGymnasium(t *testing.T) {
	m, err := New(physicsConfig(t, "pendulum"))
	if err != nil {
		t.Fatal(err)
	}
	sim := m.Dynamics.NewSimulator()
	for _, c := range []struct {
		s      []float64
		a      float64
		want   []float64
		reward float64
	}{
		{[]float64{0.955336489125606, 0.29552020666133955, -0.7}, 1.5, []float64{0.9590033824526658, 0.283394623174728, -0.2533598450039953}, -0.1412499999999999},
		// a = −2 at θ = 3: the torque limit.
		{[]float64{-0.9899924966004454, 0.1411200080598672, 2.0}, -2.0, []float64{-0.9986844100501973, 0.05127815443919117, 1.8058400060449005}, -9.404},
		// a = 3.5 is clipped to 2, θ = −2.5.
		{[]float64{-0.8011436155469337, -0.5984721441039565, 7.9}, 3.5, []float64{-0.5155474074422107, -0.8568610568112051, 7.751145891922033}, -12.495},
		// Hanging down at rest: r = −π².
		{[]float64{-1.0, 1.2246467991473532e-16, 0.0}, 0.0, []float64{-1.0, 1.2246467991473532e-16, 9.184850993605151e-17}, -9.869604401089358},
		// The speed limit: θ̇' = −8.
		{[]float64{0.9950041652780258, -0.09983341664682815, -7.95}, -2, []float64{0.8775825618903728, -0.479425538604203, -8.0}, -6.33425},
	} {
		a := []float64{c.a}
		if r := m.Task.Reward(c.s, a); !testutil.AbsWithin(r, c.reward, 1e-12) {
			t.Errorf("r(%v, %v) = %.17g, Gymnasium %.17g", c.s, c.a, r, c.reward)
		}
		got := make([]float64, 3)
		sim.Step(c.s, a, nil, got)
		for i := range got {
			testutil.AbsClosef(t, got[i], c.want[i], 1e-12, "step(%v, %v)[%d] = %.17g, Gymnasium %.17g", c.s, c.a, i, got[i], c.want[i])
		}
	}
	// Three steps from θ = 1, θ̇ = 0 with u = 2, −1, 0.5: state and return.
	s, next := []float64{math.Cos(1), math.Sin(1), 0}, make([]float64, 3)
	var ret float64
	for _, u := range []float64{2, -1, 0.5} {
		ret += m.Task.Reward(s, []float64{u})
		sim.Step(s, []float64{u}, nil, next)
		s, next = next, s
	}
	want := []float64{0.3370019905093254, 0.9415039343479944, 2.179826071924782}
	for i := range s {
		testutil.AbsClosef(t, s[i], want[i], 1e-12, "after 3 steps s[%d] = %.17g, Gymnasium %.17g", i, s[i], want[i])
	}
	testutil.AbsClosef(t, ret, (-3.641912058991247), 1e-12, "3-step return %.17g, Gymnasium −3.641912058991247", ret)
	if m.Dim != 3 || m.Box == nil || m.Box.Low[0] != -2 || m.Task.Terminates() {
		t.Errorf("MDP %+v", m)
	}
}

// s_1: θ ~ Unif[−π, π], θ̇ ~ Unif[−1, 1], on the unit circle; the
// mean of θ̇ and of |θ| (π/2) within 5 standard errors.
func TestPendulumInit(t *testing.T) {
	m, err := New(physicsConfig(t, "pendulum"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float64, 3)
	const n = 20000
	var absTh, w float64
	for range n {
		m.Init(rng, s)
		if !testutil.AbsWithin(s[0]*s[0]+s[1]*s[1], 1, 1e-15) || math.Abs(s[2]) > 1 {
			t.Fatalf("s_1 = %v", s)
		}
		absTh += math.Abs(math.Atan2(s[1], s[0]))
		w += s[2]
	}
	// |θ| ~ Unif[0, π]: sd π/√12; θ̇ ~ Unif[−1, 1]: sd 1/√3.
	if se := math.Pi / math.Sqrt(12*n); !testutil.AbsWithin(absTh/n, math.Pi/2, 5*se) {
		t.Errorf("E|θ_1| = %v, want π/2 ± %v", absTh/n, 5*se)
	}
	if se := 1 / math.Sqrt(3*n); math.Abs(w/n) > 5*se {
		t.Errorf("E θ̇_1 = %v, want 0 ± %v", w/n, 5*se)
	}
}

// noise: normal adds N(0, σ_θ̇²) to θ̇' (before the clip) and N(0, σ_θ²)
// to θ': the mean and standard deviation of θ̇' − θ̇'_0 and of the angle
// θ' − θ'_0 match within 5 standard errors; the mean simulator is the
// noise-free step.
func TestPendulumNoise(t *testing.T) {
	c := physicsConfig(t, "pendulum")
	(*config.Section[PendulumConfig](c, "env.pendulum")).Noise = "normal"
	(*config.Section[PendulumConfig](c, "env.pendulum")).NoiseStd = []float64{0.02, 0.3}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	s, a := []float64{math.Cos(2), math.Sin(2), 1}, []float64{0.5}
	base := make([]float64, 3)
	m.Dynamics.NewMean().Step(s, a, nil, base)
	free := make([]float64, 3)
	noiseFree, _ := New(physicsConfig(t, "pendulum"))
	noiseFree.Dynamics.NewSimulator().Step(s, a, nil, free)
	for i := range base {
		if base[i] != free[i] {
			t.Fatalf("mean step %v, noise-free step %v", base, free)
		}
	}
	sim := m.Dynamics.NewSimulator()
	rng := rand.New(rand.NewPCG(3, 4))
	out := make([]float64, 3)
	const n = 20000
	var sw, sw2, st, st2 float64
	th0 := math.Atan2(base[1], base[0])
	for range n {
		sim.Step(s, a, rng, out)
		dw := out[2] - base[2]
		// θ' − θ'_0 = ε_θ + dt·ε_θ̇.
		dth := math.Remainder(math.Atan2(out[1], out[0])-th0, 2*math.Pi)
		sw += dw
		sw2 += dw * dw
		st += dth
		st2 += dth * dth
	}
	sdW := 0.3
	sdTh := math.Hypot(0.02, 0.05*0.3)
	for _, c := range []struct {
		name      string
		sum, sum2 float64
		wantSD    float64
	}{{"θ̇'", sw, sw2, sdW}, {"θ'", st, st2, sdTh}} {
		mean := c.sum / n
		sd := math.Sqrt(c.sum2/n - mean*mean)
		if math.Abs(mean) > 5*c.wantSD/math.Sqrt(n) || !testutil.AbsWithin(sd, c.wantSD, 5*c.wantSD/math.Sqrt(2*n)) {
			t.Errorf("%s noise: mean %v, sd %v; want 0, %v", c.name, mean, sd, c.wantSD)
		}
	}
}

// The learners' model class from config section model: rff features of
// (s, a) scaled by the environment's input scales (cos θ, sin θ, θ̇/8, u/2)
// unless model.input_scale is set; the lds agent's own linear features; the
// difference target. A wrong number of input scales is an error naming
// the key.
func TestPendulumModelClass(t *testing.T) {
	c := physicsConfig(t, "pendulum")
	c.Model.Features.Kind, c.Model.Target, c.Model.LDSFeatures = "rff", "delta", "linear"
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	rff, ok := m.Model.Features.(*expfam.RFF)
	if !ok || len(rff.Inputs) != 4 || rff.Inputs[2] != 8 || rff.Inputs[3] != 2 {
		t.Fatalf("features %v, want rff with input scales (1, 1, 8, 2)", m.Model.Features)
	}
	if _, ok := m.Model.LDSFeatures.(expfam.Linear); !ok || !m.Model.Delta {
		t.Errorf("LDS features %v, delta %v", m.Model.LDSFeatures, m.Model.Delta)
	}
	c.Model.InputScale = []float64{1, 1, 4}
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "model.input_scale: 3 scales for 4 inputs") {
		t.Errorf("3 input scales: %v", err)
	}
	c.Model.InputScale = []float64{1, 1, 4, 1}
	m, err = New(c)
	if err != nil || m.Model.Features.(*expfam.RFF).Inputs[2] != 4 {
		t.Errorf("model.input_scale not applied: %v %v", err, m.Model.Features)
	}
	// model.lds_features equal to the model's features: no separate LDS features.
	c.Model.Features.Kind = "linear"
	if m, err = New(c); err != nil || m.Model.LDSFeatures != nil {
		t.Errorf("linear model features: LDS features %v, %v", m.Model.LDSFeatures, err)
	}
}
