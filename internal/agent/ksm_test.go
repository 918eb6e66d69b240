package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/testutil"
)

const ksmPendulum = `
lambda: 0.001
agents: [ksm, sm]
env:
  kind: pendulum
  horizon: 200
  action_space: box
  action_low: [-2]
  action_high: [2]
  pendulum:
    noise: mixture
    mixture_weights: [0.5, 0.5]
    mixture_means: [-1.5, 1.5]
    mixture_stds: [0.3, 0.3]
model:
  family: [gaussian]
  sigma: [1]
  target: delta
  features:
    kind: rff
    dim: 40
    length: 1
ksm:
  centres: 10
planner:
  kind: mppi
  rollout: mean
`

// pendulumData draws n transitions of the bimodal pendulum from states
// θ ~ U(−π, π), θ̇ ~ U(−3, 3) under torques a ~ U(−2, 2).
func pendulumData(mdp *env.MDP, n int, rng *rand.Rand) (s, a, next [][]float64) {
	sim := mdp.Dynamics.NewSimulator()
	for range n {
		th := math.Pi * (2*rng.Float64() - 1)
		x := []float64{math.Cos(th), math.Sin(th), 3 * (2*rng.Float64() - 1)}
		u := []float64{2 * (2*rng.Float64() - 1)}
		y := make([]float64, 3)
		sim.Step(x, u, rng, y)
		s, a, next = append(s, x), append(a, u), append(next, y)
	}
	return s, a, next
}

