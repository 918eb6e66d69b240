package expfam

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// GaussCoupled is the coupled Gaussian family on R^d: q(x) = exp(−½ xᵀΛx),
// psi(x) = x, for a symmetric positive definite precision Λ, so that
//
//	P(· | η) = N(Λ⁻¹η, Λ⁻¹),  Z(η) = ½ ηᵀΛ⁻¹η + (d/2) log 2π − ½ log det Λ.
//
// Its base measure couples the coordinates (Λ not diagonal), its statistic
// does not: ∂_i psi_k = δ_ik, so C(x) = I and score matching's Ŵ is
// Λ (Σ_t x_t φ_tᵀ)(Σ_t φ_t φ_tᵀ + λI)⁻¹ in closed form. It is the ground
// truth of the joint families: exact sampling by the Cholesky factor
// Λ = LLᵀ, exact Z and mean.
type GaussCoupled struct {
	D      int
	Lambda []float64 // d×d, row-major
	l      []float64 // the lower Cholesky factor L, row-major
	logDet float64   // log det Λ
}

// ErrNotSPD marks a precision that is not a symmetric positive definite
// matrix.
var ErrNotSPD = errors.New("not a symmetric positive definite matrix")

// NewGaussCoupled checks that prec (d rows of d numbers) is symmetric and
// positive definite (by its Cholesky factorisation) and returns the family.
func NewGaussCoupled(prec [][]float64) (*GaussCoupled, error) {
	d := len(prec)
	if d < 1 {
		return nil, fmt.Errorf("precision: %w: an empty matrix", ErrNotSPD)
	}
	g := &GaussCoupled{D: d, Lambda: make([]float64, d*d), l: make([]float64, d*d)}
	for i, row := range prec {
		if len(row) != d {
			return nil, fmt.Errorf("precision: %w: row %d has %d numbers, want %d (a %d×%d matrix)", ErrNotSPD, i, len(row), d, d, d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("precision: %w: entry [%d][%d] is %v", ErrNotSPD, i, j, v)
			}
			g.Lambda[i*d+j] = v
		}
	}
	for i := range d {
		for j := range i {
			a, b := g.Lambda[i*d+j], g.Lambda[j*d+i]
			if math.Abs(a-b) > 1e-12*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) {
				return nil, fmt.Errorf("precision: %w: entry [%d][%d] = %v but [%d][%d] = %v", ErrNotSPD, i, j, a, j, i, b)
			}
		}
	}
	if err := g.factor(); err != nil {
		return nil, err
	}
	return g, nil
}

// factor computes L with Λ = LLᵀ (Cholesky–Banachiewicz) and log det Λ; it
// fails when a pivot is not positive: Λ is not positive definite.
func (g *GaussCoupled) factor() error {
	d := g.D
	for i := range d {
		for j := 0; j <= i; j++ {
			s := g.Lambda[i*d+j]
			for k := range j {
				s -= g.l[i*d+k] * g.l[j*d+k]
			}
			if i == j {
				if !(s > 1e-12*math.Abs(g.Lambda[i*d+i])) || !(s > 0) {
					return fmt.Errorf("precision: %w: its Cholesky pivot of row %d is %g (not positive definite)", ErrNotSPD, i, s)
				}
				g.l[i*d+i] = math.Sqrt(s)
				g.logDet += 2 * math.Log(g.l[i*d+i])
			} else {
				g.l[i*d+j] = s / g.l[j*d+j]
			}
		}
	}
	return nil
}

func (g *GaussCoupled) String() string { return fmt.Sprintf("gaussian-coupled(dim=%d)", g.D) }
func (g *GaussCoupled) StateDim() int  { return g.D }
func (g *GaussCoupled) StatDim() int   { return g.D }
func (g *GaussCoupled) Psi(x, out []float64) {
	copy(out[:g.D], x[:g.D])
}

