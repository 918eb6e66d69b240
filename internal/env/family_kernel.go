package env

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// This file registers the kernel family (docs/kernel-families.md): the
// Nyström kernel exponential family of expfam.Kernel, psi_k(x) =
// exp(−|x − z_k|²/(2σ²)) at m centres z_k, a Gaussian base q(x) =
// exp(−|x|²/(2b²)), W m×d_phi on any features.
//
// A kernel family is data-dependent: its centres (a seeded subsample of
// the fitted next states), its bandwidth σ (bandwidth: cv chooses it from
// cv.bandwidths by held-out score-matching loss) and its base scale b
// (default: the standard deviation of the fitted next states) are chosen
// from the data, while env.New builds the model class before any data
// exist. So the family the config builds is an *expfam.KernelSpec, the
// choices without the statistics, and the estimator binds it at fit time:
//
//   - smrl estimate --data with env.family.kind: kernel (no env.w0, no
//     env.family.centre_points): the use case finds the *expfam.KernelSpec
//     in mdp.Model.Family and fits it with estimator.FitKernelSpec.
//   - a learner with model.family: kernel: its env.ModelSpec.Family is the
//     *expfam.KernelSpec of the model keys (model.centres,
//     model.bandwidth, model.base_scale, model.graph; Family.Learner below),
//     and the greedy sm agent (config.Part.BindsData) binds it to its
//     collected transitions at its refits with estimator.FitKernelSpec
//     and plans with an expfam.KernelChain (agent/smkernel.go). The
//     centres are drawn by the stream of spec.Seed (config seed) and the
//     draw's number, so a refit on the same data is the same. Other
//     learners are refused at validation (DataBound), and so is what the
//     binding agent cannot do (validateKernelLearner).
//
// A true kernel family (env.w0 given, to draw synthetic data) needs its
// statistics fixed by the config: env.family.centre_points (m rows of dim
// numbers; m is their count), bandwidth a number, base_scale > 0, graph
// joint (for d = 1 sampled exactly by the inverse CDF of the quadrature;
// for d > 1 by the MCMC chains of the sampler: section). Such a bound
// family is an ordinary family of every estimator (smrl estimate fits it
// by the generic score matching, lds and mle).
var kernelFamily = Family{Part: config.Part{Name: "kernel",
	Doc:           "on ℝ^d: log q(x) = −|x|²/(2b²), psi_k(x) = exp(−|x − z_k|²/(2σ²)) at m centres z_k (Nyström kernel exponential family); centres, bandwidth and base_scale from the data when not given (docs/kernel-families.md)",
	C:             constText("Σ_i ∂_i psi ∂_i psiᵀ of the kernels at the centres (rank ≤ d)"),
	DataBound:     "drop the others, or use the agent ksm (section ksm: a 1-D kernel family per coordinate around a ridge mean) with a Gaussian model.family (docs/kernel-families.md)",
	BoundValidate: validateKernelLearner},
	EnvUses:   []string{"env.family.centres", "env.family.centre_points", "env.family.bandwidth", "env.family.base_scale", "env.family.graph", "cv.bandwidths", "sampler"},
	ModelUses: []string{"model.centres", "model.bandwidth", "model.base_scale", "model.graph", "cv.bandwidths"},
	EnvKeys:   &kernelEnvKeys{Centres: 50, Bandwidth: config.LambdaCVWord, Graph: expfam.KernelAutoregressive},
	ModelKeys: &kernelKeys{Centres: 50, Bandwidth: config.LambdaCVWord, Graph: expfam.KernelAutoregressive},
	EnvValidate: func(c *config.Config, bad config.Bad) {
		validateKernelKeys(config.Shared[kernelKeys](c, "env.family"), "env.family", bad)
		validateCentrePoints(c, config.Shared[kernelEnvKeys](c, "env.family"), bad)
	},
	ModelValidate: func(c *config.Config, bad config.Bad) {
		validateKernelKeys(config.Shared[kernelKeys](c, "model"), "model", bad)
		if len(c.Model.Family) > 1 {
			bad("model.family", "kernel models the whole next state (graph joint or autoregressive): give it alone, not one family per coordinate")
		}
	},
	EnvStatsOf: func(c *config.Config, ds int) int {
		k := config.Shared[kernelEnvKeys](c, "env.family")
		if len(k.CentrePoints) > 0 {
			return len(k.CentrePoints)
		}
		return kernelStats(config.Shared[kernelKeys](c, "env.family"), ds)
	},
	ModelStatsOf: func(c *config.Config, ds int) int { return kernelStats(config.Shared[kernelKeys](c, "model"), ds) },
	True:         trueKernel,
	Learner: func(c *config.Config, sigma []float64) (expfam.Distribution, error) {
		return kernelSpec(c, config.Shared[kernelKeys](c, "model"), "model", len(sigma))
	},
}

