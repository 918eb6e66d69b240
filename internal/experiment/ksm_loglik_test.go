package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestBimodalPendulumLogLik scores the learned models of a run of
// configs/pendulum-bimodal.yaml (SMRL_KSM_RUN=its results directory, run
// with --save-transitions) on the oracle's transitions: each learner's
// final model is rebuilt by replaying its own transitions episode by
// episode through a fresh agent (the refits are deterministic, so it is
// the model the run ended with), and its log-likelihood per transition of
// the oracle's (s' − s) given (s, a) in its last 5 episodes is printed
// per seed, for the whole
// next state and for θ̇ alone, with the true density of θ̇ (the torque
// mixture through the step, where the speed clip does not bind) and the
// Gaussian on the sm agent's mean with σ fitted on the test set (the best
// any Gaussian of fixed σ on that mean can do). docs/kernel-families.md
// gives the command.
func TestBimodalPendulumLogLik(t *testing.T) {
	dir := os.Getenv("SMRL_KSM_RUN")
	if dir == "" {
		t.Skip("set SMRL_KSM_RUN to a results directory of configs/pendulum-bimodal.yaml run with --save-transitions")
	}
	c := testutil.LoadConfig(t, filepath.Join(dir, "config.yaml"))
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	p := config.Section[env.PendulumConfig](c, "env.pendulum")
	mix := env.NewMixture(p.MixtureWeights, p.MixtureMeans, p.MixtureStds)
	gain := 3 / (p.Mass * p.Length * p.Length) * p.DT
	path := filepath.Join(dir, "transitions.csv")
	fmt.Printf("seed  ksm(all)  sm σ=model(all)  sm best-σ(all)  | θ̇: truth  ksm  sm best-σ\n")
	var tot [6]float64
	for seed := range c.Seeds {
		// The oracle's last 5 episodes (1000 transitions at H = 200).
		test, err := dataset.ReadFileFilter(path, dataset.Filter{Agent: "oracle", Seeds: []int{seed}, FirstEpisode: max(c.Episodes-4, 1)})
		if err != nil {
			t.Fatal(err)
		}
		var row [6]float64
		models := map[string]*agent.Agent{}
		for _, name := range []string{"ksm", "sm"} {
			from := name
			if o := os.Getenv("SMRL_KSM_TRAIN"); o != "" { // tuning: every model on one agent's transitions
				from = o
			}
			train, err := dataset.ReadFileFilter(path, dataset.Filter{Agent: from, Seeds: []int{seed}})
			if err != nil {
				t.Fatal(err)
			}
			ag, err := agent.New(name, mdp.Model, mdp.Dynamics, agent.Config{Lambda: c.Lambda, Rollout: c.Planner.Rollout, Horizon: mdp.Horizon, Box: mdp.Box, CV: runner.AgentCV(c)})
			if err != nil {
				t.Fatal(err)
			}
			for i := range train.Len() {
				ag.Observe(train.State(i), train.Action(i), train.NextState(i))
				if (i+1)%mdp.Horizon == 0 {
					if err := ag.EndEpisode(); err != nil {
						t.Fatal(err)
					}
				}
			}
			models[name] = ag
		}
		row[0], row[4] = logLik(t, models["ksm"].Model, test)
		row[1], _ = logLik(t, models["sm"].Model, test)
		row[2], row[5] = bestSigma(models["sm"].Model, test)
		row[3] = trueSpeedLogLik(mdp, mix, gain, test)
		fmt.Printf("%d  %.4f  %.4f  %.4f  | %.4f  %.4f  %.4f\n", seed, row[0], row[1], row[2], row[3], row[4], row[5])
		for i := range tot {
			tot[i] += row[i] / float64(c.Seeds)
		}
	}
	fmt.Printf("mean  %.4f  %.4f  %.4f  | %.4f  %.4f  %.4f\n", tot[0], tot[1], tot[2], tot[3], tot[4], tot[5])
}

