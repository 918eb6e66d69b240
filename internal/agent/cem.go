package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// cem is the cross-entropy method (planner.kind cem), as in PETS, with
// iCEM's coloured noise as an option. Over a box it keeps a Gaussian per
// action of a sequence of L = Rollouts.Steps() actions, mean μ (warm-started
// from the previous decision's, shifted by one step) and standard deviation
// σ (init_std half-widths of the box at every decision). Each of
// `iterations` rounds samples N = population sequences
//
//	a_n = clamp(μ + σ ⊙ ε_n)
//
// (ε_n white, or with β > 0 coloured: power ∝ 1/f^β along the sequence,
// per action coordinate), scores them by their value (Rollouts.Value), and
// refits to the K = elites best (ties to the earlier sample):
//
//	μ ← α μ + (1 − α) mean(elites),  σ ← α σ + (1 − α) std(elites).
//
// With keep_elites (over a box), the search keeps what it found: the first
// round's sample 0 is μ itself (the warm start, no noise), and the K
// elites of each round compete, with their values, among the next round's
// samples (iCEM's elite carry-over; a kept elite wins ties), so the best
// sequence seen never leaves the elites.
//
// The first action of the final μ is played; μ stays in the box. Over a
// discrete set it keeps a categorical distribution per step instead
// (uniform at the start of an episode), refits it to the elites' action
// frequencies with the same smoothing, and plays the most probable first
// action (ties to the action listed first). Its value estimate is the
// highest value among all sampled sequences.
//
// A sequence whose value is not finite (a model that leaves the range its
// family can be normalised in; Planner.Err reports it) is neither an elite
// nor the value estimate: a NaN would otherwise sit among the elites,
// where no later sample compares better, and stall the refit. A round
// without any finite value leaves the distribution as it was, and a
// decision without any has the value −∞.
type cem struct {
	r                   *Rollouts
	box                 *Box
	actions             [][]float64
	pop, elites, iters  int
	alpha               float64
	da, steps, nActions int
	keep                bool      // keep_elites (box only)
	kept                []float64 // keep_elites: the previous round's elites, K×L×d_a
	keptRet             []float64 // and their values

	// μ after Plan (Result) and its warm start: box, L×d_a from the box's
	// centre; discrete, L×nActions probabilities from uniform ones.
	warmStart
	sd    []float64 // box: σ, L×d_a
	sd0   []float64 // box: σ at the start of every decision, init_std half-widths, per coordinate
	seqs  []float64 // box: N×L×d_a; discrete: N×L action indices
	ret   []float64 // N values
	elite []int     // indices of the K best, best first
	act   [][]float64
	noise *colouredNoise // nil: white noise
	eps   []float64      // one coordinate's noise sequence, length L
}

func newCEM(c config.Planner, r *Rollouts, actions [][]float64, box *Box) (Method, error) {
	k, _ := c.Section.(*CEMConfig)
	if k == nil {
		k = cemDefaults
	}
	if k.Population < 1 || k.Elites < 1 || k.Elites > k.Population || k.Iterations < 1 {
		return nil, fmt.Errorf("planner.cem: need population >= elites >= 1 and iterations >= 1, got %d, %d, %d", k.Population, k.Elites, k.Iterations)
	}
	if !(k.Alpha >= 0 && k.Alpha <= 1) || !(k.InitStd > 0) || !(k.Beta >= 0) {
		return nil, fmt.Errorf("planner.cem: need alpha in [0, 1], init_std > 0 and beta >= 0, got %v, %v, %v", k.Alpha, k.InitStd, k.Beta)
	}
	steps := r.Steps()
	p := &cem{r: r, box: box, actions: actions, pop: k.Population, elites: k.Elites, iters: k.Iterations,
		alpha: k.Alpha, steps: steps,
		ret: make([]float64, k.Population), elite: make([]int, 0, k.Elites), act: make([][]float64, steps)}
	if box != nil {
		p.da = len(box.Low)
		n := steps * p.da
		p.warmStart = newWarmStart(steps, box.centre())
		p.sd = make([]float64, n)
		p.sd0 = box.halfWidths(k.InitStd)
		p.keep = k.KeepElites
		slots := k.Population
		if p.keep {
			// Slots pop…pop+K−1 hold the carried elites.
			slots += k.Elites
			p.ret = make([]float64, slots)
			p.kept, p.keptRet = make([]float64, k.Elites*n), make([]float64, k.Elites)
		}
		p.seqs = make([]float64, slots*n)
		p.eps = make([]float64, steps)
		if k.Beta > 0 {
			p.noise = newColouredNoise(steps, k.Beta)
		}
	} else {
		p.nActions = len(actions)
		uniform := make([]float64, p.nActions)
		for i := range uniform {
			uniform[i] = 1 / float64(p.nActions)
		}
		p.warmStart = newWarmStart(steps, uniform)
		p.seqs = make([]float64, k.Population*steps)
	}
	p.Reset()
	return p, nil
}

