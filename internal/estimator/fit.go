package estimator

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrSingular is returned when V + λI cannot be factorised: with λ = 0 this
// happens whenever the data do not span every feature direction.
var ErrSingular = errors.New("V + λI is singular or not positive definite")

// maxCond is the largest condition number of V + λI accepted before the
// solve is declared singular.
const maxCond = 1e14

// Fit is an estimate Ŵ together with the factorised regularised normal
// matrix V + λI, which is block diagonal in vec(W): each block covers a
// contiguous range of vec(W) (one row of W, one coordinate's rows, or all of
// it) and several blocks may share one factorisation (when V = C ⊗ G with
// constant C, every row's block is the same c·G + λI).
type Fit struct {
	W          []float64 // d_psi×d_phi, row-major
	DPsi, DPhi int
	Lambda     float64
	N          int
	blocks     []fitBlock
}

// fitBlock is the factorised V + λI restricted to vec(W)[off : off+n].
type fitBlock struct {
	off, n int
	c      *mat.Cholesky
}

// rowBlocks returns one block per row of W, row k factorised by c(k).
func rowBlocks(dpsi, dphi int, c func(k int) *mat.Cholesky) []fitBlock {
	b := make([]fitBlock, dpsi)
	for k := range b {
		b[k] = fitBlock{off: k * dphi, n: dphi, c: c(k)}
	}
	return b
}

// factor Cholesky-factorises a (d×d, symmetric, upper triangle filled) plus
// λI, or fails with ErrSingular.
func factor(a []float64, d int, lambda float64, what string, n int) (*mat.Cholesky, error) {
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s.SetSym(i, j, a[i*d+j])
		}
		s.SetSym(i, i, a[i*d+i]+lambda)
	}
	var c mat.Cholesky
	if ok := c.Factorize(s); !ok || c.Cond() > maxCond || math.IsNaN(c.Cond()) {
		advice := "use a regularisation lambda > 0 or more varied data"
		if lambda > 0 {
			advice = "use a larger lambda or more varied data"
		}
		return nil, fmt.Errorf("%s: %w (n = %d transitions, λ = %g); %s", what, ErrSingular, n, lambda, advice)
	}
	return &c, nil
}

// solveInto writes −(V + λI)⁻¹ rhs into out, block by block.
func (f *Fit) solveInto(rhs, out []float64) error {
	for _, b := range f.blocks {
		x := mat.NewVecDense(b.n, out[b.off:b.off+b.n])
		if err := b.c.SolveVecTo(x, mat.NewVecDense(b.n, rhs[b.off:b.off+b.n])); err != nil {
			return err
		}
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("solution has a non-finite entry at %d: %w", i, ErrSingular)
		}
	}
	return nil
}

// LogDet returns log det(V/λ + I) (λ > 0), the information gain that sets
// the width β of the confidence set.
func (f *Fit) LogDet() float64 {
	var ld float64
	for _, b := range f.blocks {
		ld += b.c.LogDet() - float64(b.n)*math.Log(f.Lambda)
	}
	return ld
}

// Norm returns |δ|_{V+λI} = sqrt(δᵀ (V + λI) δ) for δ = vec(W − Ŵ).
func (f *Fit) Norm(delta []float64) float64 {
	var s float64
	for _, b := range f.blocks {
		s += quadForm(b.c, delta[b.off:b.off+b.n])
	}
	return math.Sqrt(s)
}

// quadForm returns vᵀ L Lᵀ v = |Lᵀ v|².
func quadForm(c *mat.Cholesky, v []float64) float64 {
	var u mat.TriDense
	c.UTo(&u) // V + λI = Uᵀ U
	var y mat.VecDense
	y.MulVec(&u, mat.NewVecDense(len(v), v))
	return mat.Dot(&y, &y)
}

// InvSqrt writes out = U⁻¹ z, where V + λI = Uᵀ U, so |out|_{V+λI} = |z|:
// it maps the unit sphere onto the boundary of the unit ellipsoid, and a
// standard normal z onto N(0, (V + λI)⁻¹).
func (f *Fit) InvSqrt(z, out []float64) error {
	for _, b := range f.blocks {
		var u mat.TriDense
		b.c.UTo(&u)
		x := mat.NewVecDense(b.n, out[b.off:b.off+b.n])
		if err := x.SolveVec(&u, mat.NewVecDense(b.n, z[b.off:b.off+b.n])); err != nil {
			return err
		}
	}
	return nil
}

// BetaTheory is the radius of the paper's confidence set (eq. conf-set):
//
//	β = sqrt(2(B_psi + B_c)/α₁²) · sqrt(log(2 det(V/λ + I)^{1/2} / δ)) + sqrt(λ) B_star
//
// given logDet = log det(V/λ + I). Preconditions: 0 < δ < 1, α₁ > 0.
func BetaTheory(logDet, delta, lambda, bPsi, bC, alpha1, bStar float64) float64 {
	return math.Sqrt(2*(bPsi+bC)/(alpha1*alpha1))*math.Sqrt(math.Log(2)+logDet/2-math.Log(delta)) +
		math.Sqrt(lambda)*bStar
}

// BetaPractical is the scaled radius c · sqrt(log det(V/λ + I) + 2 log(1/δ)).
func BetaPractical(logDet, delta, scale float64) float64 {
	return scale * math.Sqrt(logDet+2*math.Log(1/delta))
}
