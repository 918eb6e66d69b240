package agent

import (
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// Score matching (SMRL): the sm agents and smrl estimate's sm, and two
// methods of smrl estimate only that compare its kink term: sm-kernel
// (the kernel kink term) and sm-plain (h ≡ 1, no kink term: the authors'
// estimator).
var (
	smEstimator = Estimator{Name: "sm", Default: true, Uses: []string{"sm"}, Keys: []config.KeySet{smKeySet}, Spec: smSpec,
		// The Okabe–Ito blue of the paper's comparison; its variants other hues.
		Looks: map[string]config.Look{
			"":    {Color: [3]uint8{0, 114, 178}, Marker: "circle", Rank: 2},
			"ucb": {Color: [3]uint8{204, 80, 150}, Marker: "ring", Dashes: dashUCB, Rank: 3},
			"ps":  {Color: [3]uint8{120, 160, 0}, Marker: "plus", Dashes: dashPS, Rank: 4}},
		Doc:    "learns W by score matching (SMRL) and plans with P_Ŵ",
		Floats: smFloats, New: newSMFitter(""), Theory: smTheory,
		// model.family: kernel, bound at the refits (smkernel.go); its Ŵ
		// is not the model class's W (the statistics are the data's), so
		// it is not recorded in episodes.csv's W columns nor drawn.
		BindsData: true, OwnFeatures: kernelOwnFeatures}
	smKernelEstimator = Estimator{Name: "sm-kernel", Doc: "kernel kink term", EstimateOnly: true, Kink: "kernel",
		Floats: smFloats, New: newSMFitter("kernel")}
	smPlainEstimator = Estimator{Name: "sm-plain", Doc: "h ≡ 1, the authors' SM", EstimateOnly: true, Kink: "plain",
		Floats: smFloats, New: newSMFitter("plain")}
)

// smKeys is the section sm, declared by the sm agents.
type smKeys struct {
	// Floor is the information floor of the estimate
	// (estimator.SM.SetFloor): a direction of V carrying less information
	// than Floor average transitions is shrunk to that floor; 0 is the
	// paper's plain estimator.
	Floor float64 `mapstructure:"floor" yaml:"floor" doc:"a direction of V informed by fewer than floor average transitions is shrunk to that floor (0: the paper's plain estimator; docs/robust-sm.md)"`
}

// smKeySet places sm after lds. sm.floor has had the default 5 since its
// introduction; earlier versions fit the paper's plain score matching, so
// a snapshot without the key ran with 0 (Legacy).
var smKeySet = config.KeySet{At: "sm", After: "lds", Defaults: &smKeys{Floor: 5}, Legacy: map[string]any{"sm.floor": 0.0},
	Validate: func(c *config.Config, bad config.Bad) {
		if f := SMFloor(c); !(f >= 0) || !finite(f) || f > 1000 {
			bad("sm.floor", "must lie in [0, 1000] (average transitions; 0: the plain estimator), got %v", f)
		}
	}}

// SMFloor is c's sm.floor.
func SMFloor(c *config.Config) float64 { return config.Shared[smKeys](c, "sm").Floor }

// smSpec sets the model class's floor of score matching (sm.floor), for
// the sm agents and every score-matching method of smrl estimate.
func smSpec(c *config.Config, m *env.ModelSpec) { m.SMFloor = SMFloor(c) }

// smFloats: score matching keeps one (m·d_phi)² block per coordinate (one
// d_phi² block in all for constant C) and their Cholesky factors.
// Measured (peak resident memory of one trial at rff dim 2364 on the
// pendulum, 3 blocks; issue 19): sm 261 MB, sm-ucb and sm-ps 546 MB, mle
// 277 MB above the process's 14 MB, against 268, 537 and 268 MB here.
func smFloats(nblocks, m, dphi int, constC bool) float64 {
	if constC {
		return 2 * float64(dphi) * float64(dphi)
	}
	b := float64(m) * float64(dphi)
	return 2 * float64(nblocks) * b * b
}

// newSMFitter returns the constructor of score matching in kink mode
// (empty: model.kink).
func newSMFitter(kink string) func(Setup) (*Fitter, error) {
	return func(s Setup) (*Fitter, error) {
		if ks, ok := s.Spec.Family.(*expfam.KernelSpec); ok && kink == "" && s.Agent {
			return newKernelFitter(s, ks)
		}
		mode := kink
		if mode == "" {
			mode = s.Spec.Kink
		}
		e, err := NewSM(s.Spec, s.Spec.Family, s.Dphi, mode)
		if err != nil {
			return nil, err
		}
		return &Fitter{Dist: s.Spec.Family, Add: e.Add, N: e.N,
			Fit: func(l float64, _ []float64) (*estimator.Fit, error) { return e.Fit(l) },
			CrossValidate: func(n int, data estimator.Data, folds int, grid []float64, _ []float64) (*estimator.CV, error) {
				return estimator.CrossValidate(e, n, data, folds, grid)
			},
			Sandwich: e.Sandwich}, nil
	}
}

// kernelOwnFeatures marks the sm agent's model of a data-bound kernel
// family as its own (Estimator.OwnFeatures): the model class's features,
// but a W whose statistics are bound from the agent's data (smkernel.go),
// so neither episodes.csv's W columns nor the figures read it as the
// class's. nil (the class's) for every other family.
func kernelOwnFeatures(spec env.ModelSpec) expfam.Features {
	if _, ok := spec.Family.(*expfam.KernelSpec); ok {
		return spec.Features
	}
	return nil
}

// smTheory derives the constants of a Gaussian model: with
// per-coordinate scales σ_k, C ⪰ min_k σ_k⁻⁴ I and ξ is
// max_k σ_k⁻⁶-subgaussian.
func smTheory(dist expfam.Distribution, _ []float64) *estimator.Constants {
	sigmas, gaussian := gaussianScales(dist)
	if !gaussian {
		return nil
	}
	lo, hi := slices.Min(sigmas), slices.Max(sigmas)
	return &estimator.Constants{BPsi: estimator.GaussianSM(lo).BPsi, Alpha1: estimator.GaussianSM(hi).Alpha1}
}