// validateKernelLearner checks a run whose sm agent binds model.family
// kernel at its refits: its rollouts step the autoregressive graph (or
// d = 1) coordinate by coordinate, so the joint graph of d > 1 (sampled by
// MCMC only) is refused; its fit has no standard errors
// (stats.save_se) and its W no meaning without the statistics drawn
// during the run, so a saved model cannot start it (init_model).
func validateKernelLearner(c *config.Config, bad config.Bad) {
	k := config.Shared[kernelKeys](c, "model")
	d := c.EnvDim()
	if d == 0 {
		d = c.Env.Family.Dim
	}
	if k.Graph == expfam.KernelJoint && d > 1 {
		bad("model.graph", "joint with %d state coordinates cannot be a learner's model: its rollouts step the autoregressive graph (or d = 1) by a fixed grid rule per coordinate, while the joint family of d > 1 draws only by an MCMC chain per simulated step; use model.graph: autoregressive", d)
	}
	if c.Stats.SaveSE {
		bad("stats.save_se", "the kernel family bound at the refits has no standard errors of Ŵ")
	}
	if c.InitModel != "" {
		bad("init_model", "a learner of model.family kernel draws its centres from its own transitions; a saved W cannot start it")
	}
}

// kernelKeys are the kernel family's keys, in env.family and in model.
type kernelKeys struct {
	Centres   int     `mapstructure:"centres" yaml:"centres" doc:"kernel: m, the number of centres, a seeded subsample (config seed) of the fitted next states"`
	Bandwidth string  `mapstructure:"bandwidth" yaml:"bandwidth" doc:"kernel: σ of the Gaussian kernels, a number in [1e-6, 1e6] (at fit time also in [r/1e4, 100·max(r, b)], r = max |s'| of the data) or cv (chosen from cv.bandwidths by cv.folds-fold held-out SM loss)"`
	BaseScale float64 `mapstructure:"base_scale" yaml:"base_scale" doc:"kernel: b of the base q(x) = exp(−|x|²/(2b²)), in [1e-6, 1024] (at fit time also ≥ max |s'|/100); 0: the standard deviation of the fitted next states"`
	Graph     string  `mapstructure:"graph" yaml:"graph" doc:"kernel: autoregressive (a 1-D family per coordinate given (s, a, s'_<i): exact Z and sampling) or joint (one family on ℝ^d: Z by importance sampling, MCMC sampling)"`
}

// kernelEnvKeys are kernelKeys (the same keys, read with
// config.Shared[kernelKeys] in either section) and the centres of a true
// kernel family.
type kernelEnvKeys struct {
	Centres      int         `mapstructure:"centres" yaml:"centres" doc:"kernel: m, the number of centres, a seeded subsample (config seed) of the fitted next states"`
	Bandwidth    string      `mapstructure:"bandwidth" yaml:"bandwidth" doc:"kernel: σ of the Gaussian kernels, a number in [1e-6, 1e6] (at fit time also in [r/1e4, 100·max(r, b)], r = max |s'| of the data) or cv (chosen from cv.bandwidths by cv.folds-fold held-out SM loss)"`
	BaseScale    float64     `mapstructure:"base_scale" yaml:"base_scale" doc:"kernel: b of the base q(x) = exp(−|x|²/(2b²)), in [1e-6, 1024] (at fit time also ≥ max |s'|/100); 0: the standard deviation of the fitted next states"`
	Graph        string      `mapstructure:"graph" yaml:"graph" doc:"kernel: autoregressive (a 1-D family per coordinate given (s, a, s'_<i): exact Z and sampling) or joint (one family on ℝ^d: Z by importance sampling, MCMC sampling)"`
	CentrePoints [][]float64 `mapstructure:"centre_points" yaml:"centre_points,omitempty" doc:"kernel, a true family (env.w0): its m centres, m rows of dim numbers (then bandwidth a number and base_scale > 0)"`
}

// kernelStats is d_psi: m, or d·m for the autoregressive graph.
func kernelStats(k kernelKeys, ds int) int {
	if k.Graph == expfam.KernelAutoregressive {
		return ds * k.Centres
	}
	return k.Centres
}

// parseBandwidth reads a bandwidth key: nil for cv (the candidates are
// cv.bandwidths), else the one number.
func parseBandwidth(s string) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == config.LambdaCVWord {
		return nil, nil
	}
	b, err := strconv.ParseFloat(s, 64)
	if err != nil || !(b >= config.KernelScaleMin && b <= config.KernelScaleMax) {
		return nil, fmt.Errorf("must be a number in %s or %s, got %q", config.KernelScaleRange, config.LambdaCVWord, s)
	}
	return []float64{b}, nil
}

