package config

import (
	"fmt"
	"math"
	"slices"
)

// This file holds the config of issue 22 (standard errors, cross-validated
// hyperparameters, aggregate metrics): the cv: and stats: sections, the
// word "cv" of the top-level lambda, and their validation.

// LambdaCVWord is the value of the top-level lambda that asks smrl
// estimate to choose λ by cross-validation on the grid cv.grid.
const LambdaCVWord = "cv"

// DefaultCVGrid is the default λ grid of cross-validation: 10⁻⁶, …, 10⁴.
// KernelScaleMin and KernelScaleMax bound a kernel family's bandwidth
// and base scale wherever a config gives them (env.family.*, model.*,
// cv.bandwidths; a base scale also by MaxAbsState): the bounds the fit
// and a saved model are checked against (estimator.KernelMinScale and
// KernelMaxScale, the same numbers: TestKernelScaleBoundsAgree).
const (
	KernelScaleMin = 1e-6
	KernelScaleMax = 1e6
	// KernelScaleRange writes them for messages.
	KernelScaleRange = "[1e-6, 1e6]"
)

var DefaultCVGrid = []float64{1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4}

// CV configures cross-validated hyperparameters: K-fold held-out loss
// over contiguous folds (score matching for smrl estimate; in runs each
// learning agent's own: see estimator.CrossValidate, CrossValidateLDS and
// MLE.CrossValidate).
type CV struct {
	Grid  []float64 `mapstructure:"grid" yaml:"grid"`   // λ values, each > 0
	Folds int       `mapstructure:"folds" yaml:"folds"` // K >= 2
	// Lengths are the rff length scales of model.features.length: cv.
	Lengths []float64 `mapstructure:"lengths" yaml:"lengths"`
	// Bandwidths are the kernel family's bandwidth candidates of
	// bandwidth: cv; empty: a log grid around the median distance of the
	// fitted next states (estimator.DefaultBandwidths).
	Bandwidths []float64 `mapstructure:"bandwidths" yaml:"bandwidths,omitempty"`
}

// LengthCVKey is the key that may be the word cv to choose the rff
// length scale on cv.lengths (smrl estimate only).
const LengthCVKey = "model.features.length"

// cvWordKey reports whether key may be the word cv.
func cvWordKey(key string) bool { return key == "lambda" || key == LengthCVKey }

// lengthPlaceholder is the value model.features.length holds while it is
// cv, so that the feature map's own validation passes; validateStats
// checks cv.lengths.
const lengthPlaceholder = 1.0

// Stats configures the aggregate metrics written after run, compare, merge
// and sweep (package aggregate).
type Stats struct {
	// Score is the per-seed score: "mean" (the mean return per episode) or
	// "final" (the mean return of the last final_episodes episodes).
	Score         string `mapstructure:"score" yaml:"score"`
	FinalEpisodes int    `mapstructure:"final_episodes" yaml:"final_episodes"`
	// BootstrapReps is the number of bootstrap draws of the intervals.
	BootstrapReps int `mapstructure:"bootstrap_reps" yaml:"bootstrap_reps"`
	// SaveSE records, per episode, the standard errors of Ŵ of the
	// learning agents (columns se_k_j of episodes.csv, se in the journal).
	SaveSE bool `mapstructure:"save_se" yaml:"save_se"`
	// Normalise is how the aggregate metrics scale the per-seed scores
	// of a task (a run, a point of a sweep): "none" (raw returns),
	// "random-oracle" ((x − r)/(o − r) with r and o the mean scores of
	// the random agent and the oracle on the task) or "declared" ((x −
	// lo)/(hi − lo) with [lo, hi] = Reference).
	Normalise string `mapstructure:"normalise" yaml:"normalise"`
	// Reference is [lo, hi] of Normalise "declared".
	Reference []float64 `mapstructure:"reference" yaml:"reference"`
	// SaveW writes Ŵ per episode to w.csv (with its standard errors
	// under SaveSE) however small it is; a Ŵ of more than
	// results.WColumnsMax entries goes there anyway.
	SaveW bool `mapstructure:"save_w" yaml:"save_w"`
}