// LogBase is −½ xᵀΛx.
func (g *GaussCoupled) LogBase(x []float64) float64 {
	var q float64
	for i := range g.D {
		q += x[i] * g.row(i, x)
	}
	return -0.5 * q
}

// row returns (Λx)_i.
func (g *GaussCoupled) row(i int, x []float64) float64 {
	return Dot(g.Lambda[i*g.D:(i+1)*g.D], x)
}

// GradLogBase writes −Λx.
func (g *GaussCoupled) GradLogBase(x, grad []float64) float64 {
	var q float64
	for i := range g.D {
		r := g.row(i, x)
		grad[i] = -r
		q += x[i] * r
	}
	return -0.5 * q
}

// PsiJac writes psi = x and the identity.
func (g *GaussCoupled) PsiJac(x, psi, jac []float64) {
	copy(psi[:g.D], x[:g.D])
	clear(jac[:g.D*g.D])
	for i := range g.D {
		jac[i*g.D+i] = 1
	}
}

// ScoreTerms writes the identity and ξ = −Λx.
func (g *GaussCoupled) ScoreTerms(x, jac, xi []float64) {
	clear(jac[:g.D*g.D])
	for i := range g.D {
		jac[i*g.D+i] = 1
		xi[i] = -g.row(i, x)
	}
}

// ScoreDiag writes g = 1 and ξ = −Λx.
func (g *GaussCoupled) ScoreDiag(x, d, xi []float64) {
	for i := range g.D {
		d[i] = 1
		xi[i] = -g.row(i, x)
	}
}

// ConstantC is C(x) = I.
func (g *GaussCoupled) ConstantC() (float64, bool) { return 1, true }

// solveL solves L u = v in place (forward substitution).
func (g *GaussCoupled) solveL(v []float64) {
	d := g.D
	for i := range d {
		s := v[i]
		for k := range i {
			s -= g.l[i*d+k] * v[k]
		}
		v[i] = s / g.l[i*d+i]
	}
}

// solveLT solves Lᵀ u = v in place (back substitution).
func (g *GaussCoupled) solveLT(v []float64) {
	d := g.D
	for i := d - 1; i >= 0; i-- {
		s := v[i]
		for k := i + 1; k < d; k++ {
			s -= g.l[k*d+i] * v[k]
		}
		v[i] = s / g.l[i*d+i]
	}
}

// Sample draws x = Λ⁻¹η + L⁻ᵀz = L⁻ᵀ(L⁻¹η + z), z ~ N(0, I), in out
// without scratch: Cov = L⁻ᵀL⁻¹ = Λ⁻¹.
func (g *GaussCoupled) Sample(eta []float64, rng *rand.Rand, out []float64) {
	out = out[:g.D]
	copy(out, eta[:g.D])
	g.solveL(out)
	for i := range out {
		out[i] += rng.NormFloat64()
	}
	g.solveLT(out)
}

// Mean writes Λ⁻¹η.
func (g *GaussCoupled) Mean(eta, out []float64) {
	out = out[:g.D]
	copy(out, eta[:g.D])
	g.solveL(out)
	g.solveLT(out)
}

// LogPartition is ½ |L⁻¹η|² + (d/2) log 2π − ½ log det Λ.
func (g *GaussCoupled) LogPartition(eta []float64) (float64, error) {
	u := append([]float64(nil), eta[:g.D]...)
	g.solveL(u)
	var q float64
	for _, v := range u {
		q += v * v
	}
	return 0.5*q + 0.5*float64(g.D)*math.Log(2*math.Pi) - 0.5*g.logDet, nil
}

// Covariance returns Λ⁻¹ (d×d, row-major).
func (g *GaussCoupled) Covariance() []float64 {
	d := g.D
	c := make([]float64, d*d)
	col := make([]float64, d)
	for j := range d {
		clear(col)
		col[j] = 1
		g.solveL(col)
		g.solveLT(col)
		for i := range d {
			c[i*d+j] = col[i]
		}
	}
	return c
}