func (p *cem) Plan(sim Simulator, s []float64, rng *rand.Rand) (int, float64) {
	p.r.Begin(rng)
	copy(p.mean, p.warm)
	if p.box == nil {
		return p.planDiscrete(sim, s, rng)
	}
	n, da := len(p.mean), p.da
	for j := range p.sd {
		p.sd[j] = p.sd0[j%da]
	}
	best := math.Inf(-1)
	// A simulator that draws nothing leaves rng to the sampling: a round's
	// population is drawn first and then evaluated together.
	batched := p.r.Batched(sim)
	for it := range p.iters {
		nk := 0
		if p.keep && it > 0 {
			// Carry the last round's elites (copied out first: some may
			// live in the slots they are copied to).
			nk = len(p.elite)
			for e, m := range p.elite {
				copy(p.kept[e*n:(e+1)*n], p.seqs[m*n:(m+1)*n])
				p.keptRet[e] = p.ret[m]
			}
		}
		p.elite = p.elite[:0]
		for e := range nk {
			m := p.pop + e
			copy(p.seqs[m*n:(m+1)*n], p.kept[e*n:(e+1)*n])
			p.ret[m] = p.keptRet[e]
			best = p.insertElite(m, best)
		}
		for m := range p.pop {
			seq := p.seqs[m*n : (m+1)*n]
			if p.keep && it == 0 && m == 0 {
				copy(seq, p.mean) // the warm start itself
			} else {
				for i := range da {
					p.sample(rng)
					for t, e := range p.eps {
						j := t*da + i
						seq[j] = p.box.clamp(i, p.mean[j]+p.sd[j]*e)
					}
				}
			}
			if batched {
				continue
			}
			for t := range p.act {
				p.act[t] = seq[t*da : (t+1)*da]
			}
			p.ret[m] = p.r.Value(sim, s, p.act, rng)
			best = p.insertElite(m, best)
		}
		if batched {
			p.r.Values(sim, s, p.seqs[:p.pop*n], da, p.ret[:p.pop])
			for m := range p.pop {
				best = p.insertElite(m, best)
			}
		}
		if len(p.elite) == 0 {
			continue
		}
		// Refit to the elites: their mean and (population) standard
		// deviation per entry, smoothed with the previous values.
		for j := range p.mean {
			var mu, sq float64
			for _, m := range p.elite {
				mu += p.seqs[m*n+j]
			}
			mu /= float64(len(p.elite))
			for _, m := range p.elite {
				d := p.seqs[m*n+j] - mu
				sq += d * d
			}
			sd := math.Sqrt(sq / float64(len(p.elite)))
			p.mean[j] = p.box.clamp(j%da, p.alpha*p.mean[j]+(1-p.alpha)*mu)
			p.sd[j] = p.alpha*p.sd[j] + (1-p.alpha)*sd
		}
	}
	return BoxAction, best
}

// sample fills p.eps with one coordinate's noise along the sequence.
func (p *cem) sample(rng *rand.Rand) {
	if p.noise != nil {
		p.noise.draw(rng, p.eps)
		return
	}
	for t := range p.eps {
		p.eps[t] = rng.NormFloat64()
	}
}

// insertElite adds sample m to the elites (the K best so far, best first;
// a later sample must be strictly better to pass an earlier one) and
// returns the larger of best and its value, unless that value is not
// finite: then it changes nothing and returns best.
func (p *cem) insertElite(m int, best float64) float64 {
	v := p.ret[m]
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return best
	}
	best = max(best, v)
	e := p.elite
	if len(e) == p.elites {
		if !(v > p.ret[e[len(e)-1]]) {
			return best
		}
		e = e[:len(e)-1]
	}
	i := len(e)
	for i > 0 && v > p.ret[e[i-1]] {
		i--
	}
	e = append(e, 0)
	copy(e[i+1:], e[i:])
	e[i] = m
	p.elite = e
	return best
}

