package env

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/stats"
	"github.com/smrl-dev/smrl/internal/testutil"
)

func cartPoleConfig(t *testing.T, noise, density string) *config.Config {
	t.Helper()
	c := testutil.LoadConfig(t, "")
	c.Env.Kind = "cartpole"
	c.Env.Horizon = 200
	(*config.Section[CartPoleConfig](c, "env.cartpole")).Noise = noise
	(*config.Section[CartPoleConfig](c, "env.cartpole")).Density = density
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Expected steps computed with Gym's CartPole-v1 equations (Euler), in an
// independent Python transcription of gym/envs/classic_control/cartpole.py.
func TestCartPolePhysicsMatchesGym(t *testing.T) {
	m, err := New(cartPoleConfig(t, "none", "normal"))
	if err != nil {
		t.Fatal(err)
	}
	sim := m.Dynamics.NewSimulator()
	for _, c := range []struct{ s, a, want []float64 }{
		{[]float64{0.01, -0.02, 0.03, 0.04}, []float64{1}, []float64{0.009600000000000001, 0.17467919574755525, 0.030799999999999998, -0.2430687179600081}},
		{[]float64{0.5, 1.2, -0.15, -0.8}, []float64{-1}, []float64{0.524, 1.007218847541851, -0.16599999999999998, -0.5580101690645438}},
		{[]float64{-2.0, -0.3, 0.19, 1.5}, []float64{0.37}, []float64{-2.006, -0.23023216313563824, 0.22, 1.4527560482094302}},
	} {
		got := make([]float64, 4)
		sim.Step(c.s, c.a, nil, got)
		for i := range got {
			testutil.AbsClosef(t, got[i], c.want[i], 1e-14, "step(%v, %v)[%d] = %.17g, Gym %.17g", c.s, c.a, i, got[i], c.want[i])
		}
	}
	if m.Dim != 4 || len(m.Actions) != 2 || m.Horizon != 200 {
		t.Errorf("MDP %+v", m)
	}
}

func TestCartPoleTaskAndInit(t *testing.T) {
	m, err := New(cartPoleConfig(t, "none", "normal"))
	if err != nil {
		t.Fatal(err)
	}
	task := m.Task
	if !task.Terminates() || task.Reward([]float64{0, 0, 0, 0}, []float64{1}) != 1 {
		t.Error("cartpole: reward 1 per step and terminal states expected")
	}
	for _, c := range []struct {
		s    []float64
		done bool
	}{
		{[]float64{2.4, 0, 0, 0}, false}, {[]float64{2.4000001, 0, 0, 0}, true}, {[]float64{-2.41, 0, 0, 0}, true},
		{[]float64{0, 5, 0.2094, 9}, false}, {[]float64{0, 0, 0.2095, 0}, true}, {[]float64{0, 0, -0.21, 0}, true},
	} {
		if done, bonus := task.Terminal(c.s); done != c.done || bonus != 0 {
			t.Errorf("Terminal(%v) = %v, %v; want %v, 0", c.s, done, bonus, c.done)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float64, 4)
	for range 1000 {
		m.Init(rng, s)
		for _, v := range s {
			if math.Abs(v) >= 0.05 {
				t.Fatalf("s_1 = %v outside (−0.05, 0.05)^4", s)
			}
		}
	}
}

// meanVar returns the sample mean and variance of xs.
func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

// The noise of each variant has the moments it is documented to have, and
// the mean simulator is the average of the true one (within 5 standard
// errors over 40 000 draws).
func TestCartPoleNoise(t *testing.T) {
	p := (*config.Section[CartPoleConfig](cartPoleConfig(t, "none", "normal"), "env.cartpole"))
	sc := CartPoleScales(p)
	var sigma [4]float64
	for i := range sc {
		sigma[i] = p.NoiseScale * sc[i]
	}
	s, a := []float64{0.1, -0.3, 0.05, 0.2}, []float64{1}
	pushed := make([]float64, 4)
	phys := &cartPole{p: p, totalMass: p.MassCart + p.MassPole, poleMassLen: p.MassPole * p.Length}
	phys.physics(s, p.ForceMag, pushed)
	flipped := make([]float64, 4)
	phys.physics(s, -p.ForceMag, flipped)
	const n = 40000
	// Under action_flip s' − pushed = B·(flipped − pushed) + ε, B ~
	// Bernoulli(0.4) independent of the noise ε.
	var flipMean, flipVar, flipNormalVar [4]float64
	for i := range 4 {
		d := flipped[i] - pushed[i]
		flipMean[i], flipVar[i] = 0.4*d, 0.24*d*d
		flipNormalVar[i] = flipVar[i] + sigma[i]*sigma[i]
	}
	for _, c := range []struct {
		noise, density string
		// mean and variance of the additive noise per coordinate
		mean, vari [4]float64
	}{
		{"next_state", "normal", [4]float64{}, [4]float64{sigma[0] * sigma[0], sigma[1] * sigma[1], sigma[2] * sigma[2], sigma[3] * sigma[3]}},
		{"next_state", "exp", [4]float64{sigma[0]}, [4]float64{sigma[0] * sigma[0]}},
		{"next_state", "mog", [4]float64{0.5 * sigma[0]}, [4]float64{sigma[0] * sigma[0] * (1 + 0.25)}},
		{"action_flip", "none", flipMean, flipVar},
		{"action_flip", "normal", flipMean, flipNormalVar}, // the authors' in_action
		{"next_state", "custom-sin", [4]float64{}, [4]float64{}},
		{"next_state", "custom-sin-sigma", [4]float64{}, [4]float64{}},
	} {
		density, base := c.density, "unit"
		if c.density == "custom-sin-sigma" {
			density, base = "custom-sin", "sigma"
		}
		cfg := cartPoleConfig(t, c.noise, density)
		(*config.Section[CartPoleConfig](cfg, "env.cartpole")).CustomSinBase = base
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sim, mean := m.Dynamics.NewSimulator(), m.Dynamics.NewMean()
		rng := rand.New(rand.NewPCG(3, 4))
		draws := make([][]float64, 4)
		out := make([]float64, 4)
		flips := 0
		for range n {
			sim.Step(s, a, rng, out)
			if c.noise == "action_flip" && c.density == "none" {
				switch {
				case slices.Equal(out, flipped):
					flips++
				case !slices.Equal(out, pushed):
					t.Fatalf("%s: step %v is neither the pushed nor the flipped physics", c.noise, out)
				}
			}
			for i := range 4 {
				draws[i] = append(draws[i], out[i]-pushed[i])
			}
		}
		mout := make([]float64, 4)
		mean.Step(s, a, nil, mout)
		for i := range 4 {
			mu, v := meanVar(draws[i])
			se := math.Sqrt(v / n)
			testutil.AbsClosef(t, mu, (mout[i] - pushed[i]), 5*se+1e-15, "%s/%s coordinate %d: sample mean %.6g, mean simulator %.6g (se %.2g)", c.noise, c.density, i, mu, mout[i]-pushed[i], se)
			if strings.HasPrefix(c.density, "custom-sin") {
				continue
			}
			testutil.AbsClosef(t, mu, c.mean[i], 5*se+1e-15, "%s/%s coordinate %d: noise mean %.6g, want %.6g (se %.2g)", c.noise, c.density, i, mu, c.mean[i], se)
			// The variance's standard error is about v·sqrt(2/n) (more for
			// the exponential's heavier tail: allow 8).
			testutil.AbsClosef(t, v, c.vari[i], 8*c.vari[i]*math.Sqrt(2.0/n)+1e-15, "%s/%s coordinate %d: noise variance %.6g, want %.6g", c.noise, c.density, i, v, c.vari[i])
		}
		if c.noise == "action_flip" && c.density == "none" {
			f := float64(flips) / n
			if se := math.Sqrt(0.4 * 0.6 / n); !testutil.AbsWithin(f, 0.4, 5*se) {
				t.Errorf("flip frequency %.4f, want 0.4 (se %.4f)", f, se)
			}
		}
		if strings.HasPrefix(c.density, "custom-sin") {
			// unit: ε_i ∝ exp(−ε²/2 + sin(ε/σ_i)·η); sigma: ε_i/σ_i ∝
			// exp(−u²/2 + sin(u)·η); η = Σ s + a. KS against the family's
			// exact CDF.
			eta := s[0] + s[1] + s[2] + s[3] + a[0]
			for i := range 4 {
				freq, mul := 1/sigma[i], 1.0
				if c.density == "custom-sin-sigma" {
					freq, mul = 1, sigma[i]
				}
				f, _ := expfam.NewSin(freq, 2)
				cdf, err := expfam.NewCDF(f, eta)
				if err != nil {
					t.Fatal(err)
				}
				if d := stats.KS(draws[i], func(x float64) float64 { return cdf.At(x / mul) }); d > 1.628/math.Sqrt(n) {
					t.Errorf("%s coordinate %d: KS %.4f", c.density, i, d)
				}
			}
		}
	}
}

func TestLearnerModel(t *testing.T) {
	c := cartPoleConfig(t, "none", "normal")
	c.Model.Family = []string{"relu-mog", "gaussian", "custom-sin", "relu"}
	testutil.Set(t, c, "model.kink_bandwidth", 0.2)
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	fam := m.Model.Family.(*expfam.Coords)
	if !slices.Equal(fam.Blocks(), []int{3, 1, 1, 2}) || m.Model.Features.Dim() != 5 {
		t.Errorf("blocks %v, d_phi %d", fam.Blocks(), m.Model.Features.Dim())
	}
	sc := CartPoleScales((*config.Section[CartPoleConfig](c, "env.cartpole")))
	for i := range 4 {
		want := 0.1 * sc[i]
		if !testutil.AbsWithin(m.Model.LDSSigma[i], want, 1e-15) || !testutil.AbsWithin(m.Model.KinkBandwidth[i], 0.2*want, 1e-15) {
			t.Errorf("coordinate %d: LDS σ %g, kink bandwidth %g; want %g and %g", i, m.Model.LDSSigma[i], m.Model.KinkBandwidth[i], want, 0.2*want)
		}
	}
	if m.Model.W0 != nil || m.True != nil {
		t.Error("cartpole's truth is not in the model class")
	}
	for _, bad := range []struct {
		family []string
		sigma  []float64
	}{{[]string{"gaussian", "relu"}, nil}, {[]string{"gaussian"}, []float64{1, 2}}} {
		c.Model.Family, c.Model.Sigma = bad.family, bad.sigma
		if _, err := New(c); err == nil {
			t.Errorf("model.family %v, model.sigma %v accepted for 4 coordinates", bad.family, bad.sigma)
		}
	}
}

// Combinations whose densities cannot be tabulated are config errors naming
// the key, before anything runs.
func TestCartPoleUnresolvableSinIsAConfigError(t *testing.T) {
	c := cartPoleConfig(t, "none", "normal")
	c.Model.Family = []string{"custom-sin"}
	c.Model.Sigma = []float64{1e-4}
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "model.sigma") {
		t.Errorf("custom-sin learner at σ = 1e-4: error %v, want one naming model.sigma", err)
	}
	c = cartPoleConfig(t, "next_state", "custom-sin")
	(*config.Section[CartPoleConfig](c, "env.cartpole")).NoiseScale = 1e-4
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "env.cartpole.noise_scale") {
		t.Errorf("custom-sin noise at noise_scale 1e-4: error %v, want one naming env.cartpole.noise_scale", err)
	}
	(*config.Section[CartPoleConfig](c, "env.cartpole")).CustomSinBase = "sigma"
	if _, err := New(c); err != nil {
		t.Errorf("custom_sin_base sigma has no such limit: %v", err)
	}
}