// The values of stats.normalise.
const (
	NormaliseNone     = "none"
	NormaliseOracle   = "random-oracle"
	NormaliseDeclared = "declared"
)

// NormaliseNames are the values of stats.normalise.
var NormaliseNames = []string{NormaliseNone, NormaliseOracle, NormaliseDeclared}

// RandomAgent is the agent of uniformly random actions, the low
// reference of stats.normalise: random-oracle (package agent registers it).
const RandomAgent = "random"

// ScoreNames are the values of stats.score.
var ScoreNames = []string{"mean", "final"}

// maxBootstrapReps bounds stats.bootstrap_reps.
const maxBootstrapReps = 10_000_000

// validateStats checks the cv: and stats: sections and lambda: cv.
func (c *Config) validateStats(bad func(key, format string, args ...any), agents bool) {
	if len(c.CV.Grid) == 0 {
		bad("cv.grid", "must list at least one λ > 0")
	}
	for i, l := range c.CV.Grid {
		if !(l > 0) || math.IsInf(l, 0) || l > 1e6 {
			bad("cv.grid", "entry %d must be a finite number in (0, 1e6], got %v", i+1, l)
			break
		}
	}
	if c.CV.Folds < 2 || c.CV.Folds > 1000 {
		bad("cv.folds", "must be in [2, 1000], got %d", c.CV.Folds)
	}
	if c.LambdaCV {
		if agents {
			for _, a := range c.Agents {
				if p, ok := lookup("agents", a); ok && !p.LambdaCV {
					bad("lambda", "%s (cross-validated λ) is supported by the agents %v only, not %s; give a number", LambdaCVWord, lambdaCVAgents(), a)
					break
				}
			}
		}
		if !agents && c.Estimate.N < c.CV.Folds {
			bad("lambda", "%s needs at least cv.folds = %d transitions, estimate.n is %d", LambdaCVWord, c.CV.Folds, c.Estimate.N)
		}
	}
	for i, b := range c.CV.Bandwidths {
		if !c.Uses("cv.bandwidths") {
			break // a set key nothing reads is refused once, as unused
		}
		if !(b >= KernelScaleMin && b <= KernelScaleMax) {
			bad("cv.bandwidths", "entry %d must be a number in %s, got %v", i+1, KernelScaleRange, b)
			break
		}
	}
	if c.LengthCV {
		if len(c.CV.Lengths) == 0 {
			bad("cv.lengths", "must list at least one length scale > 0")
		}
		for i, l := range c.CV.Lengths {
			if !(l > 0) || math.IsInf(l, 0) || l > 1e6 {
				bad("cv.lengths", "entry %d must be a finite number in (0, 1e6], got %v", i+1, l)
				break
			}
		}
		if p, _ := lookup("model.features.kind", c.Model.Features.Kind); !owns(p, LengthCVKey) {
			bad(LengthCVKey, "%s is for %s features only, model.features.kind is %q", LambdaCVWord, orList(owners("model.features.kind", LengthCVKey)), c.Model.Features.Kind)
		}
		if agents {
			bad(LengthCVKey, "%s (cross-validated rff length) is supported by smrl estimate only: the learning agents' feature map is fixed when they are built; give a number", LambdaCVWord)
		}
		if !agents && c.Estimate.N < c.CV.Folds {
			bad(LengthCVKey, "%s needs at least cv.folds = %d transitions, estimate.n is %d", LambdaCVWord, c.CV.Folds, c.Estimate.N)
		}
	}
	if !slices.Contains(ScoreNames, c.Stats.Score) {
		bad("stats.score", "unknown score %q (known: %v)", c.Stats.Score, ScoreNames)
	}
	if c.Stats.FinalEpisodes < 1 || c.Stats.FinalEpisodes > maxCount {
		bad("stats.final_episodes", "must be in [1, %d], got %d", maxCount, c.Stats.FinalEpisodes)
	}
	if c.Stats.BootstrapReps < 1 || c.Stats.BootstrapReps > maxBootstrapReps {
		bad("stats.bootstrap_reps", "must be in [1, %d], got %d", maxBootstrapReps, c.Stats.BootstrapReps)
	}
	c.validateNormalise(bad, agents)
}