func (p *cem) planDiscrete(sim Simulator, s []float64, rng *rand.Rand) (int, float64) {
	na, steps := p.nActions, p.steps
	best := math.Inf(-1)
	for range p.iters {
		p.elite = p.elite[:0]
		for m := range p.pop {
			seq := p.seqs[m*steps : (m+1)*steps]
			for t := range seq {
				seq[t] = float64(categorical(p.mean[t*na:(t+1)*na], rng.Float64()))
				p.act[t] = p.actions[int(seq[t])]
			}
			p.ret[m] = p.r.Value(sim, s, p.act, rng)
			best = p.insertElite(m, best)
		}
		if len(p.elite) == 0 {
			continue
		}
		w := (1 - p.alpha) / float64(len(p.elite))
		for j := range p.mean {
			p.mean[j] *= p.alpha
		}
		for _, m := range p.elite {
			for t := range steps {
				p.mean[t*na+int(p.seqs[m*steps+t])] += w
			}
		}
	}
	first := 0
	for i, q := range p.mean[:na] {
		if q > p.mean[first] {
			first = i
		}
	}
	return first, best
}

// categorical returns the index i with Σ_{j<i} q_j ≤ u < Σ_{j≤i} q_j (the
// last index when rounding leaves u beyond the total).
func categorical(q []float64, u float64) int {
	var c float64
	for i, v := range q {
		c += v
		if u < c {
			return i
		}
	}
	return len(q) - 1
}

// colouredNoise draws Gaussian sequences of length T whose power spectrum
// falls as 1/f^β (iCEM, Pinneri et al. 2020; the construction of the
// colorednoise package): Fourier coefficients X_k = (a_k + i b_k) s_k with
// a_k, b_k ~ N(0, 1), s_k = max(f_k, 1/T)^{−β/2} at f_k = k/T, k ≤ T/2
// (X_0, and X_{T/2} for even T, real with √2 the scale), transformed back by
// the inverse real DFT. Unlike the package, each y_t is normalised to unit
// variance exactly (the package's normaliser omits the constant term).
type colouredNoise struct {
	t          int
	cos, sin   []float64 // (T/2+1)×T tables of cos(2πkt/T), sin(2πkt/T)
	scale      []float64 // per k: the factor of a_k and b_k in y_t
	re, im     []float64
	hasNyquist bool
}

func newColouredNoise(t int, beta float64) *colouredNoise {
	nk := t/2 + 1
	c := &colouredNoise{t: t, cos: make([]float64, nk*t), sin: make([]float64, nk*t), scale: make([]float64, nk),
		re: make([]float64, nk), im: make([]float64, nk), hasNyquist: t%2 == 0}
	var variance float64
	for k := range nk {
		f := max(float64(k)/float64(t), 1/float64(t))
		s := math.Pow(f, -beta/2)
		// y_t = (1/T)[X_0 + 2 Σ_{0<k<T/2} Re(X_k e^{2πikt/T}) + X_{T/2}(−1)^t].
		m := 2.0
		if k == 0 || (c.hasNyquist && k == t/2) {
			m = math.Sqrt2 // a real coefficient with √2 the scale, counted once
		}
		c.scale[k] = m * s / float64(t)
		variance += c.scale[k] * c.scale[k]
		for j := range t {
			c.cos[k*t+j], c.sin[k*t+j] = math.Cos(2*math.Pi*float64(k*j)/float64(t)), math.Sin(2*math.Pi*float64(k*j)/float64(t))
		}
	}
	sd := math.Sqrt(variance)
	for k := range c.scale {
		c.scale[k] /= sd
	}
	return c
}

// draw writes one sequence into y (len T).
func (c *colouredNoise) draw(rng *rand.Rand, y []float64) {
	nk := len(c.scale)
	for k := range nk {
		c.re[k] = c.scale[k] * rng.NormFloat64()
	}
	for k := range nk {
		c.im[k] = 0
		if k > 0 && !(c.hasNyquist && k == nk-1) {
			c.im[k] = c.scale[k] * rng.NormFloat64()
		}
	}
	clear(y)
	for k := range nk {
		a, b := c.re[k], c.im[k]
		cs, sn := c.cos[k*c.t:(k+1)*c.t], c.sin[k*c.t:(k+1)*c.t]
		for j := range y {
			y[j] += a*cs[j] - b*sn[j]
		}
	}
}

