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

// Site says which family a Family's Coord builds a coordinate of: the
// true one (env.family, Learner false: a coordinate of a product of
// env.family.dim, from the family's env.family keys), or coordinate I of
// the learners' (model.family, Learner true), of scale Sigma (σ_i:
// model.sigma, or the environment's noise scale), Nth being the number
// of coordinates of the same family before it.
type Site struct {
	Learner bool
	I, Nth  int
	Sigma   float64
}

// Family is one family of the registry (RegisterFamilies): its config
// part, registered in both env.family.kind (the true family, a product of
// env.family.dim coordinates) and model.family (the learners' family of
// one coordinate), and its builders. Part holds what both share (name,
// doc, the keys it reads in both, Stats, C, validation); EnvUses/ModelUses,
// EnvKeys/ModelKeys (the keys it declares in env.family and in model: a
// pointer to a struct of defaults with doc tags, see config.KeySet) and
// EnvValidate/ModelValidate are its keys and checks in one group; NoEnv or
// NoModel leaves it out of that group. A family reads its keys with
// config.Shared. Adding a family is one file (its coordinate, its keys,
// its Family value) and one line in RegisterFamilies' call in this file.
type Family struct {
	config.Part
	EnvUses, ModelUses         []string
	EnvKeys, ModelKeys         any
	EnvValidate, ModelValidate func(c *config.Config, bad config.Bad)
	NoEnv, NoModel             bool
	// EnvStatsOf and ModelStatsOf are Part.StatsOf in each group: d_psi
	// when the config gives the statistics (the expression family).
	EnvStatsOf, ModelStatsOf func(c *config.Config, ds int) int
	// Coord builds one coordinate at site s.
	Coord func(c *config.Config, s Site) (expfam.Coord, error)
	// True, when not nil, builds the whole true family (env.family)
	// instead of a product of env.family.dim coordinates of Coord: the
	// tabulated products of the sine families and the closed-form
	// Gaussian, as they always were.
	True func(c *config.Config) (expfam.Distribution, error)
	// Learner, when not nil, builds the learners' whole family (model.family
	// naming this family alone) for scales sigma (one per coordinate)
	// instead of a product of Coord: a family of the whole next state, such
	// as the kernel family, whose statistics are bound to the data at fit
	// time (expfam.KernelSpec).
	Learner func(c *config.Config, sigma []float64) (expfam.Distribution, error)
	// Expression marks a family written as expressions of the config:
	// the true model is checked numerically at the start states.
	Expression bool
	// Scale, when not nil, is the scale of the true family's base measure
	// (env.family.sigma): in env.kind expfam, the unit of score matching's
	// kink bandwidths (trueScales; 1 for a family without one).
	Scale func(c *config.Config) float64
	// ModelClass, when not nil, fills the fields of the learners' model class
	// that the family's keys set, for state coordinates of scales units
	// (the relu families: model.kink and the kink bandwidths
	// kink_bandwidth·units_i). Every registered family's runs on every
	// model class (learnerHooks), whichever family is selected: keys of a
	// family not selected keep their defaults, which the class then holds.
	ModelClass func(c *config.Config, units []float64, m *ModelSpec)
	// Formula is the family's density, from which RegisterFamilies
	// writes Part.Doc (empty for the expression family, whose Doc is
	// written by hand).
	Formula Formula
}

// Formula is a built-in family's density p(x | η) ∝ q(x) exp(<ψ(x), η>)
// in the expression language of docs/expressions.md, a function of x and
// of the parameters sigma, alpha, freq, low and high (its keys), as
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

// The base measures and notes shared by several families' Formula.
const (
	logQSin      = "-abs(x)^alpha/alpha"
	logQGauss    = "-x^2/(2*sigma^2)"
	sigmaNote    = "sigma = env.family.sigma, or σ_i in model.family"
	weightedNote = "weighted score matching"
)

// The family registry: one line per family, in the order smrl list
// families shows them; model.family lists modelFirst first.
func init() {
	RegisterFamilies(
		customSin,
		expSin,
		xSin,
		gaussian,
		relu,
		reluMoG,
		exponential,
		gammaFamily,
		betaFamily,
		truncatedGaussian,
		expressionFamily,
		gaussianCoupled,
		coupledSin,
		kernelFamily,
	)
}

// modelFirst are the families model.family lists first (smrl list
// model-families), in this order; the others follow in registration order.
var modelFirst = []string{"gaussian", "relu", "relu-mog", "custom-sin"}

// Families is the family registry, in registration order.
var Families []Family

