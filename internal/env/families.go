package env

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// FamilyParams are the parameters a family of the registry is built from:
// for env.family its keys, for model.family coordinate i's scale
// model.sigma[i] (Sigma, and Freq = 1/σ for custom-sin) and model.alpha.
type FamilyParams struct {
	Sigma, Alpha, Freq float64
	Low, High          float64 // truncated-gaussian's support
	// Cap is the cap of the score-matching weight (model.weight_cap): in
	// units of Sigma for the Gaussian-based families, of x for exponential
	// and gamma, absolute for beta; 0 is the family's default.
	Cap float64
}

// familyBuilder builds one coordinate of a family from its parameters.
type familyBuilder func(p FamilyParams) (expfam.Coord, error)

// Family is one family of the registry: its config part (name, doc, the
// keys it reads, Stats, validation), registered in both env.family.kind
// (the true family, a product of env.family.dim coordinates) and
// model.family (the learners' family of one coordinate), and its builder.
// EnvUses/ModelUses and EnvValidate/ModelValidate are the part's keys and
// checks in each group (Part.Uses and Part.Validate are common to both);
// Env or Model false leaves the family out of that group. Adding a family
// is one entry of Families.
type Family struct {
	config.Part
	EnvUses, ModelUses         []string
	EnvValidate, ModelValidate func(c *config.Config, bad config.Bad)
	NoEnv, NoModel             bool
	Build                      familyBuilder // nil: built elsewhere (expression)
	// Formula is the family's density, from which init writes Part.Doc
	// (empty for the expression family, whose Doc is written by hand).
	Formula Formula
}

// Formula is a built-in family's density p(x | η) ∝ q(x) exp(<ψ(x), η>)
// in the expression language of docs/expressions.md, a function of x and
// of the parameters sigma, alpha, freq, low and high (FamilyParams), as
// smrl list families prints it: "on (0, ∞): log q(x) = 0, psi(x) = -x;
// weighted score matching". The support is the open interval (Lo, Hi),
// "" for an infinite end: data at a finite end are outside it (smrl
// estimate refuses them). TestFamilyDocsMatchCode evaluates the printed
// text against the family's LogQ, Psi and Support.
type Formula struct {
	LogQ   string
	Psi    []string
	Lo, Hi string
	Note   string // after the formula: where the parameters come from, …
}

// Doc returns the one-line description of smrl list.
func (f Formula) Doc() string {
	support := "ℝ"
	if f.Lo != "" || f.Hi != "" {
		lo, hi := cmp.Or(f.Lo, "−∞"), cmp.Or(f.Hi, "∞")
		support = "(" + lo + ", " + hi + ")"
	}
	psi := f.Psi[0]
	if len(f.Psi) > 1 {
		psi = "[" + strings.Join(f.Psi, ", ") + "]"
	}
	s := fmt.Sprintf("on %s: log q(x) = %s, psi(x) = %s", support, f.LogQ, psi)
	if f.Note != "" {
		s += "; " + f.Note
	}
	return s
}

// KinkModes are the values of model.kink, a key of the relu families: how
// score matching treats the kink of their statistic.
var KinkModes = []string{"weighted", "kernel", "none"}

// The base measures and notes shared by several families' Formula.
const (
	logQSin      = "-abs(x)^alpha/alpha"
	logQGauss    = "-x^2/(2*sigma^2)"
	sigmaNote    = "sigma = env.family.sigma, or σ_i in model.family"
	weightedNote = "weighted score matching"
)

var kinkUses = []string{"model.kink", "model.kink_bandwidth", "model.weight_cap"}

