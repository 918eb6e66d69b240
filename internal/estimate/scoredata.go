package estimate

import (
	"fmt"
	"math"

	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
)

// scoreOverflow finds, for the score-matching method m, the first target
// at which a coordinate's score-matching terms h ψ'ψ'ᵀ and h ξ + h'ψ' are
// not finite in float64, and reports it as invalid input naming the file,
// line and column (name empty: drawn data, named by transition): a gamma
// target of 1e-300 has ψ” = −1/x² = −Inf and h = (x/C)² = 0. Such data
// make V + λI singular whatever λ, so the cause is the data's scale, not
// λ. nil when every term is finite (the system is singular for another
// reason) or the family is not a product of coordinates.
func scoreOverflow(m string, mdp *env.MDP, data *dataset.Transitions, name string) error {
	cs, ok := mdp.Model.Family.(*expfam.Coords)
	if !ok {
		return nil
	}
	weights, _ := mdp.Model.SMSetup(smMode(m, mdp.Model))
	at := targets(mdp, nil, data)
	ds := data.StateDim
	for j, c := range cs.C {
		k := c.StatDim()
		g, xi := make([]float64, k), make([]float64, k)
		var w expfam.Weight
		if weights != nil {
			w = weights[j]
		}
		for i := range data.Len() {
			_, y := at(i)
			if scoreTermsFinite(c, w, y[j], g, xi) {
				continue
			}
			col := "s_next"
			if ds > 1 {
				col = fmt.Sprintf("s_next%d", j)
			}
			where := fmt.Sprintf("%s line %d column %q", name, i+2, col)
			if name == "" {
				where = fmt.Sprintf("drawn transition %d: %s", i, col)
			}
			what := fmt.Sprintf("%v is outside the float64 range of", y[j])
			if lo, hi := expfam.SupportOf(c); !math.IsInf(lo, 0) || !math.IsInf(hi, 0) {
				what = fmt.Sprintf("%v is too close to the boundary of the support (%v, %v) for", y[j], lo, hi)
			}
			return errs.Invalid(fmt.Errorf("%s: %s the %v family of coordinate %d: score matching's terms h ψ'ψ'ᵀ and h ξ + h'ψ' overflow there, so V + λI is singular whatever λ; rescale the data (%s cannot fit them as they are)",
				where, what, c, j, m))
		}
	}
	return nil
}

// scoreTermsFinite reports whether score matching's terms of coordinate
// c at x, with weight w (nil: h ≡ 1), are finite.
func scoreTermsFinite(c expfam.Coord, w expfam.Weight, x float64, g, xi []float64) bool {
	h, dh := 1.0, 0.0
	if w != nil {
		h, dh = w.At(x)
	}
	c.Score(x, g, xi)
	for a, ga := range g {
		if !finite(h*xi[a] + dh*ga) {
			return false
		}
		for _, gb := range g {
			if !finite(h * ga * gb) {
				return false
			}
		}
	}
	return true
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
