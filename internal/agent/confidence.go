package agent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// maxTries bounds the rejection sampling of one candidate or posterior draw
// into the ball (see BeginEpisode).
const maxTries = 1000

// candidateSet is the per-step optimistic set: the planner sees a
// Candidates and plays the action of the best (candidate, action) pair.
type candidateSet struct{ sims []Simulator }

func (c *candidateSet) Step(s, a []float64, rng *rand.Rand, out []float64) {
	c.sims[0].Step(s, a, rng, out)
}
func (c *candidateSet) Candidates() []Simulator { return c.sims }

// initConfidence allocates the candidate models of a -ucb or -ps agent,
// settles the constants of the theory β and fits the empty data set, so
// that the first episode plans with the prior confidence set
// {W : |vec(W)|_{λI} ≤ β_1} centred at Ŵ = 0 (with lambda: cv, λ the
// largest of cv.grid: cvFit).
func (a *Agent) initConfidence(ldsSigma []float64) error {
	if a.cv != nil {
		if lo := slices.Min(a.cv.Grid); !(lo > 0) {
			return fmt.Errorf("agent %s: cv.grid must be > 0 for a confidence set, got %v", a.Name, lo)
		}
	} else if !(a.lambda > 0) {
		return fmt.Errorf("agent %s: lambda must be > 0 for a confidence set, got %v", a.Name, a.lambda)
	}
	n := 1
	if a.mode == "ucb" {
		n = a.conf.Candidates + 1
		if a.conf.Candidates < 1 {
			return fmt.Errorf("agent %s: confidence.candidates must be >= 1, got %d", a.Name, a.conf.Candidates)
		}
		if a.conf.Value == "rollout" && a.horizon < 1 {
			return fmt.Errorf("agent %s: confidence.value rollout needs the horizon H >= 1, got %d", a.Name, a.horizon)
		}
		if a.conf.Beta == "theory" {
			k, err := theoryConstants(a.conf, a.est, a.Model.Dist, ldsSigma)
			if err != nil {
				return fmt.Errorf("agent %s: %w", a.Name, err)
			}
			a.theory = k
		}
	}
	d := len(a.Model.W)
	for range n {
		m, err := expfam.NewModel(a.Model.Dist, a.Model.Feat, make([]float64, d))
		if err != nil {
			return err
		}
		a.cands = append(a.cands, m)
		a.sims = append(a.sims, a.newSim(m))
	}
	a.set.sims = a.sims
	a.z, a.dir = make([]float64, d), make([]float64, d)
	a.rollPCG = rand.NewPCG(0, 0)
	a.rollRand = rand.New(a.rollPCG)
	f, err := a.fit()
	if err != nil {
		return fmt.Errorf("agent %s: fitting the empty data set: %w", a.Name, err)
	}
	a.Last = f
	return nil
}

// theoryConstants returns (B_psi, B_c, α₁) of the theory β for an agent
// with estimator est whose model family is dist: each number given in the
// config, or for "auto" the value its registration derives from the model
// (Estimator.Theory: for Gaussian models only, estimator.GaussianSM(σ)
// for sm, estimator.GaussianLS(σ) for mle and for lds, whose model is
// Gaussian with σ_k = ldsSigma[k]). Other families have α₁ = inf C(s') = 0.
func theoryConstants(k Confidence, est *Estimator, dist expfam.Distribution, ldsSigma []float64) (estimator.Constants, error) {
	var derived *estimator.Constants
	if est.Theory != nil {
		derived = est.Theory(dist, ldsSigma)
	}
	var out estimator.Constants
	for _, x := range []struct {
		key  string
		v    config.Auto
		dst  *float64
		from func(estimator.Constants) float64
	}{
		{"confidence.b_psi", k.BPsi, &out.BPsi, func(c estimator.Constants) float64 { return c.BPsi }},
		{"confidence.b_c", k.BC, &out.BC, func(c estimator.Constants) float64 { return c.BC }},
		{"confidence.alpha1", k.Alpha1, &out.Alpha1, func(c estimator.Constants) float64 { return c.Alpha1 }},
	} {
		v, auto, err := x.v.Float()
		switch {
		case err != nil:
			return out, fmt.Errorf("%s: %w", x.key, err)
		case !auto:
			*x.dst = v
		case derived == nil:
			return out, fmt.Errorf("%s: auto is derived only for Gaussian models, not for %v (whose α₁ = inf C(s') = 0): the theory β is infinite; use confidence.beta: practical or give the constants", x.key, dist)
		default:
			*x.dst = x.from(*derived)
		}
	}
	return out, nil
}