// Families is the family registry, in the order smrl list shows them.
var Families = []Family{
	{Part: config.Part{Name: "custom-sin",
		C: func(c *config.Config) string {
			if c.Env.Kind != "expfam" {
				return "cos²(s'/σ_i)/σ_i²"
			}
			f := c.Env.Family.Freq
			return fmt.Sprintf("%g cos²(%g s')", f*f, f)
		}},
		Formula: Formula{LogQ: logQSin, Psi: []string{"sin(freq*x)"}, Note: "alpha, freq = env.family.alpha, env.family.freq (env.family: a product over dim coordinates, the paper's), or model.alpha, 1/σ_i (model.family)"},
		EnvUses: []string{"env.family.freq", "env.family.alpha"}, EnvValidate: validateCustomSin, ModelUses: []string{"model.alpha"},
		Build: func(p FamilyParams) (expfam.Coord, error) {
			s, err := expfam.NewSin(p.Freq, p.Alpha)
			if err != nil {
				return nil, err
			}
			return expfam.NewScalarCoord(s), nil
		}},
	{Part: config.Part{Name: "exp-sin", C: constText("cos²(s') exp(2 sin s')")},
		Formula: Formula{LogQ: logQSin, Psi: []string{"exp(sin(x))"}, Note: "alpha = env.family.alpha or model.alpha; one-dimensional"},
		EnvUses: []string{"env.family.alpha"}, EnvValidate: validateSinFamily, ModelUses: []string{"model.alpha"},
		Build: func(p FamilyParams) (expfam.Coord, error) {
			s, err := expfam.NewExpSin(p.Alpha)
			if err != nil {
				return nil, err
			}
			return expfam.NewScalarCoord(s), nil
		}},
	{Part: config.Part{Name: "x-sin", C: constText("(sin s' + s' cos s')²")},
		Formula: Formula{LogQ: logQSin, Psi: []string{"x*sin(x)"}, Note: "alpha = env.family.alpha or model.alpha; one-dimensional"},
		EnvUses: []string{"env.family.alpha"}, EnvValidate: validateSinFamily, ModelUses: []string{"model.alpha"},
		Build: func(p FamilyParams) (expfam.Coord, error) {
			s, err := expfam.NewXSin(p.Alpha)
			if err != nil {
				return nil, err
			}
			return expfam.NewScalarCoord(s), nil
		}},
	{Part: config.Part{Name: "gaussian", ConstantC: true},
		Formula: Formula{LogQ: logQGauss, Psi: []string{"x/sigma^2"}, Note: "s' = W phi(s, a) + N(0, sigma² I); sigma = env.family.sigma, or σ_i in model.family"},
		EnvUses: []string{"env.family.sigma"}, EnvValidate: validateGaussian,
		Build: func(p FamilyParams) (expfam.Coord, error) { return expfam.NewGaussCoord(p.Sigma) }},
	{Part: config.Part{Name: "relu",
		Uses: kinkUses, Stats: 2, C: constText("ψ'(s')ψ'(s')ᵀ, singular for s' < 0"), Validate: validateKinked},
		Formula: Formula{LogQ: logQGauss, Psi: []string{"x", "relu(x)"}, Note: sigmaNote + "; the authors' custom_for_exp_relu; the kink by model.kink"},
		EnvUses: []string{"env.family.sigma"}, EnvValidate: validateSigma,
		Build: func(p FamilyParams) (expfam.Coord, error) { return newReLU(p, 2) }},
	{Part: config.Part{Name: "relu-mog",
		Uses: kinkUses, Stats: 3, C: constText("ψ'(s')ψ'(s')ᵀ, singular for s' < 0"), Validate: validateKinked},
		Formula: Formula{LogQ: logQGauss, Psi: []string{"x", "relu(x)", "relu(-x)"}, Note: sigmaNote + "; the authors' custom_for_mog_relu; the kink by model.kink"},
		EnvUses: []string{"env.family.sigma"}, EnvValidate: validateSigma,
		Build: func(p FamilyParams) (expfam.Coord, error) { return newReLU(p, 3) }},
	{Part: config.Part{Name: "exponential", C: constText("h(s')ψ'(s')ψ'(s')ᵀ: its score-matching weight h at the boundary of the support"),
		Uses: []string{"model.weight_cap"}, Validate: validateWeightCap(0)},
		Formula: Formula{Lo: "0", LogQ: "0", Psi: []string{"-x"}, Note: weightedNote},
		Build:   func(p FamilyParams) (expfam.Coord, error) { return expfam.NewExponential(capOr(p.Cap, 1)) }},
	{Part: config.Part{Name: "gamma", C: constText("h(s')ψ'(s')ψ'(s')ᵀ: its score-matching weight h at the boundary of the support"),
		Uses: []string{"model.weight_cap"}, Stats: 2, Validate: validateWeightCap(0)},
		Formula: Formula{Lo: "0", LogQ: "0", Psi: []string{"log(x)", "-x"}, Note: weightedNote},
		Build:   func(p FamilyParams) (expfam.Coord, error) { return expfam.NewGamma(capOr(p.Cap, 1)) }},
	{Part: config.Part{Name: "beta", C: constText("h(s')ψ'(s')ψ'(s')ᵀ: its score-matching weight h at the boundary of the support"),
		Uses: []string{"model.weight_cap"}, Stats: 2, Validate: validateWeightCap(0.5)},
		Formula: Formula{Lo: "0", Hi: "1", LogQ: "0", Psi: []string{"log(x)", "log(1-x)"}, Note: weightedNote},
		Build:   func(p FamilyParams) (expfam.Coord, error) { return expfam.NewBeta(capOr(p.Cap, 0.5)) }},
	{Part: config.Part{Name: "truncated-gaussian", C: constText("h(s')ψ'(s')ψ'(s')ᵀ: its score-matching weight h at the boundary of the support"),
		Uses: []string{"model.weight_cap", "env.family.low", "env.family.high"}, Validate: validateTruncated},
		Formula: Formula{Lo: "low", Hi: "high", LogQ: logQGauss, Psi: []string{"x/sigma^2"}, Note: "N(W phi, sigma²) truncated to (low, high) = (env.family.low, env.family.high), " + sigmaNote + "; " + weightedNote},
		EnvUses: []string{"env.family.sigma"}, EnvValidate: validateSigma,
		Build: func(p FamilyParams) (expfam.Coord, error) {
			f, err := expfam.NewTruncGauss(p.Sigma, p.Low, p.High)
			if err != nil || p.Cap == 0 {
				return f, err
			}
			return &cappedCoord{TruncGauss: f, w: &expfam.DistWeight{Lo: p.Low, Hi: p.High, C: p.Cap * p.Sigma, P: 1}}, nil
		}},
	{Part: config.Part{Name: config.ExprKind, Doc: "q and psi written as expressions of x (log_q, psi, support; docs/expressions.md)",
		Uses: []string{"model.weight_cap"}, C: constText("ψ'(s')ψ'(s')ᵀ of the expressions, with no derived lower bound")},
		EnvUses:   []string{"env.family.log_q", "env.family.psi", "env.family.support", "env.family.coords"},
		ModelUses: []string{"model.expression"},
	},
}