// logLik returns the mean log-likelihood per transition of test's s' − s
// under the product model m (each coordinate normalised exactly: a
// Gaussian's closed form, a kernel coordinate's quadrature), and that of
// θ̇ (coordinate 2) alone.
func logLik(t *testing.T, m *expfam.Model, test *dataset.Transitions) (all, speed float64) {
	t.Helper()
	cs, ok := m.Dist.(*expfam.Coords)
	if !ok {
		g, ok := m.Dist.(*expfam.Gaussian)
		if !ok {
			t.Fatalf("model family %v is neither a product nor Gaussian", m.Dist)
		}
		var coords []expfam.Coord
		for range g.StateDim() {
			gc, err := expfam.NewGaussCoord(g.Sigma)
			if err != nil {
				t.Fatal(err)
			}
			coords = append(coords, gc)
		}
		var err error
		if cs, err = expfam.NewCoords(coords); err != nil {
			t.Fatal(err)
		}
	}
	phi := make([]float64, m.Feat.Dim())
	eta := make([]float64, m.Dist.StatDim())
	n := test.Len()
	for i := range n {
		s, next := test.State(i), test.NextState(i)
		m.Eta(s, test.Action(i), phi, eta)
		off := 0
		for j, c := range cs.C {
			k := c.StatDim()
			x := next[j] - s[j]
			if ld, ok := c.(interface {
				LogDensity(x float64, eta []float64) (float64, error)
			}); ok { // the ksm agent's shifted kernel family
				l, err := ld.LogDensity(x, eta[off:off+k])
				if err != nil {
					t.Fatal(err)
				}
				all += l
				if j == 2 {
					speed += l
				}
				off += k
				continue
			}
			psi := make([]float64, k)
			c.Psi(x, psi)
			lz, err := c.LogPartition(eta[off : off+k])
			if err != nil {
				t.Fatal(err)
			}
			l := c.LogQ(x) - lz
			for q := range k {
				l += psi[q] * eta[off+q]
			}
			all += l
			if j == 2 {
				speed += l
			}
			off += k
		}
	}
	return all / float64(n), speed / float64(n)
}

// bestSigma returns the log-likelihood per transition of N(mean, σ_j²)
// per coordinate, mean the model's and σ_j the root mean square of its
// residuals on test itself: the best Gaussian of fixed σ on that mean.
func bestSigma(m *expfam.Model, test *dataset.Transitions) (all, speed float64) {
	n, ds := test.Len(), test.StateDim
	phi := make([]float64, m.Feat.Dim())
	eta := make([]float64, m.Dist.StatDim())
	mean := make([]float64, ds)
	ss := make([]float64, ds)
	for i := range n {
		s, next := test.State(i), test.NextState(i)
		m.Eta(s, test.Action(i), phi, eta)
		m.Dist.Mean(eta, mean)
		for j := range ds {
			r := next[j] - s[j] - mean[j]
			ss[j] += r * r
		}
	}
	for j := range ds {
		v := ss[j] / float64(n)
		l := -0.5*math.Log(2*math.Pi*v) - 0.5
		all += l
		if j == 2 {
			speed = l
		}
	}
	return all, speed
}

// trueSpeedLogLik is the mean log density of θ̇' − θ̇ under the truth:
// the noise-free step's θ̇' plus gain·ν, ν ~ mix (log density
// mix.LogPDF(r/gain) − log gain), over the transitions whose speed clip
// does not bind (|θ̇'| < max_speed − 1e-9).
func trueSpeedLogLik(mdp *env.MDP, mix *env.Mixture, gain float64, test *dataset.Transitions) float64 {
	mean := mdp.Dynamics.NewMean() // E[ν] = 0 in the config: the noise-free step
	out := make([]float64, test.StateDim)
	var s float64
	var n int
	for i := range test.Len() {
		next := test.NextState(i)
		if math.Abs(next[2]) >= 8-1e-9 {
			continue
		}
		mean.Step(test.State(i), test.Action(i), nil, out)
		r := next[2] - out[2] + gain*mix.Mean()
		s += mix.LogPDF(r/gain) - math.Log(gain)
		n++
	}
	return s / float64(n)
}