// gaussianScales returns the per-coordinate σ of a Gaussian model (the
// Gaussian family, or a product of Gaussian coordinates); ok is false for
// other families.
func gaussianScales(dist expfam.Distribution) (sigma []float64, ok bool) {
	switch g := dist.(type) {
	case *expfam.Gaussian:
		for range g.D {
			sigma = append(sigma, g.Sigma)
		}
		return sigma, true
	case *expfam.Coords:
		for _, c := range g.C {
			gc, ok := c.(*expfam.GaussCoord)
			if !ok {
				return nil, false
			}
			sigma = append(sigma, gc.Sigma)
		}
		return sigma, true
	}
	return nil, false
}

// beta returns β_k of the latest fit: the theory form (BetaTheory with the
// agent's constants and the fit's ridge) or the practical form.
func (a *Agent) beta() float64 {
	ld := a.Last.LogDet()
	k := a.conf
	if k.Beta == "theory" {
		t := a.theory
		return estimator.BetaTheory(ld, k.Delta, a.Last.Ridge(), t.BPsi, t.BC, t.Alpha1, k.BStar)
	}
	return estimator.BetaPractical(ld, k.Delta, k.Scale)
}

// BeginEpisode chooses the model the agent plans with in an episode that
// starts at s1, drawing any randomness from rng. Greedy agents and the
// oracle plan with their estimate and draw nothing.
//
// The confidence set is W_k = {W : |vec(W − Ŵ)|_A ≤ β_k} with A = A_k the
// precision of the latest fit (estimator.Fit: V_k + λI for SM and MLE,
// (G + λI)/σ² per row for LDS). Sampled parameters are kept in the ball
// B = {W : |W|_F ≤ R}, R = max(b_star, |Ŵ|_F), which contains Ŵ.
//
// A -ucb agent sets Beta = β_k, keeps Ŵ as candidate 0 and draws M =
// confidence.candidates candidates on the boundary of W_k ∩ B. Each is
// drawn by rejection: up to maxTries points W(u) = Ŵ + β_k T u (T the map
// of Fit.InvSqrt, T Tᵀ = A⁻¹; u uniform on the unit sphere), the first
// that lies in B. So a candidate
// has the law of W(u) given W(u) ∈ B, and lies on the ellipsoid,
// |W − Ŵ|_A = β_k. When all maxTries points miss B (or none can hit it:
// β_k·Fit.MinSemiAxis() > |Ŵ|_F + R), the candidate is instead built from
// the last point W: reflected through Ŵ (W ← 2Ŵ − W) if it lies outward
// (Ŵ·(W − Ŵ) > 0), then moved to where the segment from Ŵ to it leaves B
// (or kept if the reflection lies in B). That point lies on the sphere
// |W|_F = R inside the ellipsoid (or on the ellipsoid inside B), and no
// candidate collapses onto Ŵ even when Ŵ lies on the sphere (|Ŵ|_F ≥
// b_star).
//
// With confidence.choice = episode the agent plans the whole episode with
// the candidate of highest value at s1, all candidates scored on one shared
// noise stream, ties to the earliest (Ŵ). With value = lookahead the value
// is the one Planner.Best estimates for the action it would choose under
// that candidate (constant mode: the best action's mean of Σ_{t<τ} r(x_t)
// over n_rollouts rollouts holding the action; random mode: the best of
// n_sequences random sequences); with value = rollout it is the reward of
// one H-step episode simulated under the candidate with the planner in the
// loop (SimulateEpisode). With choice = step it hands the planner the
// whole set.
//
// A -ps agent plans with a draw of N(Ŵ, ν² A⁻¹) truncated to B, ν =
// confidence.posterior_scale: up to maxTries draws, the first in B. When
// all miss, it takes the last draw, reflected and moved into B as above.
//
// Accept is the fraction of all points drawn in the episode (candidate
// or posterior tries) that fell in B; a shortcut miss counts as one try.
// When β_k = 0 (-ucb) or ν = 0 (-ps) the set is the point Ŵ: the agent
// plans with its estimate and draws nothing, exactly as the greedy agent
// does, and Accept is NaN.
func (a *Agent) BeginEpisode(pl *Planner, s1 []float64, rng *rand.Rand) error {
	a.Accept = math.NaN()
	switch a.mode {
	case "ucb":
		a.Beta = a.beta()
		if !(a.Beta > 0) || math.IsInf(a.Beta, 0) {
			if a.Beta != 0 {
				return fmt.Errorf("agent %s: confidence radius β = %v", a.Name, a.Beta)
			}
			a.Sim = a.stepper
			return nil
		}
		copy(a.cands[0].W, a.Last.W)
		r2 := ballRadius2(a.Last.W, a.conf.BStar)
		// No boundary point can reach the ball: skip the rejection.
		miss := a.Beta*a.Last.MinSemiAxis() > math.Sqrt(sumSq(a.Last.W))+math.Sqrt(r2)
		var tries, hits int
		for _, m := range a.cands[1:] {
			n, ok, err := drawInBall(a.Last, a.Beta, true, r2, miss, rng, a.z, a.dir, m.W)
			if err != nil {
				return fmt.Errorf("agent %s: %w", a.Name, err)
			}
			tries += n
			if ok {
				hits++
			}
		}
		a.Accept = float64(hits) / float64(tries)
		if a.conf.Choice == "step" {
			a.Sim = &a.set
			return nil
		}
		j := 0
		if a.conf.Value == "rollout" {
			j = a.bestRollout(pl, s1, rng)
		} else {
			j, _, _ = pl.Optimistic(a.sims, s1, rng)
		}
		a.Sim = a.sims[j]
	case "ps":
		nu := a.conf.PosteriorScale
		if nu == 0 {
			a.Sim = a.stepper
			return nil
		}
		m := a.cands[0]
		r2 := ballRadius2(a.Last.W, a.conf.BStar)
		n, ok, err := drawInBall(a.Last, nu, false, r2, false, rng, a.z, a.dir, m.W)
		if err != nil {
			return fmt.Errorf("agent %s: %w", a.Name, err)
		}
		a.Accept = 0
		if ok {
			a.Accept = 1 / float64(n)
		}
		a.Sim = a.sims[0]
	}
	return nil
}