func init() {
	Families = append(Families, jointFamilies...)
	for i := range Families {
		if f := &Families[i]; f.Formula.LogQ != "" {
			f.Doc = f.Formula.Doc()
		}
	}
	models := []string{"gaussian", "relu", "relu-mog", "custom-sin"} // int's order first
	for _, f := range Families {
		if !slices.Contains(models, f.Name) {
			models = append(models, f.Name)
		}
	}
	for _, f := range Families {
		if f.NoEnv {
			continue
		}
		p := f.Part
		p.Group = "env.family.kind"
		p.Uses = append(slices.Clone(f.Uses), f.EnvUses...)
		p.Validate = both(f.Validate, f.EnvValidate)
		if f.Name == config.ExprKind {
			p.StatsOf = func(c *config.Config, ds int) int {
				if c.Env.Family.JointExpr() {
					return len(c.Env.Family.Psi) // the joint statistics
				}
				return config.ExprStats(c.Env.Family.Coordinates())
			}
		}
		config.Register(p)
	}
	for _, name := range models {
		f := familyByName(name)
		if f.NoModel {
			continue
		}
		p := f.Part
		p.Group = "model.family"
		p.Uses = append(slices.Clone(f.Uses), f.ModelUses...)
		p.Validate = both(f.Validate, f.ModelValidate)
		if f.Name == config.ExprKind {
			p.StatsOf = func(c *config.Config, ds int) int {
				m := 1
				for _, x := range c.Model.Expression {
					m = max(m, len(x.Psi))
				}
				return ds * m
			}
		}
		config.Register(p)
	}
}

func familyByName(name string) *Family {
	for i := range Families {
		if Families[i].Name == name {
			return &Families[i]
		}
	}
	return nil
}

// both runs a and then b (nil: none).
func both(a, b func(*config.Config, config.Bad)) func(*config.Config, config.Bad) {
	if a == nil || b == nil {
		if a == nil {
			return b
		}
		return a
	}
	return func(c *config.Config, bad config.Bad) { a(c, bad); b(c, bad) }
}

// validateSigma checks env.family.sigma, the scale of a family's Gaussian
// base measure.
func validateSigma(c *config.Config, bad config.Bad) {
	f := c.Env.Family
	if !(f.Sigma > 0 && finite(f.Sigma)) || f.Sigma < 1e-3 || f.Sigma > 1e3 {
		bad("env.family.sigma", "must lie in [1e-3, 1e3] for %s (the scale of its Gaussian base measure), got %v", f.Kind, f.Sigma)
	}
}

