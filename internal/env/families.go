package env

import (
	"fmt"
	"math"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/estimator"
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

// families is the family registry: one entry per name of config.Families,
// serving env.family (the true family, a product of Dim coordinates) and
// model.family (one family per coordinate). Adding a family is one
// builder here and one line in config.Families.
var families = map[string]familyBuilder{
	"custom-sin": func(p FamilyParams) (expfam.Coord, error) {
		s, err := expfam.NewSin(p.Freq, p.Alpha)
		if err != nil {
			return nil, err
		}
		return expfam.NewScalarCoord(s), nil
	},
	"exp-sin": func(p FamilyParams) (expfam.Coord, error) {
		s, err := expfam.NewExpSin(p.Alpha)
		if err != nil {
			return nil, err
		}
		return expfam.NewScalarCoord(s), nil
	},
	"x-sin": func(p FamilyParams) (expfam.Coord, error) {
		s, err := expfam.NewXSin(p.Alpha)
		if err != nil {
			return nil, err
		}
		return expfam.NewScalarCoord(s), nil
	},
	"gaussian": func(p FamilyParams) (expfam.Coord, error) { return expfam.NewGaussCoord(p.Sigma) },
	"relu":     func(p FamilyParams) (expfam.Coord, error) { return newReLU(p, 2) },
	"relu-mog": func(p FamilyParams) (expfam.Coord, error) { return newReLU(p, 3) },
	"exponential": func(p FamilyParams) (expfam.Coord, error) {
		return expfam.NewExponential(capOr(p.Cap, 1))
	},
	"gamma": func(p FamilyParams) (expfam.Coord, error) { return expfam.NewGamma(capOr(p.Cap, 1)) },
	"beta":  func(p FamilyParams) (expfam.Coord, error) { return expfam.NewBeta(capOr(p.Cap, 0.5)) },
	"truncated-gaussian": func(p FamilyParams) (expfam.Coord, error) {
		f, err := expfam.NewTruncGauss(p.Sigma, p.Low, p.High)
		if err != nil || p.Cap == 0 {
			return f, err
		}
		return &cappedCoord{TruncGauss: f, w: &expfam.DistWeight{Lo: p.Low, Hi: p.High, C: p.Cap * p.Sigma, P: 1}}, nil
	},
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

// RegisteredFamilies returns the names of the registry, sorted.
func RegisteredFamilies() []string {
	out := make([]string, 0, len(families))
	for k := range families {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// NewCoord builds one coordinate of the registry's family kind.
func NewCoord(kind string, p FamilyParams) (expfam.Coord, error) {
	b, ok := families[kind]
	if !ok {
		return nil, fmt.Errorf("unknown family %q (known: %v)", kind, RegisteredFamilies())
	}
	return b(p)
}

// SMWeights returns the score-matching weight of every coordinate of a
// product family under model.kink: a family on a half-line or an interval
// always gets its default weight (plain score matching is inconsistent
// there); a kinked family gets its default weight for "weighted" and none
// for "kernel" and "none"; the rest none. It returns nil when no coordinate
// is weighted (plain score matching) and for families that are not
// products of Coords.
func SMWeights(fam expfam.Distribution, kink string) []expfam.Weight {
	w := estimator.SMWeights(fam)
	if w == nil || kink == "weighted" {
		return w
	}
	cs := fam.(*expfam.Coords) // estimator.SMWeights is nil otherwise
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
// the box, so the corners decide; other features and the states an episode
// reaches later are not checked (the samplers clamp η there, see
// expfam.MinRate).
func checkNaturalParameters(m *expfam.Model, actions [][]float64, lo, hi float64) error {
	cs, ok := m.Dist.(*expfam.Coords)
	if !ok {
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
	phi, eta := make([]float64, m.Feat.Dim()), make([]float64, m.Dist.StatDim())
	s := make([]float64, ds)
	for corner := range 1 << ds {
		for i := range s {
			s[i] = lo
			if corner>>i&1 == 1 {
				s[i] = hi
			}
		}
		for _, a := range actions {
			m.Eta(s, a, phi, eta)
			off := 0
			for i, c := range cs.C {
				k := c.StatDim()
				if r, ok := c.(expfam.Restricted); ok {
					for j, low := range r.EtaLowerBounds() {
						if e := eta[off+j]; !(e > low) {
							return fmt.Errorf("env.w0: η = W0·phi(s, a) has η_%d = %g at s = %v, a = %v (coordinate %d), outside the natural parameter space of the %v family (η_%d > %g needed)",
								off+j, e, s, a, i, c, j, low)
						}
					}
				}
				off += k
			}
		}
	}
	return nil
}