// validateNormalise checks stats.normalise and stats.reference: a known
// word; for random-oracle (in runs) the random agent and the oracle among
// the agents; a reference of two finite, different returns.
func (c *Config) validateNormalise(bad func(key, format string, args ...any), agents bool) {
	st := c.Stats
	if !slices.Contains(NormaliseNames, st.Normalise) {
		bad("stats.normalise", "unknown normalisation %q (known: %v)", st.Normalise, NormaliseNames)
		return
	}
	if len(st.Reference) != 2 || !finiteAll(st.Reference) || st.Reference[0] == st.Reference[1] || math.IsInf(st.Reference[1]-st.Reference[0], 0) {
		bad("stats.reference", "want two different finite returns [low, high] whose difference is finite, got %v", st.Reference)
	}
	if st.Normalise != NormaliseOracle || !agents {
		return
	}
	hasBase := slices.ContainsFunc(c.Agents, IsBaseline)
	if !slices.Contains(c.Agents, RandomAgent) || !hasBase {
		bad("stats.normalise", "%s scales each task's scores by the mean scores of the agents %s and oracle, so both must run: agents is %v", NormaliseOracle, RandomAgent, c.Agents)
	}
}

// finiteAll reports whether every entry of x is finite.
func finiteAll(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// lambdaCVAgents returns the agents that declare LambdaCV.
func lambdaCVAgents() []string {
	var out []string
	for _, p := range Parts("agents") {
		if p.LambdaCV {
			out = append(out, p.Name)
		}
	}
	return out
}

// isLambdaCV reports whether v, a value of the key lambda from a file, an
// SMRL_LAMBDA variable or a flag, is the word cv.
func isLambdaCV(v any) bool {
	s, ok := v.(string)
	return ok && s == LambdaCVWord
}

// lambdaCVText is the message part of a lambda that is neither a number nor cv.
func lambdaCVText(got string) string {
	return fmt.Sprintf("want %s or a number, got %q", LambdaCVWord, got)
}

// ValidateCVConfidence checks lambda: cv for the agents users that plan
// with a confidence set: every λ of cv.grid must be one their β and draws
// can use (>= 1e-12, as a fixed lambda), and confidence.lambda: theorem
// (theorem true), which fixes the -ucb agents' λ to 1/b_star², cannot be
// combined with it.
func (c *Config) ValidateCVConfidence(bad Bad, users []string, theorem bool) {
	if len(users) == 0 {
		return
	}
	// A non-positive entry is validateStats's one error, not a second one here.
	if len(c.CV.Grid) > 0 && slices.Min(c.CV.Grid) > 0 && slices.Min(c.CV.Grid) < 1e-12 {
		bad("cv.grid", "every λ must be >= 1e-12 for agents %v with lambda: %s, got %v: their β needs log det(V/λ + I) and their draws lie about β/sqrt(λ) from Ŵ, both of which overflow for smaller λ", users, LambdaCVWord, slices.Min(c.CV.Grid))
	}
	if theorem && slices.ContainsFunc(users, Optimistic) {
		bad("lambda", "%s cannot be combined with confidence.lambda: theorem, which sets the -ucb agents' λ to 1/b_star²: give a number, or confidence.lambda: shared", LambdaCVWord)
	}
}

// owners returns the names of the parts of group that own key.
func owners(group, key string) []string {
	var out []string
	for _, p := range Parts(group) {
		if owns(p, key) {
			out = append(out, p.Name)
		}
	}
	return out
}