// validateKinked checks the keys of the relu families: model.kink and
// model.weight_cap.
func validateKinked(c *config.Config, bad config.Bad) {
	if !slices.Contains(KinkModes, c.Model.Kink) {
		bad("model.kink", "unknown mode %q (known: %v)", c.Model.Kink, KinkModes)
	}
	validateWeightCap(0)(c, bad)
}

// validateWeightCap checks model.weight_cap; limit > 0 bounds it (beta's
// distance to the boundary is at most 0.5).
func validateWeightCap(limit float64) func(*config.Config, config.Bad) {
	return func(c *config.Config, bad config.Bad) {
		wc := c.Model.WeightCap
		if !(wc >= 0) || !finite(wc) || wc > 1e3 {
			bad("model.weight_cap", "must lie in [0, 1000] (0: the family's default), got %v", wc)
		} else if limit > 0 && wc > limit {
			bad("model.weight_cap", "the beta family's distance to the boundary is at most %v, so its cap must lie in (0, %v], got %v", limit, limit, wc)
		}
	}
}

// validateTruncated checks truncated-gaussian's support and weight cap.
func validateTruncated(c *config.Config, bad config.Bad) {
	f := c.Env.Family
	if !finite(f.Low) || !finite(f.High) || !(f.Low < f.High) || f.Low < -config.MaxAbsState || f.High > config.MaxAbsState {
		bad("env.family.low", "truncated-gaussian needs −%d <= env.family.low < env.family.high <= %d, got [%v, %v]", config.MaxAbsState, config.MaxAbsState, f.Low, f.High)
	} else if !(f.High-f.Low >= config.MinSupportWidth) {
		bad("env.family.low", "truncated-gaussian's support [env.family.low, env.family.high] must be at least %g wide, got [%v, %v]: %s", config.MinSupportWidth, f.Low, f.High, config.SupportWhy)
	}
	validateWeightCap(0)(c, bad)
}

func capOr(c, def float64) float64 {
	if c == 0 {
		return def
	}
	return c
}

func newReLU(p FamilyParams, stats int) (expfam.Coord, error) {
	r, err := expfam.NewReLU(p.Sigma, stats)
	if err != nil || p.Cap == 0 {
		return r, err
	}
	return &cappedReLU{ReLU: r, w: &expfam.DistWeight{Points: []float64{0}, Lo: math.Inf(-1), Hi: math.Inf(1), C: p.Cap * p.Sigma, P: 1}}, nil
}

// cappedReLU is a ReLU family with the weight cap of model.weight_cap.
type cappedReLU struct {
	*expfam.ReLU
	w expfam.Weight
}

func (c *cappedReLU) DefaultWeight() expfam.Weight { return c.w }

// cappedCoord is a truncated-gaussian family with the weight cap of
// model.weight_cap.
type cappedCoord struct {
	*expfam.TruncGauss
	w expfam.Weight
}

func (c *cappedCoord) DefaultWeight() expfam.Weight { return c.w }

