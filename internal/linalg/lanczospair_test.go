package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestUtUPairIsTrmvTrsv: UtUPair gives, bit for bit, what the diagnostics
// computed before with four calls each way: mat.VecDense.MulVec by U and
// by Uᵀ (gonum's Dtrmv) for x, and blas64.Trsv with Uᵀ and with U
// (Impl.Dtrsv, installed) for y; on orders below, at and above MinPotrf,
// vectors with zeros, signed zeros and both signs, and with either vector
// nil.
func TestUtUPairIsTrmvTrsv(t *testing.T) {
	Install()
	rng := rand.New(rand.NewPCG(12, 13))
	for _, n := range []int{1, 2, 3, 17, 100, MinPotrf, MinPotrf + 1, 600} {
		u := spd(n)
		if !(Lapack{}).Dpotrf(blas.Upper, n, u, n) {
			t.Fatal("not positive definite")
		}
		for trial := range 4 {
			x, y := make([]float64, n), make([]float64, n)
			for i := range x {
				x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
				switch rng.IntN(8) {
				case 0:
					x[i] = 0
				case 1:
					x[i] = math.Copysign(0, -1)
				case 2:
					y[i] = math.Copysign(0, -1)
				}
			}
			// The reference: the diagnostics' calls before UtUPair.
			tri := mat.NewTriDense(n, mat.Upper, u)
			var in, mid, out mat.VecDense
			in.SetRawVector(blas64.Vector{N: n, Inc: 1, Data: append([]float64(nil), x...)})
			mid.ReuseAsVec(n)
			mid.MulVec(tri, &in)
			out.ReuseAsVec(n)
			out.MulVec(tri.T(), &mid)
			wantX := out.RawVector().Data
			wantY := append([]float64(nil), y...)
			ut := tri.RawTriangular()
			v := blas64.Vector{N: n, Inc: 1, Data: wantY}
			blas64.Trsv(blas.Trans, ut, v)
			blas64.Trsv(blas.NoTrans, ut, v)

			gotX, gotY := append([]float64(nil), x...), append([]float64(nil), y...)
			switch trial {
			case 0:
				UtUPair(n, u, n, gotX, gotY)
			case 1:
				UtUPair(n, u, n, gotX, nil)
				UtUPair(n, u, n, nil, gotY)
			default:
				UtUPair(n, u, n, nil, gotY)
				UtUPair(n, u, n, gotX, nil)
			}
			for i := range n {
				if math.Float64bits(gotX[i]) != math.Float64bits(wantX[i]) {
					t.Fatalf("n = %d, trial %d: (UᵀU x)_%d = %v, Dtrmv twice %v", n, trial, i, gotX[i], wantX[i])
				}
				if math.Float64bits(gotY[i]) != math.Float64bits(wantY[i]) {
					t.Fatalf("n = %d, trial %d: ((UᵀU)⁻¹ y)_%d = %v, Dtrsv twice %v", n, trial, i, gotY[i], wantY[i])
				}
			}
		}
	}
}

// TestUtUPairZeroStep: with a negative diagonal entry, Dtrmv's Uᵀ pass adds
// 0·u_ij to an entry that is −0 (an axpy with alpha = 0, which Daxpy would
// skip), making it +0; UtUPair does so too.
func TestUtUPairZeroStep(t *testing.T) {
	u := []float64{1, 2, 3, 0, 1, 5, 0, 0, -1}
	tri := mat.NewTriDense(3, mat.Upper, u)
	var mid, out mat.VecDense
	mid.ReuseAsVec(3)
	mid.MulVec(tri, mat.NewVecDense(3, []float64{0, 0, 0}))
	out.ReuseAsVec(3)
	out.MulVec(tri.T(), &mid)
	want := out.RawVector().Data
	if math.Signbit(want[2]) {
		t.Fatalf("gonum's Dtrmv twice gives %v: the case no longer tests Daxpy's skip", want)
	}
	x := []float64{0, 0, 0}
	UtUPair(3, u, 3, x, nil)
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(want[i]) {
			t.Fatalf("Uᵀ(U 0) = %v, gonum's Dtrmv twice %v", x, want)
		}
	}
}
