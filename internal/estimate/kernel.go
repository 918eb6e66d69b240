package estimate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/smrl-dev/smrl/internal/mcmc"
)

// The kernel family without fixed centres (env.family.kind: kernel
// without centre_points) is bound to the data here: mdp.Model.Family is
// then an *expfam.KernelSpec, and estimator.FitKernelSpec chooses its
// centres, bandwidth and base scale from the fitted next states. Only
// score matching fits it (its SM is a linear solve; it has no W0, no
// sandwich and no lds or mle).

// KernelMinESS is the smallest Kish effective sample size of the
// LogZDraws importance weights of a held-out transition's log Z (the
// joint kernel graph with d > 1) that Evaluate accepts: below it the
// estimate of log Z is dominated by a few draws and is refused, naming
// the transition and the ESS.
const KernelMinESS = 100

// KernelCoord is one fitted kernel family of a Result: coordinate I of s'
// (the autoregressive graph) or the whole of it (joint).
type KernelCoord struct {
	Centres    int       `json:"centres"`
	Bandwidth  float64   `json:"bandwidth"`
	BaseScale  float64   `json:"base_scale"`
	Lambda     float64   `json:"lambda"`
	Iterations int       `json:"cg_iterations"`
	Bandwidths []float64 `json:"cv_bandwidths,omitempty"`
	Lambdas    []float64 `json:"cv_lambdas,omitempty"`
	// CV[i][j] is the held-out SM loss per transition of bandwidth i and λ
	// j; +Inf (a candidate whose conjugate gradients did not converge) is
	// written as JSON null.
	CV CVLoss `json:"cv_loss,omitempty"`
}

// CVLoss is a cross-validation grid of held-out losses whose JSON writes
// a non-finite entry (+Inf: the candidate did not converge) as null,
// which encoding/json cannot write as a number, and reads null back as
// +Inf.
type CVLoss [][]float64

// MarshalJSON writes the grid with null for each non-finite entry.
func (c CVLoss) MarshalJSON() ([]byte, error) {
	rows := make([][]*float64, len(c))
	for i, r := range c {
		rows[i] = make([]*float64, len(r))
		for j := range r {
			if !math.IsInf(r[j], 0) && !math.IsNaN(r[j]) {
				rows[i][j] = &r[j]
			}
		}
	}
	return json.Marshal(rows)
}

// UnmarshalJSON reads null as +Inf.
func (c *CVLoss) UnmarshalJSON(b []byte) error {
	var rows [][]*float64
	if err := json.Unmarshal(b, &rows); err != nil {
		return err
	}
	*c = make(CVLoss, len(rows))
	for i, r := range rows {
		(*c)[i] = make([]float64, len(r))
		for j, v := range r {
			(*c)[i][j] = math.Inf(1)
			if v != nil {
				(*c)[i][j] = *v
			}
		}
	}
	return nil
}

// kernelMethods checks the methods of a kernel fit: sm alone (the default
// when none were asked for).
func kernelMethods(asked []string) error {
	for _, m := range asked {
		if m != "sm" {
			return errs.Invalid(fmt.Errorf("--method %s: the kernel family bound to the data (env.family.kind kernel without centre_points) is fitted by sm only", m))
		}
	}
	return nil
}

// kernelKeyError words an error of the kernel fit with its config key
// (the way agent.NewSM words the estimator's sentinels): the settings the
// estimator names by the key's last part (centres, bandwidth,
// base_scale) are keys of section at (env.family or model); λ's are
// lambda and cv.grid. Every such error is invalid input.
func kernelKeyError(err error, at string) error {
	if !errors.Is(err, estimator.ErrKernelSettings) && !errors.Is(err, expfam.ErrKernelCentres) &&
		!errors.Is(err, expfam.ErrKernelFamily) && !errors.Is(err, estimator.ErrNotConverged) &&
		!errors.Is(err, estimator.ErrSingular) {
		return err
	}
	msg := err.Error()
	for _, k := range []string{"centres", "bandwidth", "base_scale"} {
		if strings.HasPrefix(msg, k+":") {
			return errs.Invalid(fmt.Errorf("%s.%w", at, err))
		}
	}
	if errors.Is(err, estimator.ErrSingular) {
		return errs.Invalid(fmt.Errorf("%s.bandwidth, lambda: %w (a bandwidth near the spacing of the next states and a larger λ condition the system better)", at, err))
	}
	if errors.Is(err, estimator.ErrNotConverged) {
		return errs.Invalid(fmt.Errorf("lambda: %w (a larger λ conditions the system better)", err))
	}
	return errs.Invalid(err)
}