// bestRollout scores every candidate by SimulateEpisode from s1, all on one
// noise stream (two seeds drawn from rng, replayed for each candidate), and
// returns the index of the highest score, ties to the earliest.
func (a *Agent) bestRollout(pl *Planner, s1 []float64, rng *rand.Rand) int {
	s1a, s1b := rng.Uint64(), rng.Uint64()
	best, bestV := 0, 0.0
	for j, c := range a.sims {
		a.rollPCG.Seed(s1a, s1b)
		v := SimulateEpisode(pl, c, s1, a.horizon, a.rollRand)
		if j == 0 || v > bestV {
			best, bestV = j, v
		}
	}
	return best
}

// SimulateEpisode returns the return of one episode of horizon H simulated
// under sim from s_1 = s1 (package env: Σ_h r(s_h, a_h), plus the terminal
// reward of a terminal state it enters, where it stops), the planner
// choosing every action with sim as its model, all randomness (planning and
// transitions) from rng. s1 is not modified. Like a real episode it starts
// the planner's warm start afresh, and it leaves it reset. It allocates two
// states per call (once per candidate and episode, not per step).
func SimulateEpisode(pl *Planner, sim Simulator, s1 []float64, horizon int, rng *rand.Rand) float64 {
	s, next := slices.Clone(s1), make([]float64, len(s1))
	task := pl.Rollouts.Task
	pl.Reset()
	defer pl.Reset()
	var total float64
	for h := 0; h < horizon; h++ {
		a := pl.Action(pl.Act(sim, s, rng))
		total += task.Reward(s, a)
		sim.Step(s, a, rng, next)
		s, next = next, s
		if pl.Rollouts.ends {
			if done, bonus := task.Terminal(s); done {
				return total + bonus
			}
		}
	}
	return total
}

// ballRadius2 returns R² = max(b, |c|_F)² for centre c; b = 0 gives
// +Inf (no ball).
func ballRadius2(c []float64, b float64) float64 {
	if !(b > 0) {
		return math.Inf(1)
	}
	return max(b*b, sumSq(c))
}