func validateKernelKeys(k kernelKeys, at string, bad config.Bad) {
	if k.Centres < 1 || k.Centres > 10000 {
		bad(at+".centres", "must lie in [1, 10000], got %d", k.Centres)
	}
	if _, err := parseBandwidth(k.Bandwidth); err != nil {
		bad(at+".bandwidth", "%v", err)
	}
	if !(k.BaseScale == 0 || k.BaseScale >= config.KernelScaleMin && k.BaseScale <= config.MaxAbsState) { // states lie in [−MaxAbsState, MaxAbsState]
		bad(at+".base_scale", "must be 0 (the standard deviation of the data) or a number in [1e-6, %d], got %v", config.MaxAbsState, k.BaseScale)
	}
	if k.Graph != expfam.KernelJoint && k.Graph != expfam.KernelAutoregressive {
		bad(at+".graph", "must be %s or %s, got %q", expfam.KernelJoint, expfam.KernelAutoregressive, k.Graph)
	}
}

// validateCentrePoints checks a true kernel family: its centres' shape,
// and that a true W (env.w0) comes with fixed statistics.
func validateCentrePoints(c *config.Config, k kernelEnvKeys, bad config.Bad) {
	d := c.Env.Family.Dim
	for i, row := range k.CentrePoints {
		if len(row) != d {
			bad("env.family.centre_points", "row %d has %d numbers, want env.family.dim = %d", i, len(row), d)
			return
		}
		for _, v := range row {
			if !finite(v) {
				bad("env.family.centre_points", "row %d holds %v", i, v)
				return
			}
		}
	}
	if len(k.CentrePoints) == 0 {
		if len(c.Env.W0) > 0 {
			bad("env.family.centre_points", "a true kernel family (env.w0) needs its centres: m rows of dim numbers (without env.w0, smrl estimate --data draws them from the data)")
		}
		return
	}
	if b, err := parseBandwidth(k.Bandwidth); err == nil && b == nil {
		bad("env.family.bandwidth", "a kernel family with centre_points needs a number, not %s", config.LambdaCVWord)
	}
	if !(k.BaseScale > 0) {
		bad("env.family.base_scale", "a kernel family with centre_points needs a number > 0, got %v", k.BaseScale)
	}
	if k.Graph != expfam.KernelJoint {
		bad("env.family.graph", "a kernel family with centre_points is joint (one family on ℝ^d), got %q", k.Graph)
	}
}

// kernelSpec is the unbound family of keys k at section at on ℝ^d:
// bandwidth cv takes its candidates from cv.bandwidths (empty: the
// default grid of the data), the centres' seed is config seed.
func kernelSpec(c *config.Config, k kernelKeys, at string, d int) (*expfam.KernelSpec, error) {
	bw, err := parseBandwidth(k.Bandwidth)
	if err != nil {
		return nil, keyError{fmt.Errorf("%s.bandwidth: %w", at, err)}
	}
	if bw == nil && len(c.CV.Bandwidths) > 0 {
		bw = append([]float64(nil), c.CV.Bandwidths...)
	}
	return &expfam.KernelSpec{D: d, M: k.Centres, Bandwidths: bw, BaseScale: k.BaseScale, Graph: k.Graph, Seed: c.Seed}, nil
}

// trueKernel builds env.family: the unbound family without centre points,
// else the bound kernel family (d = 1: inverse CDF; d > 1: MCMC).
func trueKernel(c *config.Config) (expfam.Distribution, error) {
	k := config.Shared[kernelEnvKeys](c, "env.family")
	d := c.Env.Family.Dim
	if len(k.CentrePoints) == 0 {
		return kernelSpec(c, config.Shared[kernelKeys](c, "env.family"), "env.family", d)
	}
	bw, err := parseBandwidth(k.Bandwidth)
	if err != nil || len(bw) != 1 {
		return nil, fmt.Errorf("env.family.bandwidth: a kernel family with centre_points needs a number, got %q", k.Bandwidth)
	}
	var z []float64
	for _, row := range k.CentrePoints {
		z = append(z, row...)
	}
	f, err := expfam.NewKernel(d, z, bw[0], k.BaseScale)
	if err != nil {
		return nil, fmt.Errorf("env.family.%w", err)
	}
	if d == 1 {
		return expfam.KernelDist{Kernel: f}, nil
	}
	return newMCMC(c, f)
}