// CEMConfig is the section planner.cem: it configures the cross-entropy method (planner.kind cem).
type CEMConfig struct {
	Population int     `mapstructure:"population" yaml:"population" doc:"N sequences per iteration"`                         // N, sequences per iteration
	Elites     int     `mapstructure:"elites" yaml:"elites" doc:"K best sequences the sampling distribution is refitted to"` // K, the best sequences refitted to
	Iterations int     `mapstructure:"iterations" yaml:"iterations" doc:"refits per decision"`
	Alpha      float64 `mapstructure:"alpha" yaml:"alpha" doc:"smoothing: mean, std = alpha·old + (1 − alpha)·elites'"` // smoothing: new = α·old + (1 − α)·elite statistic
	// InitStd is the initial standard deviation of every action, in units
	// of the box's half-width.
	InitStd float64 `mapstructure:"init_std" yaml:"init_std" doc:"std of every action at each decision, in half-widths of the box"`
	// Beta is the exponent of iCEM's coloured noise, power ∝ 1/f^β along
	// the sequence (0: white noise, plain CEM).
	Beta float64 `mapstructure:"beta" yaml:"beta" doc:"iCEM coloured noise, power ∝ 1/f^beta along the sequence (0: white)"`
	// KeepElites carries each round's elites into the next and scores the
	// warm start itself in the first round (box actions).
	KeepElites bool `mapstructure:"keep_elites" yaml:"keep_elites" doc:"box: score the warm start itself first, and carry each round's elites into the next"`
}

// cemDefaults are the defaults of planner.cem.
var cemDefaults = &CEMConfig{Population: 32, Elites: 4, Iterations: 3, Alpha: 0.1, InitStd: 1, Beta: 0}

// cemKind registers planner.kind cem (see planner.go's registry).
var cemKind = Kind{Part: config.Part{Name: "cem",
	Doc:      "cross-entropy method (PETS), with iCEM's coloured noise for beta > 0; discrete or box actions",
	Section:  "planner.cem",
	Defaults: cemDefaults,
	Validate: validateCEM},
	Build: newCEM}

func validateCEM(c *config.Config, bad config.Bad) {
	k := config.Section[CEMConfig](c, "planner.cem")
	intIn(bad, "planner.cem.population", k.Population, 1, 100_000)
	if k.Elites < 1 || k.Elites > k.Population {
		bad("planner.cem.elites", "must lie in [1, planner.cem.population = %d], got %d", k.Population, k.Elites)
	}
	intIn(bad, "planner.cem.iterations", k.Iterations, 1, 1000)
	inUnit(bad, "planner.cem.alpha", k.Alpha, 0, 1, false)
	inUnit(bad, "planner.cem.init_std", k.InitStd, 0, 1e3, true)
	inUnit(bad, "planner.cem.beta", k.Beta, 0, 10, false)
	p, e := c.Planner, c.Env
	if steps := max(p.Tau-1, 1); k.Beta > 0 && e.ActionSpace == "box" && p.Tau <= 10_000 && steps > config.MaxColouredSteps {
		bad("planner.tau", "must be <= %d with planner.cem.beta = %v > 0, got %d: coloured noise over L = tau − 1 steps tabulates (L/2+1)×L cosines and sines and draws each coordinate's sequence in O(L²); use white noise (planner.cem.beta: 0) for longer horizons",
			config.MaxColouredSteps+1, k.Beta, p.Tau)
	}
	if k.KeepElites && e.ActionSpace != "box" {
		bad("planner.cem.keep_elites", "applies to box actions (env.action_space: box); over a discrete set cem refits action frequencies and keeps no sequences")
	}
	c.CheckSequenceMemory(bad, "planner.cem.population", k.Population)
}

// intIn reports key unless lo <= v <= hi.
func intIn(bad config.Bad, key string, v, lo, hi int) {
	if v < lo || v > hi {
		bad(key, "must lie in [%d, %d], got %d", lo, hi, v)
	}
}

// inUnit reports key unless lo <= v <= hi (lo < v with open).
func inUnit(bad config.Bad, key string, v, lo, hi float64, open bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi || (open && v == lo) {
		lb := "["
		if open {
			lb = "("
		}
		bad(key, "must lie in %s%v, %v], got %v", lb, lo, hi, v)
	}
}