// RegisteredFamilies returns the names of the registry that NewCoord
// builds, sorted.
func RegisteredFamilies() []string {
	var out []string
	for _, f := range Families {
		if f.Build != nil {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// NewCoord builds one coordinate of the registry's family kind.
func NewCoord(kind string, p FamilyParams) (expfam.Coord, error) {
	f := familyByName(kind)
	if f == nil || f.Build == nil {
		return nil, fmt.Errorf("unknown family %q (known: %v)", kind, RegisteredFamilies())
	}
	return f.Build(p)
}

// SMWeights returns the score-matching weight of every coordinate of a
// product family under model.kink: a family on a half-line or an interval
// always gets its default weight (plain score matching is inconsistent
// there); a kinked family gets its default weight for "weighted" and none
// for "kernel" and "none"; the rest none. It returns nil when no coordinate
// is weighted (plain score matching) and for families that are not
// products of Coords.
func SMWeights(fam expfam.Distribution, kink string) []expfam.Weight {
	w := expfam.DefaultWeights(fam)
	if w == nil || kink == "weighted" {
		return w
	}
	cs := fam.(*expfam.Coords) // expfam.DefaultWeights is nil otherwise
	set := false
	for i, c := range cs.C {
		lo, hi := expfam.SupportOf(c)
		if math.IsInf(lo, -1) && math.IsInf(hi, 1) {
			w[i] = nil // only kinks to weigh: model.kink decides
		}
		set = set || w[i] != nil
	}
	if !set {
		return nil
	}
	return w
}

// kinkBandwidths returns the kernel bandwidths kink_bandwidth·σ_i of
// score matching's kink term per coordinate (used by model.kink kernel).
func kinkBandwidths(m config.Model, sigma []float64) []float64 {
	h := make([]float64, len(sigma))
	for i, s := range sigma {
		h[i] = m.KinkBandwidth * s
	}
	return h
}

// SMSetup returns the score-matching weights and kernel kink bandwidths of
// the model for a kink mode: "weighted", "kernel" or "none" (model.kink;
// the boundaries of bounded families are weighted in every mode), or
// "plain", plain score matching with h ≡ 1 and no kink term everywhere
// (the authors' estimator). nil entries mean none.
func (m ModelSpec) SMSetup(mode string) (weights []expfam.Weight, bandwidths []float64) {
	switch mode {
	case "plain":
		return nil, nil
	case "kernel":
		return SMWeights(m.Family, mode), m.KinkBandwidth
	}
	return SMWeights(m.Family, mode), nil
}

// checkNaturalParameters refuses a true model whose natural parameters
// η = W0 phi(s, a) leave the natural parameter space of a restricted
// family (expfam.Restricted: exponential, gamma, beta) at a corner of the
// initial box [init_low, init_high]^{d_s} for some action: there the
// family is not normalisable, and the data smrl estimate draws (s uniform
// on the box) would come from no model of the family. With features
// linear in s (linear, affine, constant, per-action) η is linear in s on
// the box, so the corners decide; with other features, and at the states
// an episode reaches later, the runner checks each true transition
// (MDP.CheckTransition).
func checkNaturalParameters(m *expfam.Model, actions [][]float64, lo, hi float64) error {
	check := naturalSpaceCheck(m)
	if check == nil {
		return nil
	}
	switch m.Feat.(type) {
	case expfam.Linear, expfam.Affine, expfam.Constant, expfam.PerAction:
	default:
		return nil
	}
	ds := m.Feat.StateDim()
	if ds > 16 {
		return nil
	}
	s := make([]float64, ds)
	for corner := range 1 << ds {
		for i := range s {
			s[i] = lo
			if corner>>i&1 == 1 {
				s[i] = hi
			}
		}
		for _, a := range actions {
			if err := check(s, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// naturalSpaceCheck returns a function that fails, naming env.w0, the
// state and the action, when η = W0 phi(s, a) of m leaves the natural
// parameter space of a restricted coordinate (expfam.Restricted), where
// the family is not normalisable and its samplers would clamp η; nil when
// m has no restricted coordinate. The function runs before every true
// step, from concurrent trials: its bounds are taken once, and its scratch
// comes from a pool instead of two allocations per step.
func naturalSpaceCheck(m *expfam.Model) func(s, a []float64) error {
	cs, ok := m.Dist.(*expfam.Coords)
	if !ok {
		return nil
	}
	type bound struct {
		coord, off int       // the coordinate and its first statistic
		lows       []float64 // η_(off+j) > lows[j]
	}
	var bounds []bound
	off := 0
	for i, c := range cs.C {
		if r, ok := c.(expfam.Restricted); ok {
			bounds = append(bounds, bound{i, off, r.EtaLowerBounds()})
		}
		off += c.StatDim()
	}
	if len(bounds) == 0 {
		return nil
	}
	type scratch struct{ phi, eta []float64 }
	pool := sync.Pool{New: func() any {
		return &scratch{make([]float64, m.Feat.Dim()), make([]float64, m.Dist.StatDim())}
	}}
	return func(s, a []float64) error {
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		m.Eta(s, a, sc.phi, sc.eta)
		for _, b := range bounds {
			for j, low := range b.lows {
				if e := sc.eta[b.off+j]; !(e > low) {
					return fmt.Errorf("env.w0: η = W0·phi(s, a) has η_%d = %g at s = %v, a = %v (coordinate %d), outside the natural parameter space of the %v family (η_%d > %g needed)",
						b.off+j, e, s, a, b.coord, cs.C[b.coord], j, low)
				}
			}
		}
		return nil
	}
}
