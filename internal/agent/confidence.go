package agent

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// candidateSet is the per-step optimistic set: the planner sees a
// Candidates and plays the action of the best (candidate, action) pair.
type candidateSet struct{ sims []Simulator }

func (c *candidateSet) Step(s, a []float64, rng *rand.Rand, out []float64) {
	c.sims[0].Step(s, a, rng, out)
}
func (c *candidateSet) Candidates() []Simulator { return c.sims }

// initConfidence allocates the candidate models of a -ucb or -ps agent and
// fits the empty data set, so that the first episode plans with the prior
// confidence set {W : |vec(W)|_{λI} ≤ β_1} centred at Ŵ = 0.
func (a *Agent) initConfidence() error {
	if !(a.lambda > 0) {
		return fmt.Errorf("agent %s: lambda must be > 0 for a confidence set, got %v", a.Name, a.lambda)
	}
	n := 1
	if a.mode == "ucb" {
		n = a.conf.Candidates + 1
		if a.conf.Candidates < 1 {
			return fmt.Errorf("agent %s: confidence.candidates must be >= 1, got %d", a.Name, a.conf.Candidates)
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
	f, err := a.fit()
	if err != nil {
		return fmt.Errorf("agent %s: fitting the empty data set: %w", a.Name, err)
	}
	a.Last = f
	return nil
}

// beta returns β_k of the latest fit: the theory form (the paper's eq.
// conf-set) or the practical form.
func (a *Agent) beta() float64 {
	ld := a.Last.LogDet()
	k := a.conf
	if k.Beta == "theory" {
		return estimator.BetaTheory(ld, k.Delta, a.lambda, k.BPsi, k.BC, k.Alpha1, k.BStar)
	}
	return estimator.BetaPractical(ld, k.Delta, k.Scale)
}

// BeginEpisode chooses the model the agent plans with in an episode that
// starts at s1, drawing any randomness from rng. Greedy agents and the
// oracle plan with their estimate and draw nothing.
//
// A -ucb agent sets Beta = β_k and draws M = confidence.candidates
// parameters W_j = Ŵ + β_k U⁻¹ u_j on the boundary of the confidence set
// (V_k + λI = UᵀU, u_j uniform on the unit sphere), keeps Ŵ as candidate 0
// and, with confidence.choice = episode, plans the whole episode with the
// candidate whose value at s1 is highest: the value Planner.Best estimates
// for the action it would choose under that candidate (constant mode: the
// best action's mean of Σ_{t<τ} r(x_t) over n_rollouts rollouts holding
// the action; random mode: the best of n_sequences random sequences), all
// candidates evaluated on one shared noise stream, ties to the earliest
// candidate (Ŵ). With choice = step it hands the planner the whole set.
//
// A -ps agent plans with W ~ N(Ŵ, ν² (V_k + λI)⁻¹), ν =
// confidence.posterior_scale.
//
// When confidence.b_star > 0, a candidate or posterior draw W outside the
// ball |W|_F ≤ max(b_star, |Ŵ|_F) is moved back along the ray from Ŵ onto
// the sphere (so it stays inside the confidence set). When β_k = 0 (-ucb)
// or ν = 0 (-ps) the set is the point Ŵ: the agent plans with its estimate
// and draws nothing, exactly as the greedy agent does.
func (a *Agent) BeginEpisode(pl *Planner, s1 []float64, rng *rand.Rand) error {
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
		for _, m := range a.cands[1:] {
			if err := boundaryDraw(a.Last, a.Beta, rng, a.z, a.dir, m.W); err != nil {
				return fmt.Errorf("agent %s: %w", a.Name, err)
			}
			toBall(m.W, a.Last.W, a.conf.BStar)
		}
		if a.conf.Choice == "step" {
			a.Sim = &a.set
			return nil
		}
		j, _, _ := pl.Optimistic(a.sims, s1, rng)
		a.Sim = a.sims[j]
	case "ps":
		nu := a.conf.PosteriorScale
		if nu == 0 {
			a.Sim = a.stepper
			return nil
		}
		m := a.cands[0]
		if err := posteriorDraw(a.Last, nu, rng, a.z, a.dir, m.W); err != nil {
			return fmt.Errorf("agent %s: %w", a.Name, err)
		}
		toBall(m.W, a.Last.W, a.conf.BStar)
		a.Sim = a.sims[0]
	}
	return nil
}

// boundaryDraw writes out = Ŵ + β U⁻¹ u, Ŵ = f.W, with u = z/|z| for a
// standard normal z drawn from rng (so u is uniform on the unit sphere)
// and V + λI = UᵀU: a point on the boundary of the confidence ellipsoid,
// |out − Ŵ|_{V+λI} = β. z and dir are scratch of length d.
func boundaryDraw(f *estimator.Fit, beta float64, rng *rand.Rand, z, dir, out []float64) error {
	for {
		var n2 float64
		for i := range z {
			z[i] = rng.NormFloat64()
			n2 += z[i] * z[i]
		}
		if n2 > 0 {
			n := math.Sqrt(n2)
			for i := range z {
				z[i] /= n
			}
			break
		}
	}
	if err := f.InvSqrt(z, dir); err != nil {
		return err
	}
	for i := range out {
		out[i] = f.W[i] + beta*dir[i]
	}
	return nil
}

// posteriorDraw writes out = Ŵ + ν U⁻¹ z for a standard normal z drawn
// from rng: a draw of N(Ŵ, ν² (V + λI)⁻¹).
func posteriorDraw(f *estimator.Fit, nu float64, rng *rand.Rand, z, dir, out []float64) error {
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	if err := f.InvSqrt(z, dir); err != nil {
		return err
	}
	for i := range out {
		out[i] = f.W[i] + nu*dir[i]
	}
	return nil
}

// toBall moves w, when |w| > R = max(b, |c|), back along the ray from c
// to w onto the sphere |x| = R: w ← c + t (w − c) with the t in [0, 1]
// that solves |c + t (w − c)| = R. b = 0 leaves w unchanged.
func toBall(w, c []float64, b float64) {
	if !(b > 0) {
		return
	}
	var ww, cc, cd, dd float64
	for i := range w {
		d := w[i] - c[i]
		ww += w[i] * w[i]
		cc += c[i] * c[i]
		cd += c[i] * d
		dd += d * d
	}
	r2 := max(b*b, cc)
	if ww <= r2 || dd == 0 {
		return
	}
	// |c|² + 2t c·d + t²|d|² = R², the root in [0, 1).
	t := (-cd + math.Sqrt(max(cd*cd-dd*(cc-r2), 0))) / dd
	t = min(max(t, 0), 1)
	for i := range w {
		w[i] = c[i] + t*(w[i]-c[i])
	}
}