// TestKSMLearnsBimodalSpeed: the ksm agent (40 features, 10 centres)
// fitted to 600 transitions of the pendulum with bimodal torque noise (4
// refits of 150, so the centres are drawn at 150 and 300) has a held-out
// log-likelihood of θ̇' − θ̇ (150 fresh transitions) at least 0.2 nats per
// transition above the best
// Gaussian of fixed σ on the sm agent's mean (σ fitted on the test set
// itself) and below the true density's (the torque mixture through the
// step) plus 0.05; it is finite for every coordinate; and a second agent
// fed the same transitions ends with the same Ŵ, bit for bit. Measured on
// 2026-11-28 (the per-transition differences' mean ± its standard error):
// ksm − Gaussian 0.448 ± 0.045 and ksm − truth −0.487 ± 0.055 nats, 5.5
// and 9.7 standard errors inside the margins (on 300 held-out
// transitions, which took twice the quadratures: 0.444 ± 0.033 and
// −0.499 ± 0.045); a ksm no better than the Gaussian fails by 4.4.
func TestKSMLearnsBimodalSpeed(t *testing.T) {
	c := testutil.LoadConfig(t, testutil.WriteYAML(t, ksmPendulum))
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 22))
	s, a, next := pendulumData(mdp, 600, rng)
	ts, ta, tnext := pendulumData(mdp, 150, rng)
	agents := map[string]*Agent{}
	for _, name := range []string{"ksm", "sm", "ksm2"} {
		kind := name
		if name == "ksm2" {
			kind = "ksm"
		}
		ag, err := New(kind, mdp.Model, mdp.Dynamics, Config{Lambda: c.Lambda, Rollout: "mean"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range s {
			ag.Observe(s[i], a[i], next[i])
			if (i+1)%150 == 0 {
				if err := ag.EndEpisode(); err != nil {
					t.Fatal(err)
				}
			}
		}
		agents[name] = ag
	}
	if !slices.Equal(agents["ksm"].Model.W, agents["ksm2"].Model.W) {
		t.Error("two ksm agents fed the same transitions differ")
	}
	p := config.Section[env.PendulumConfig](c, "env.pendulum")
	mix := env.NewMixture(p.MixtureWeights, p.MixtureMeans, p.MixtureStds)
	gain := 3 * p.DT
	ksm, sm := agents["ksm"].Model, agents["sm"].Model
	phi := make([]float64, ksm.Feat.Dim())
	eta := make([]float64, ksm.Dist.StatDim())
	etaG := make([]float64, sm.Dist.StatDim())
	meanG := make([]float64, 3)
	free := mdp.Dynamics.NewMean()
	det := make([]float64, 3)
	var lk, lt, ss float64
	var lAll [3]float64
	for i := range ts {
		ksm.Eta(ts[i], ta[i], phi, eta)
		off := 0
		for j, c := range ksm.Dist.(*expfam.Coords).C {
			k := c.StatDim()
			x := tnext[i][j] - ts[i][j]
			l, err := c.(*shiftedKernel).LogDensity(x, eta[off:off+k])
			if err != nil {
				t.Fatal(err)
			}
			lAll[j] += l
			if j == 2 {
				lk += l
			}
			off += k
		}
		sm.Eta(ts[i], ta[i], phi, etaG)
		sm.Dist.Mean(etaG, meanG)
		r := tnext[i][2] - ts[i][2] - meanG[2]
		ss += r * r
		free.Step(ts[i], ta[i], nil, det)
		lt += mix.LogPDF((tnext[i][2]-det[2])/gain) - math.Log(gain)
	}
	n := float64(len(ts))
	lk, lt = lk/n, lt/n
	lg := -0.5*math.Log(2*math.Pi*ss/n) - 0.5
	for j := range lAll {
		lAll[j] /= n
	}
	t.Logf("θ̇: ksm %.4f, best Gaussian %.4f, truth %.4f; ksm per coordinate %v", lk, lg, lt, lAll)
	for j, l := range lAll {
		if math.IsNaN(l) || math.IsInf(l, 0) {
			t.Errorf("coordinate %d: log-likelihood %v", j, l)
		}
	}
	if lk < lg+0.2 || lk > lt+0.05 {
		t.Errorf("θ̇ held-out log-likelihood: ksm %.4f, best Gaussian %.4f (want ksm ≥ it + 0.2), truth %.4f (want ksm ≤ it + 0.05)", lk, lg, lt)
	}
}

// TestKSMPostponesCentres: a first refit on fewer transitions than
// ksm.centres (a short first episode) fits the ridge location alone, the
// kernel part of Ŵ zero, with the same location rows as a full fit; the
// next refit with enough transitions draws the centres and fits them.
func TestKSMPostponesCentres(t *testing.T) {
	c := testutil.LoadConfig(t, testutil.WriteYAML(t, ksmPendulum))
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	s, a, next := pendulumData(mdp, 40, rand.New(rand.NewPCG(3, 4)))
	ag, err := New("ksm", mdp.Model, mdp.Dynamics, Config{Lambda: c.Lambda, Rollout: "mean"})
	if err != nil {
		t.Fatal(err)
	}
	const short = 6 // < ksm.centres = 10
	for i := range short {
		ag.Observe(s[i], a[i], next[i])
	}
	if err := ag.EndEpisode(); err != nil {
		t.Fatalf("first refit on %d < 10 transitions: %v", short, err)
	}
	dphi, m := ag.Model.Feat.Dim(), 10
	block := (m + 1) * dphi
	w := ag.Model.W
	if len(w) != 3*block {
		t.Fatalf("len(W) = %d, want 3·(m+1)·d_phi = %d", len(w), 3*block)
	}
	for i := range 3 {
		loc, kern := w[i*block:i*block+dphi], w[i*block+dphi:(i+1)*block]
		if !slices.ContainsFunc(loc, func(v float64) bool { return v != 0 }) {
			t.Errorf("coordinate %d: the location row is zero after a refit", i)
		}
		if slices.ContainsFunc(kern, func(v float64) bool { return v != 0 }) {
			t.Errorf("coordinate %d: the kernel part is fitted on %d transitions without drawn centres", i, short)
		}
	}
	// The model plans: its mean is the location (the base Gaussian's mean is 0).
	mean := make([]float64, 3)
	phi := make([]float64, dphi)
	eta := make([]float64, ag.Model.Dist.StatDim())
	ag.Model.Eta(s[0], a[0], phi, eta)
	ag.Model.Dist.Mean(eta, mean)
	for i := range 3 {
		if loc := expfam.Dot(w[i*block:i*block+dphi], phi); !testutil.AbsWithin(mean[i], loc, 1e-9*(1+math.Abs(loc))) {
			t.Errorf("coordinate %d: mean %v, location %v", i, mean[i], loc)
		}
	}
	for i := short; i < len(s); i++ {
		ag.Observe(s[i], a[i], next[i])
	}
	if err := ag.EndEpisode(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if !slices.ContainsFunc(ag.Model.W[i*block+dphi:(i+1)*block], func(v float64) bool { return v != 0 }) {
			t.Errorf("coordinate %d: the kernel part is still zero after a refit on %d transitions", i, len(s))
		}
	}
}
