package estimator

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/smrl-dev/smrl/internal/linalg"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// extremesRef is cholesky.extremes as it was before its two Lanczos
// iterations stepped together (linalg.UtUPair): the one on A first, by
// mat.VecDense.MulVec with U and with Uᵀ, then the one on A⁻¹ by
// blas64.Trsv with Uᵀ and with U, each lanczosMaxRef's steps. Kept
// verbatim as the bit-identity reference of TestExtremesIsSequential.
func extremesRef(c *cholesky) (lo, hi float64, ok bool) {
	n := c.n
	u := mat.NewTriDense(n, mat.Upper, c.upper()) // shares the factor
	var y, in, out mat.VecDense
	y.ReuseAsVec(n)
	hi, ok = lanczosMaxRef(n, func(x, w []float64) {
		in.SetRawVector(blas64.Vector{N: n, Inc: 1, Data: x})
		out.SetRawVector(blas64.Vector{N: n, Inc: 1, Data: w})
		y.MulVec(u, &in)
		out.MulVec(u.T(), &y)
	})
	if !ok {
		return 0, 0, false
	}
	ut := u.RawTriangular()
	inv, ok := lanczosMaxRef(n, func(x, w []float64) {
		copy(w, x)
		v := blas64.Vector{N: n, Inc: 1, Data: w}
		blas64.Trsv(blas.Trans, ut, v)
		blas64.Trsv(blas.NoTrans, ut, v)
	})
	return 1 / inv, hi, ok && inv > 0
}

func lanczosMaxRef(n int, apply func(x, out []float64)) (float64, bool) {
	k := min(n, lanczosSteps)
	q := make([][]float64, 0, k+1)
	q0 := make([]float64, n)
	for i := range q0 {
		q0[i] = 1 + 0.5*math.Sin(float64(i)+1)
	}
	normalise(q0)
	q = append(q, q0)
	alpha, beta := make([]float64, 0, k), make([]float64, 0, k)
	for j := 0; j < k; j++ {
		w := make([]float64, n)
		apply(q[j], w)
		var a float64
		for i, v := range w {
			a += v * q[j][i]
		}
		alpha = append(alpha, a)
		for range 2 {
			for _, qi := range q {
				var d float64
				for i, v := range w {
					d += v * qi[i]
				}
				for i := range w {
					w[i] -= d * qi[i]
				}
			}
		}
		var b float64
		for _, v := range w {
			b += v * v
		}
		b = math.Sqrt(b)
		if j == k-1 || b <= 1e-14*math.Abs(a) {
			break
		}
		beta = append(beta, b)
		for i := range w {
			w[i] /= b
		}
		q = append(q, w)
	}
	m := len(alpha)
	t := mat.NewSymDense(m, nil)
	for i := range m {
		t.SetSym(i, i, alpha[i])
		if i+1 < m {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var e mat.EigenSym
	if !e.Factorize(t, false) {
		return 0, false
	}
	v := e.Values(nil)
	return v[m-1], true
}

// TestExtremesIsSequential: the two Lanczos iterations stepped together
// give the bits of running them one after the other, on Gram matrices of
// random features plus λI for orders 1–600 (below and above
// linalg.MinPotrf, where the Uᵀ solve takes another path), of ranks from
// full to 3 (an early invariant subspace: the iterations stop at
// different steps), and λ from 1 to 1e-9.
func TestExtremesIsSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		d, rank int
		lambda  float64
	}{{1, 1, 1}, {2, 2, 0.5}, {5, 3, 1e-3}, {8, 8, 1e-6}, {9, 9, 1e-3}, {40, 3, 1e-9}, {200, 200, 1e-3}, {257, 40, 1e-6}, {600, 600, 1e-3}} {
		g := make([]float64, tc.rank*tc.d)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		a := make([]float64, tc.d*tc.d)
		for i := range tc.d {
			for j := i; j < tc.d; j++ {
				var s float64
				for r := range tc.rank {
					s += g[r*tc.d+i] * g[r*tc.d+j]
				}
				a[i*tc.d+j] = s
			}
		}
		c, err := factor(nil, a, tc.d, 1, tc.lambda, "test", tc.rank, 0)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		lo, hi, ok := c.extremes()
		wlo, whi, wok := extremesRef(c)
		if ok != wok || math.Float64bits(lo) != math.Float64bits(wlo) || math.Float64bits(hi) != math.Float64bits(whi) {
			t.Fatalf("%+v: together (%v, %v, %v), one after the other (%v, %v, %v)", tc, lo, hi, ok, wlo, whi, wok)
		}
	}
}

// BenchmarkExtremes2000 is the refit diagnostics' spectrum estimate of a
// D = 2000 factor (8 + 8 Lanczos steps): stepped together, one pass over U
// each way per step of both (together), and one after the other as before
// (sequential). Thread CPU time, the fastest group of calls.
func BenchmarkExtremes2000(b *testing.B) {
	const d, rank = 2000, 3000
	rng := rand.New(rand.NewPCG(7, 8))
	g := make([]float64, rank*d)
	for i := range g {
		g[i] = rng.NormFloat64() / math.Sqrt(rank)
	}
	a := make([]float64, d*d)
	linalg.Impl{}.Dsyrk(blas.Upper, blas.Trans, d, rank, 1, g, d, 0, a, d)
	c, err := factor(nil, a, d, 1, 1e-3, "bench", rank, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("together", func(b *testing.B) {
		b.ReportMetric(testutil.FastestCPU(b, 2, func() { c.extremes() })/1e6, "min-ms/op")
	})
	b.Run("sequential", func(b *testing.B) {
		b.ReportMetric(testutil.FastestCPU(b, 2, func() { extremesRef(c) })/1e6, "min-ms/op")
	})
}