// fitKernel is fitAll for an unbound kernel family: the transitions'
// features and targets in memory (n×(d_phi + d)), λ from lambda or cv.grid
// (lambda: cv), one FitKernelSpec.
func fitKernel(c *config.Config, mdp *env.MDP, spec *expfam.KernelSpec, data *dataset.Transitions, opt Options, st *stage) (*Result, error) {
	if err := kernelMethods(opt.Methods); err != nil {
		return nil, err
	}
	if c.LengthCV {
		return nil, errs.Invalid(fmt.Errorf("%s: %s is not built for the kernel family; give a length", config.LengthCVKey, config.LambdaCVWord))
	}
	res := &Result{N: data.Len(), Lambda: c.Lambda, Family: spec.String(), Features: mdp.Model.Features.String(), Data: opt.Data,
		SENote: "the kernel family reports no standard errors of Ŵ: score its held-out log-likelihood with smrl estimate --model FILE --data TEST"}
	lambdas := []float64{c.Lambda}
	if c.LambdaCV {
		lambdas = slices.Clone(c.CV.Grid)
	}
	phi, next := kernelInputs(mdp, data)
	st.set(fmt.Sprintf("fitting the kernel family on %d transitions", data.Len()))
	start := cpuSeconds()
	g, err := estimator.FitKernelSpec(spec, phi, next, mdp.Model.Features.Dim(), estimator.KernelOptions{Lambdas: lambdas, Folds: c.CV.Folds, Workers: c.Workers})
	if err != nil {
		return nil, kernelKeyError(err, "env.family")
	}
	secs := math.Round((cpuSeconds()-start)*1e6) / 1e6
	model := g.Model()
	e := Estimate{Method: "sm", SEKind: "none", Seconds: secs, Weight: "h(x) = 1", Kernel: &model}
	for _, f := range g.Coords {
		if f.Warning != "" {
			res.warnings = append(res.warnings, f.Warning)
		}
		e.KernelFits = append(e.KernelFits, KernelCoord{Centres: f.Fam.M, Bandwidth: f.Fam.Sigma, BaseScale: f.Fam.Base, Lambda: f.Lambda,
			Iterations: f.Iterations, Bandwidths: f.Bandwidths, Lambdas: f.Lambdas, CV: f.CV})
	}
	if len(g.Coords) == 1 {
		e.W = rows(g.Coords[0].W, g.Coords[0].DPhi)
	}
	res.Lambda = g.Coords[0].Lambda
	res.Estimates = []Estimate{e}
	res.kernelPlot = &kernelPlotInputs{fit: g, phi: phi, next: next, s: data.S, a: data.A,
		ds: data.StateDim, da: data.ActionDim, dn: spec.D, delta: mdp.Model.Delta}
	return res, nil
}

// kernelInputs returns phi(s_t, a_t) (n×d_phi) and the targets (n×d: s',
// or s' − s for model.target delta).
func kernelInputs(mdp *env.MDP, data *dataset.Transitions) (phi, next []float64) {
	phi = Features(mdp, data)
	d := data.StateDim
	next = make([]float64, data.Len()*d)
	at := targets(mdp, nil, data)
	for t := range data.Len() {
		_, y := at(t)
		copy(next[t*d:], y)
	}
	return phi, next
}

// checkKernelModel checks a saved kernel model against the unbound family
// of its config: the graph, the centres' count and the shapes.
func checkKernelModel(m SavedModel, spec *expfam.KernelSpec, dphi int) error {
	if m.Kernel == nil {
		return fmt.Errorf("%s: kernel: missing (a kernel family's model holds its centres, bandwidth, base scale and W)", m.Method)
	}
	if m.Kernel.Graph != spec.Graph {
		return fmt.Errorf("%s: kernel.graph: %q, but its config gives %q", m.Method, m.Kernel.Graph, spec.Graph)
	}
	g, err := m.Kernel.Fit(spec.D, dphi)
	if err != nil {
		return fmt.Errorf("%s: kernel.%w", m.Method, err)
	}
	for i, f := range g.Coords {
		if f.Fam.M != spec.M {
			return fmt.Errorf("%s: kernel: coordinate %d has %d centres, its config gives centres = %d", m.Method, i, f.Fam.M, spec.M)
		}
		for _, w := range f.W {
			if math.Abs(w) > MaxAbsW {
				return fmt.Errorf("%s: kernel: coordinate %d: W entry %v beyond ±%g", m.Method, i, w, MaxAbsW)
			}
		}
	}
	return nil
}