func sumSq(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

// drawInBall writes into out a point Ŵ + scale·T v, Ŵ = f.W, T the map of
// f.InvSqrt (T Tᵀ = A⁻¹), with v = z/|z| (unit: a point on the boundary of
// the ellipsoid of radius scale) or v = z (a draw of N(Ŵ, scale² A⁻¹)) for a
// standard normal z from rng, drawn by rejection until it lies in the ball
// |W|_F² ≤ r2, at most maxTries times (once when miss: no point can lie in
// the ball). ok reports an accepted point; otherwise out is exitPoint of
// the last one. tries is the number of points drawn. z and dir are scratch
// of length d.
func drawInBall(f *estimator.Fit, scale float64, unit bool, r2 float64, miss bool, rng *rand.Rand, z, dir, out []float64) (tries int, ok bool, err error) {
	for tries < maxTries {
		tries++
		var n2 float64
		for i := range z {
			z[i] = rng.NormFloat64()
			n2 += z[i] * z[i]
		}
		if unit {
			if n2 == 0 {
				tries--
				continue
			}
			n := math.Sqrt(n2)
			for i := range z {
				z[i] /= n
			}
		}
		if err := f.InvSqrt(z, dir); err != nil {
			return tries, false, err
		}
		for i := range out {
			out[i] = f.W[i] + scale*dir[i]
		}
		if miss {
			break
		}
		if sumSq(out) <= r2 {
			return tries, true, nil
		}
	}
	exitPoint(out, f.W, r2)
	return tries, false, nil
}

// exitPoint moves w, which lies outside the ball |x|² ≤ r2, onto the
// boundary of the ball along the segment from c (inside the ball): if
// w − c points outward (c·(w − c) > 0) it is first reflected through c,
// w ← 2c − w, which makes the segment inside the ball the longer of the two
// (so no point collapses onto c when c lies on or near the sphere); then w
// becomes c + t (w − c) with the largest t in [0, 1] that keeps it in the
// ball (t = 1: the reflected w itself lies in the ball).
func exitPoint(w, c []float64, r2 float64) {
	var cc, cd, dd float64
	for i := range w {
		d := w[i] - c[i]
		cc += c[i] * c[i]
		cd += c[i] * d
		dd += d * d
	}
	sign := 1.0
	if cd > 0 {
		sign, cd = -1, -cd
	}
	if dd == 0 {
		return
	}
	// |c + t d|² = |c|² + 2t c·d + t²|d|² = r2: the root t ≥ 0.
	t := (-cd + math.Sqrt(max(cd*cd-dd*(cc-r2), 0))) / dd
	t = sign * min(max(t, 0), 1)
	for i := range w {
		w[i] = c[i] + t*(w[i]-c[i])
	}
}

// Confidence configures the confidence sets of the optimistic (-ucb) and
// posterior-sampling (-ps) agents, the section confidence that every
// such agent declares (confidenceKeys):
//
//	W_k = {W : |vec(W − Ŵ_k)|_{A_k} ≤ β_k}
//
// with A_k the precision of the agent's fit (V_k + λI; (G + λI)/σ² for the
// LDS agent) and β_k from the paper's theorem (Beta "theory", eq.
// conf-set) or the practical form β_k = Scale·sqrt(log det(V_k/λ + I) +
// 2 log(1/δ)).
type Confidence struct {
	Beta  string  `mapstructure:"beta" yaml:"beta" doc:"practical: β_k = scale·sqrt(log det(V_k/λ + I) + 2 log(1/delta)) theory: the paper's eq. (conf-set), from b_psi, b_c, alpha1, b_star, delta"`
	Scale float64 `mapstructure:"scale" yaml:"scale" doc:"c of the practical β (0: β = 0, the -ucb agent is the greedy one)"`
	Delta float64 `mapstructure:"delta" yaml:"delta" doc:"δ, the confidence set fails with probability at most δ"`
	// The constants of the theory β, each a number or "auto" (derived from
	// the agent's model family where the paper allows it).
	BPsi   config.Auto `mapstructure:"b_psi" yaml:"b_psi" doc:"theory: ξ(s') + C(s')W0 phi(s,a) is b_psi-subgaussian"`
	BC     config.Auto `mapstructure:"b_c" yaml:"b_c" doc:"theory: C(s') W0 phi(s,a) is b_c-subgaussian"`
	Alpha1 config.Auto `mapstructure:"alpha1" yaml:"alpha1" doc:"theory: C(s') ⪰ alpha1·I; auto: derived from a Gaussian model (σ⁻⁶, 0, σ⁻⁴ for sm), an error for the other families (α₁ = 0)"`
	// BStar bounds |W0|_F: it enters the theory β as sqrt(λ)·B_star, and
	// candidate and posterior parameters are kept in the ball |W|_F ≤
	// max(B_star, |Ŵ|_F).
	BStar float64 `mapstructure:"b_star" yaml:"b_star" doc:"known bound on |W0|_F: theory β adds sqrt(λ)·b_star, and sampled parameters are kept in the ball |W|_F <= max(b_star, |Ŵ|_F)"`
	// Lambda is the -ucb agents' λ: "shared" (the top-level lambda) or
	// "theorem" (1/b_star², the choice of the paper's regret theorem).
	Lambda     string `mapstructure:"lambda" yaml:"lambda" doc:"-ucb agents' λ: shared (the top-level lambda) or theorem (1/b_star²; beta: theory)"`
	Candidates int    `mapstructure:"candidates" yaml:"candidates" doc:"-ucb: M parameters drawn uniformly on the boundary of W_k (plus Ŵ_k)"`
	Choice     string `mapstructure:"choice" yaml:"choice" doc:"-ucb: episode = plan the whole episode with the candidate of highest value at s_1 step = at every step play the action of the best (candidate, action) pair"`
	// Value is how choice "episode" scores a candidate at s_1: "lookahead"
	// (the planner's value of its best action) or "rollout" (the reward of
	// an H-step episode simulated under the candidate with the planner).
	Value string `mapstructure:"value" yaml:"value" doc:"-ucb, choice episode: a candidate's value at s_1 is the planner's lookahead value (lookahead) or the reward of an H-step episode simulated under it (rollout)"`
	// PosteriorScale is ν of the -ps agents: W ~ N(Ŵ, ν² A⁻¹) truncated to
	// the ball.
	PosteriorScale float64 `mapstructure:"posterior_scale" yaml:"posterior_scale" doc:"-ps: ν, each episode plan with W ~ N(Ŵ_k, ν² (V_k + λI)⁻¹) truncated to the ball"`
}

// The values of the confidence keys that name a choice.
var (
	BetaForms   = []string{"practical", "theory"}
	ChoiceModes = []string{"episode", "step"}
	ValueModes  = []string{"lookahead", "rollout"}
	LambdaModes = []string{"shared", "theorem"}
)

// confidenceKeys is the section confidence, declared by the -ucb and -ps
// agents of every estimator (registerLearner), after sm in the schema.
var confidenceKeys = config.KeySet{At: "confidence", After: "sm", Validate: validateConfidence,
	Defaults: &Confidence{Beta: "practical", Scale: 1, Delta: 0.05, BPsi: config.AutoWord, BC: config.AutoWord, Alpha1: config.AutoWord,
		BStar: 10, Lambda: "shared", Candidates: 16, Choice: "episode", Value: "lookahead", PosteriorScale: 3}}

// ConfidenceOf returns c's confidence section.
func ConfidenceOf(c *config.Config) Confidence { return config.Shared[Confidence](c, "confidence") }

// AgentLambda returns the ridge λ the named agent fits with under c: 1/b_star²
// for a -ucb agent with confidence.lambda: theorem, else lambda.
func AgentLambda(c *config.Config, agent string) float64 {
	if k := ConfidenceOf(c); config.Optimistic(agent) && k.Lambda == "theorem" {
		return 1 / (k.BStar * k.BStar)
	}
	return c.Lambda
}

// validateConfidence checks the confidence section, and that λ > 0 when an
// agent needs the confidence set (V + λI must be invertible before any
// data, and log det(V/λ + I) must exist).
func validateConfidence(c *config.Config, bad config.Bad) {
	k, agents := ConfidenceOf(c), c.ChecksAgents()
	if !slices.Contains(BetaForms, k.Beta) {
		bad("confidence.beta", "unknown form %q (known: %v)", k.Beta, BetaForms)
	}
	if !slices.Contains(ChoiceModes, k.Choice) {
		bad("confidence.choice", "unknown choice %q (known: %v)", k.Choice, ChoiceModes)
	}
	// The radius of the confidence set, and so the distance of its draws
	// from Ŵ, is about β/sqrt(λ); the bounds keep it, and the squared norms
	// of the draws, far inside the float range.
	atMost := func(key string, v, hi float64, why string) {
		if !(v >= 0) || !finite(v) {
			bad(key, "must be a finite number >= 0, got %v", v)
		} else if v > hi {
			bad(key, "must be <= %g, got %v: %s", hi, v, why)
		}
	}
	const radiusWhy = "the confidence set's radius would overflow the parameter norms"
	atMost("confidence.scale", k.Scale, 1e3, radiusWhy)
	atMost("confidence.b_star", k.BStar, 1e6, radiusWhy)
	atMost("confidence.posterior_scale", k.PosteriorScale, 1e3, "posterior draws at ν·(V+λI)^{-1/2} would overflow the parameter norms")
	if !(k.Delta > 0 && k.Delta < 1) {
		bad("confidence.delta", "must lie in (0, 1), got %v", k.Delta)
	} else if k.Delta < 1e-300 {
		bad("confidence.delta", "must be >= 1e-300, got %v: β needs log(1/δ), and 1/δ overflows below about 1e-308", k.Delta)
	}
	auto := map[string]bool{}
	for _, x := range []struct {
		key      string
		v        config.Auto
		positive bool
	}{{"confidence.b_psi", k.BPsi, false}, {"confidence.b_c", k.BC, false}, {"confidence.alpha1", k.Alpha1, true}} {
		v, isAuto, err := x.v.Float()
		switch {
		case err != nil:
			bad(x.key, "%v", err)
		case isAuto:
			auto[x.key] = true
		case x.positive && !(v > 0 && finite(v)):
			bad(x.key, "must be %s or a finite number > 0, got %v", config.AutoWord, v)
		case !x.positive && !(v >= 0 && finite(v)):
			bad(x.key, "must be %s or a finite number >= 0, got %v", config.AutoWord, v)
		case x.positive && (v < 1e-6 || v > 1e6):
			bad(x.key, "must lie in [1e-6, 1e6], got %v: the theory β divides by α₁, which under- or overflows beyond", v)
		case !x.positive && v > 1e6:
			bad(x.key, "must be <= 1e+06, got %v: the confidence set's radius would overflow the parameter norms", v)
		}
	}
	if !slices.Contains(ValueModes, k.Value) {
		bad("confidence.value", "unknown value %q (known: %v)", k.Value, ValueModes)
	} else if k.Value == "rollout" && k.Choice == "step" {
		bad("confidence.value", "rollout scores candidates once per episode; it needs confidence.choice: episode, got step")
	}
	if !slices.Contains(LambdaModes, k.Lambda) {
		bad("confidence.lambda", "unknown λ %q (known: %v)", k.Lambda, LambdaModes)
	} else if k.Lambda == "theorem" && k.Beta != "theory" {
		bad("confidence.lambda", "theorem (λ = 1/b_star² for the -ucb agents) belongs to the theory β; it needs confidence.beta: theory, got %s", k.Beta)
	} else if k.Lambda == "theorem" && !(k.BStar > 0) {
		bad("confidence.lambda", "theorem sets λ = 1/b_star², which needs confidence.b_star > 0")
	}
	if k.Beta == "theory" {
		c.ValidateTheory(auto, bad)
	}
	if k.Candidates < 1 {
		bad("confidence.candidates", "must be >= 1, got %d", k.Candidates)
	}
	var users []string
	for _, a := range c.Agents {
		if agents && config.UsesConfidence(a) {
			users = append(users, a)
		}
	}
	if c.LambdaCV {
		c.ValidateCVConfidence(bad, users, k.Lambda == "theorem")
	} else if len(users) > 0 && c.Lambda == 0 {
		bad("lambda", "must be > 0 for agents %v, whose confidence set |W − Ŵ|_{V+λI} ≤ β needs V + λI invertible, got 0", users)
	} else if len(users) > 0 && c.Lambda < 1e-12 {
		bad("lambda", "must be >= 1e-12 for agents %v, got %v: their β needs log det(V/λ + I) and their draws lie about β/sqrt(λ) from Ŵ, both of which overflow for smaller λ", users, c.Lambda)
	}
	if len(users) > 0 && k.BStar == 0 {
		// Without the ball, early draws (radius ≈ β/√λ) reach natural
		// parameters where sampling needs a full quadrature per draw.
		bad("confidence.b_star", "must be > 0 for agents %v: sampled parameters are kept in the ball |W|_F <= max(b_star, |Ŵ|_F)", users)
	}
	if k.Candidates > config.MaxCount {
		bad("confidence.candidates", "must be <= %d, got %d", config.MaxCount, k.Candidates)
	}
}