// RegisterFamilies registers families with config, in env.family.kind
// and in model.family (see Family). A test may register its own family
// with it from a _test.go file.
func RegisterFamilies(fs ...Family) {
	for i := range fs {
		if f := &fs[i]; f.Formula.LogQ != "" {
			f.Doc = f.Formula.Doc()
		}
	}
	Families = append(Families, fs...)
	for _, f := range fs {
		if f.NoEnv {
			continue
		}
		p := f.Part
		p.Group = "env.family.kind"
		p.Uses = append(slices.Clone(f.Uses), f.EnvUses...)
		p.Validate = both(f.Validate, f.EnvValidate)
		p.StatsOf = f.EnvStatsOf
		if f.EnvKeys != nil {
			p.Keys = []config.KeySet{{At: "env.family", Defaults: f.EnvKeys}}
		}
		config.Register(p)
	}
	var order []Family
	for _, name := range modelFirst {
		if i := slices.IndexFunc(fs, func(f Family) bool { return f.Name == name }); i >= 0 {
			order = append(order, fs[i])
		}
	}
	for _, f := range fs {
		if !slices.Contains(modelFirst, f.Name) {
			order = append(order, f)
		}
	}
	for _, f := range order {
		if f.NoModel {
			continue
		}
		p := f.Part
		p.Group = "model.family"
		p.Uses = append(slices.Clone(f.Uses), f.ModelUses...)
		p.Validate = both(f.Validate, f.ModelValidate)
		p.StatsOf = f.ModelStatsOf
		if f.ModelKeys != nil {
			p.Keys = []config.KeySet{{At: "model", Defaults: f.ModelKeys}}
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

// learnerHooks runs every registered family's ModelClass hook on m, for
// state coordinates of scales units.
func learnerHooks(c *config.Config, units []float64, m *ModelSpec) {
	for _, f := range Families {
		if f.ModelClass != nil {
			f.ModelClass(c, units, m)
		}
	}
}

// trueScales returns, per coordinate of the true family (env.family), the
// scale of its base measure (Family.Scale), 1 for a family without one:
// the units of the kernel bandwidths of model.kink kernel in env.kind
// expfam.
func trueScales(c *config.Config, ds int) []float64 {
	scale := 1.0
	if f := familyByName(c.Env.Family.Kind); f != nil && f.Scale != nil {
		scale = f.Scale(c)
	}
	s := make([]float64, ds)
	for i := range s {
		s[i] = scale
	}
	return s
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

// constText is a Part.C that does not depend on the config.
func constText(s string) func(*config.Config) string { return func(*config.Config) string { return s } }

// RegisteredFamilies returns the names of the registry that NewCoord
// builds, sorted.
func RegisteredFamilies() []string {
	var out []string
	for _, f := range Families {
		if f.Coord != nil {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// NewCoord builds one coordinate of the registry's family kind at site s.
func NewCoord(kind string, c *config.Config, s Site) (expfam.Coord, error) {
	f := familyByName(kind)
	if f == nil || f.Coord == nil {
		return nil, fmt.Errorf("unknown family %q (known: %v)", kind, RegisteredFamilies())
	}
	return f.Coord(c, s)
}

// NewFamily builds the true transition family of c's env.family from the
// registry: the family's True when it has one, else a product of
// env.family.dim of its coordinates (expfam.Coords).
func NewFamily(c *config.Config) (expfam.Distribution, error) {
	fc := c.Env.Family
	f := familyByName(fc.Kind)
	if f == nil || f.NoEnv {
		return nil, fmt.Errorf("env.family.kind: unknown family %q", fc.Kind)
	}
	if f.True != nil {
		return f.True(c)
	}
	if fc.Dim < 1 {
		return nil, fmt.Errorf("env.family.dim must be >= 1, got %d", fc.Dim)
	}
	cs := make([]expfam.Coord, fc.Dim)
	for i := range cs {
		var err error
		if cs[i], err = NewCoord(fc.Kind, c, Site{I: i}); err != nil {
			return nil, fmt.Errorf("env.family: %w", err)
		}
	}
	return expfam.NewCoords(cs)
}

// capKeys is model.weight_cap, the cap of the score-matching weight of
// the relu, bounded and expression families.
type capKeys struct {
	WeightCap float64 `mapstructure:"weight_cap" yaml:"weight_cap" doc:"cap C of the score-matching weight min(d/C, 1)^p, d = distance to kink/boundary; 0: family default (docs/weighted-sm.md)"`
}

// weightCap is model.weight_cap: in units of σ for the Gaussian-based
// families, of x for exponential and gamma, absolute for beta; 0 is the
// family's default.
func weightCap(c *config.Config) float64 { return config.Shared[capKeys](c, "model").WeightCap }

func capOr(c, def float64) float64 {
	if c == 0 {
		return def
	}
	return c
}

// validateWeightCap checks model.weight_cap; limit > 0 bounds it (beta's
// distance to the boundary is at most 0.5).
func validateWeightCap(limit float64) func(*config.Config, config.Bad) {
	return func(c *config.Config, bad config.Bad) {
		wc := weightCap(c)
		if !(wc >= 0) || !finite(wc) || wc > 1e3 {
			bad("model.weight_cap", "must lie in [0, 1000] (0: the family's default), got %v", wc)
		} else if limit > 0 && wc > limit {
			bad("model.weight_cap", "the beta family's distance to the boundary is at most %v, so its cap must lie in (0, %v], got %v", limit, limit, wc)
		}
	}
}

// boundaryC is C(s') of the families on a half-line or an interval.
const boundaryC = "h(s')ψ'(s')ψ'(s')ᵀ: its score-matching weight h at the boundary of the support"

// keyError is an error of a family's Coord that names its config key
// itself: NewLearnerFamily passes it on without naming the coordinate.
type keyError struct{ error }

func (e keyError) Unwrap() error { return e.error }

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