// evaluateKernel scores a saved kernel model on held-out transitions:
// its SM loss per transition and its mean log-likelihood, with
// log_likelihood_se the standard error of that mean over the transitions
// combined with the Monte Carlo error of importance-sampled log Z
// (√(se² + se_Z²); se_Z is 0 for d = 1 and the autoregressive graph,
// whose log Z is exact by quadrature). Importance weights below
// KernelMinESS are refused naming the transition.
func evaluateKernel(m SavedModel, spec *expfam.KernelSpec, mdp *env.MDP, d *dataset.Transitions, name string) (Evaluation, error) {
	g, err := m.Kernel.Fit(spec.D, mdp.Model.Features.Dim())
	if err != nil {
		return Evaluation{}, errs.Invalid(fmt.Errorf("model %s: kernel.%w", m.Method, err))
	}
	phi, next := kernelInputs(mdp, d)
	e := Evaluation{Method: m.Method, N: d.Len(), SMLoss: g.SMLoss(phi, next)}
	ll, se, seZ, err := g.LogLik(phi, next, LogZDraws, rand.New(rand.NewPCG(1, 0x6c6f677a)), KernelMinESS)
	if err != nil {
		if errors.Is(err, mcmc.ErrDegenerate) {
			return Evaluation{}, errs.Invalid(fmt.Errorf("model %s on %s: log Z by importance sampling: %w (bound: an effective sample size of %d of %d draws)", m.Method, name, err, KernelMinESS, LogZDraws))
		}
		return Evaluation{}, errs.Invalid(fmt.Errorf("model %s on %s: %w", m.Method, name, err))
	}
	if math.IsNaN(ll) || math.IsInf(ll, 0) || math.IsNaN(e.SMLoss) || math.IsInf(e.SMLoss, 0) {
		return Evaluation{}, errs.Invalid(fmt.Errorf("model %s on %s: log-likelihood %v, SM loss %v (not finite)", m.Method, name, ll, e.SMLoss))
	}
	tot := math.Sqrt(se*se + seZ*seZ)
	e.LogLik, e.LogLikSE = &ll, &tot
	e.SEWhat = "standard error over the transitions"
	if seZ > 0 {
		e.SEWhat += " and of importance-sampled log Z"
	}
	return e, nil
}

// KernelSpecOf returns the unbound kernel family of mdp's model (the
// family of a config with env.family.kind kernel without centre_points),
// nil when its family is another.
func KernelSpecOf(mdp *env.MDP) *expfam.KernelSpec {
	s, _ := mdp.Model.Family.(*expfam.KernelSpec)
	return s
}

// KernelDistribution returns a saved kernel model of a config whose
// family is spec as an η = W·phi family with its W, for the users of a
// saved model's density (smrl sample, env.kind model): the joint graph
// (d = 1: exact inverse CDF; d > 1: the chains of sampler s) or d = 1.
// The autoregressive graph with d > 1, whose η_i depends on s'_<i, is
// refused.
func KernelDistribution(m SavedModel, spec *expfam.KernelSpec, dphi int, s config.Sampler) (expfam.Distribution, []float64, error) {
	if m.Kernel == nil {
		return nil, nil, errs.Invalid(fmt.Errorf("model %s: kernel: missing", m.Method))
	}
	g, err := m.Kernel.Fit(spec.D, dphi)
	if err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("model %s: kernel.%w", m.Method, err))
	}
	if len(g.Coords) > 1 {
		return nil, nil, errs.Invalid(fmt.Errorf("model %s: the autoregressive kernel graph of d = %d conditions coordinate i on s'_<i, so it is no family of η = W·phi(s, a): only its log-likelihood (smrl estimate --model) is available, or fit graph: joint", m.Method, spec.D))
	}
	f := g.Coords[0]
	if f.Fam.D == 1 {
		return expfam.KernelDist{Kernel: f.Fam}, f.W, nil
	}
	mc, err := expfam.NewMCMC(f.Fam, env.SamplerSettings(s))
	if err != nil {
		return nil, nil, errs.Invalid(fmt.Errorf("sampler: %w", err))
	}
	return mc, f.W, nil
}

// SavedDist returns a saved model's distribution on mdp's model class and
// its W, flattened: the kernel family bound to the file's centres
// (KernelDistribution, with sampler s) when the class is the data-bound
// kernel family, else the family of the model's method (agent.Family).
// kernel says which it was, for the caller to name the failing key.
func SavedDist(saved SavedModel, mdp *env.MDP, s config.Sampler) (dist expfam.Distribution, w []float64, kernel bool, err error) {
	if spec := KernelSpecOf(mdp); spec != nil {
		dist, w, err = KernelDistribution(saved, spec, mdp.Model.Features.Dim(), s)
		return dist, w, true, err
	}
	if dist, err = agent.Family(saved.Method, mdp.Model); err != nil {
		return nil, nil, false, err
	}
	for _, row := range saved.W {
		w = append(w, row...)
	}
	return dist, w, false, nil
}