func TestKindsMatchConfigCatalog(t *testing.T) {
	got := Kinds()
	slices.Sort(got)
	want := slices.Clone(config.Names("env.kind"))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("registered kinds %v, config accepts %v", got, want)
	}
}

// The cart-pole's task describes itself (Survival) as it answers Reward
// and Terminal: the same terminal states, at and next to the bounds, at
// ±0, ±Inf and NaN in every coordinate and at random states, the same
// reward and terminal reward.
func TestCartPoleSurvivalIsItsTask(t *testing.T) {
	m, err := New(cartPoleConfig(t, "none", "normal"))
	if err != nil {
		t.Fatal(err)
	}
	sv, ok := m.Task.(Survival)
	if !ok {
		t.Fatal("the cart-pole's task is not a Survival task")
	}
	spec := sv.Survival()
	xth, thth := 2.4, 0.20943951023931953
	var special []float64
	for _, b := range []float64{xth, thth} {
		for _, v := range []float64{b, math.Nextafter(b, 0), math.Nextafter(b, 10)} {
			special = append(special, v, -v)
		}
	}
	special = append(special, 0, math.Copysign(0, -1), 1, -7, math.Inf(1), math.Inf(-1), math.NaN())
	var states [][]float64
	for i := range 4 {
		for _, v := range special {
			s := []float64{0.01, -0.02, 0.03, -0.04}
			s[i] = v
			states = append(states, s)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		states = append(states, []float64{6 * (rng.Float64() - 0.5), 4 * rng.NormFloat64(), 0.6 * (rng.Float64() - 0.5), 4 * rng.NormFloat64()})
	}
	ends := 0
	for _, s := range states {
		done, bonus := m.Task.Terminal(s)
		if got := spec.Ends(s); got != done {
			t.Fatalf("s = %v: Survival ends %v, Terminal %v", s, got, done)
		}
		if done {
			ends++
			if bonus != spec.Bonus {
				t.Fatalf("s = %v: terminal reward %v, Survival's %v", s, bonus, spec.Bonus)
			}
			continue
		}
		for _, a := range m.Actions {
			if r := m.Task.Reward(s, a); r != spec.Reward {
				t.Fatalf("s = %v, a = %v: reward %v, Survival's %v", s, a, r, spec.Reward)
			}
		}
	}
	if ends < 1000 || ends > len(states)-1000 {
		t.Fatalf("%d of %d states terminal: the states do not probe both sides", ends, len(states))
	}
}

// The cart-pole's inline sincos is math.Sincos to the bit: on a fine grid
// of [−1, 1] (both sides of its inline range |x| < 0.7), at random points,
// next to its edges, and at ±0, tiny and subnormal arguments, large ones,
// ±Inf and NaN.
func TestCartPoleSincosIsMathSincos(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("the inline sincos and math.Sincos may fuse different multiply-adds in this build")
	}
	xs := []float64{0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-300, -1e-300, 1e-8, 0.7, -0.7,
		math.Nextafter(0.7, 0), -math.Nextafter(0.7, 0), math.Pi / 4, 3, -100, 1e9, math.Inf(1), math.Inf(-1), math.NaN()}
	for i := -200000; i <= 200000; i++ {
		xs = append(xs, float64(i)/200000)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		xs = append(xs, 1.4*(rng.Float64()-0.5))
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, x := range xs {
		s, c := sincos(x)
		ws, wc := math.Sincos(x)
		if !same(s, ws) || !same(c, wc) {
			t.Fatalf("sincos(%v) = %v, %v; math.Sincos %v, %v", x, s, c, ws, wc)
		}
	}
}
