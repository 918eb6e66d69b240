package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// mppi is model predictive path integral control (Williams et al. 2017;
// planner.kind mppi) over a box of actions. It keeps a mean sequence U of
// L = Rollouts.Steps() actions, warm-started from the previous decision's
// shifted by one step. A decision samples K sequences
//
//	V_k = clamp(U + ε_k),  ε_k ~ N(0, diag(σ²)) per step,  V_0 = U,
//
// (clamp: to the box, coordinate by coordinate), scores each by its value
// R_k (Rollouts.Value), and moves U to the weighted mean
//
//	U ← Σ_k w_k V_k,  w_k ∝ exp((R_k − max_j R_j)/λ),
//
// whose first action is played; the reward already prices the actions, so
// there is no separate control-cost term. Its value estimate is max_k R_k.
// U stays in the box (a convex combination of clamped sequences). After
// a decision, U shifts one step and its last action restarts at the box's
// centre, where U starts in every episode. With iterations I > 1 a
// decision repeats the sample-and-reweight step I times, each round
// perturbing the U the previous one left (K·I sequences in all).
type mppi struct {
	r         *Rollouts
	box       *Box
	k, iters  int
	lambda    float64
	std       []float64 // per action coordinate
	da        int
	warmStart           // U after Plan (Result) and before, L×d_a from the box's centre
	seqs      []float64 // K×L×d_a sampled sequences
	ret       []float64 // K values
	act       [][]float64
	weighted  []float64
	noise     []float64 // L×d_a standard normal deviates of one sequence
}

func newMPPI(c config.Planner, r *Rollouts, actions [][]float64, box *Box) (Method, error) {
	m, _ := c.Section.(*MPPIConfig)
	if m == nil {
		m = mppiDefaults
	}
	if box == nil {
		return nil, fmt.Errorf("planner.kind: mppi perturbs continuous actions and needs env.action_space: box")
	}
	if m.Samples < 1 || !(m.Temperature > 0) || !(m.NoiseStd > 0) {
		return nil, fmt.Errorf("planner.mppi: samples, temperature and noise_std must be positive, got %d, %v, %v", m.Samples, m.Temperature, m.NoiseStd)
	}
	da, steps := len(box.Low), r.Steps()
	iters := max(m.Iterations, 1)
	p := &mppi{r: r, box: box, k: m.Samples, iters: iters, lambda: m.Temperature, da: da,
		std: box.halfWidths(m.NoiseStd), warmStart: newWarmStart(steps, box.centre()), weighted: make([]float64, steps*da),
		seqs: make([]float64, m.Samples*steps*da), ret: make([]float64, m.Samples), act: make([][]float64, steps),
		noise: make([]float64, steps*da)}
	p.Reset()
	return p, nil
}

func (p *mppi) Plan(sim Simulator, s []float64, rng *rand.Rand) (int, float64) {
	p.r.Begin(rng)
	best := math.Inf(-1)
	u := p.warm
	for range p.iters {
		best = max(best, p.round(sim, s, u, rng))
		u = p.mean
	}
	return BoxAction, best
}

// round samples K sequences around u (V_0 = u), moves p.mean to their
// weighted mean and returns their best value.
func (p *mppi) round(sim Simulator, s, u []float64, rng *rand.Rand) float64 {
	n := len(u)
	best := math.Inf(-1)
	src, bound := p.r.source(rng)
	// A simulator that draws nothing leaves rng to the perturbations: the
	// K sequences are drawn first and then evaluated together.
	batched := p.r.Batched(sim)
	for k := range p.k {
		seq := p.seqs[k*n : (k+1)*n]
		if k > 0 {
			// rng's deviates, drawn from its PCG directly when bound (draw.go).
			if bound {
				src.normals(p.noise)
			} else {
				for j := range p.noise {
					p.noise[j] = rng.NormFloat64()
				}
			}
		}
		for j := range seq {
			i := j % p.da
			v := u[j]
			if k > 0 {
				v += p.std[i] * p.noise[j]
			}
			seq[j] = p.box.clamp(i, v)
		}
		if !batched {
			for t := range p.act {
				p.act[t] = seq[t*p.da : (t+1)*p.da]
			}
			p.ret[k] = p.r.Value(sim, s, p.act, rng)
		}
	}
	if batched {
		p.r.Values(sim, s, p.seqs, p.da, p.ret)
	}
	for k, v := range p.ret {
		if k == 0 || v > best {
			best = v
		}
	}
	// U ← Σ w_k V_k / Σ w_k, w_k = exp((R_k − max R)/λ) ∈ (0, 1], w = 1 at
	// the best, so the sum is at least 1.
	clear(p.weighted)
	var total float64
	for k := range p.k {
		w := math.Exp((p.ret[k] - best) / p.lambda)
		if w == 0 {
			continue
		}
		total += w
		seq := p.seqs[k*n : (k+1)*n]
		for j, v := range seq {
			p.weighted[j] += w * v
		}
	}
	for j := range p.mean {
		p.mean[j] = p.box.clamp(j%p.da, p.weighted[j]/total) // clamp away the rounding of the weighted mean
	}
	return best
}

// MPPIConfig is the section planner.mppi: it configures model predictive path integral control (planner.kind
// mppi).
type MPPIConfig struct {
	Samples     int     `mapstructure:"samples" yaml:"samples" doc:"K perturbed sequences per decision (the first is the unperturbed mean)"` // K, perturbed sequences per decision
	Temperature float64 `mapstructure:"temperature" yaml:"temperature" doc:"λ, in units of the return: weights ∝ exp(return/λ)"`             // λ, in units of the return
	// NoiseStd is the standard deviation of the perturbations, in units of
	// the box's half-width.
	NoiseStd float64 `mapstructure:"noise_std" yaml:"noise_std" doc:"std of the perturbations, in half-widths of the box"`
	// Iterations repeats the sample-and-reweight step within a decision.
	Iterations int `mapstructure:"iterations" yaml:"iterations" doc:"sample-and-reweight rounds per decision (samples × iterations sequences in all)"`
}

// mppiDefaults are the defaults of planner.mppi.
var mppiDefaults = &MPPIConfig{Samples: 32, Temperature: 0.3, NoiseStd: 1, Iterations: 1}

// mppiKind registers planner.kind mppi (see planner.go's registry).
var mppiKind = Kind{Part: config.Part{Name: "mppi",
	Doc:      "model predictive path integral control; box actions only",
	Section:  "planner.mppi",
	Defaults: mppiDefaults,
	Validate: validateMPPI},
	Build: newMPPI}

func validateMPPI(c *config.Config, bad config.Bad) {
	k := config.Section[MPPIConfig](c, "planner.mppi")
	intIn(bad, "planner.mppi.samples", k.Samples, 1, 100_000)
	inUnit(bad, "planner.mppi.temperature", k.Temperature, 0, 1e12, true)
	inUnit(bad, "planner.mppi.noise_std", k.NoiseStd, 0, 1e3, true)
	intIn(bad, "planner.mppi.iterations", k.Iterations, 1, 1000)
	if c.Env.ActionSpace != "box" {
		bad("planner.kind", "mppi perturbs continuous actions and needs env.action_space: box (with a discrete set use rss or cem)")
	}
	c.CheckSequenceMemory(bad, "planner.mppi.samples", k.Samples)
}
