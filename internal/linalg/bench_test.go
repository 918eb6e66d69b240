package linalg

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// spd returns XᵀX/n + I for a standard normal n×n X, row-major.
func spd(n int) []float64 {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randMat(rng, n*n)
	a := make([]float64, n*n)
	Impl{}.Dgemm(blas.Trans, blas.NoTrans, n, n, n, 1/float64(n), x, n, x, n, 0, a, n)
	for i := range n {
		a[i*n+i]++
	}
	return a
}

// benchRefit times one refit: the Cholesky factor of a D×D matrix and the
// solve of 17 right-hand sides in one call, under the BLAS impl.
func benchRefit(b *testing.B, d int, impl blas.Float64) {
	a := spd(d)
	rhs := randMat(rand.New(rand.NewPCG(9, 10)), d*17)
	w := make([]float64, d*d)
	x := make([]float64, d*17)
	blas64.Use(impl)
	if _, native := impl.(gonum.Implementation); native {
		lapack64.Use(lapackgonum.Implementation{})
	} else {
		lapack64.Use(Lapack{})
	}
	defer Install()
	defer cpuPerOp(b)()
	for b.Loop() {
		copy(w, a)
		copy(x, rhs)
		s := blas64.Symmetric{N: d, Stride: d, Data: w, Uplo: blas.Upper}
		if _, ok := lapack64.Potrf(s); !ok {
			b.Fatal("not positive definite")
		}
		lapack64.Potrs(blas64.Triangular{N: d, Stride: d, Data: w, Uplo: blas.Upper, Diag: blas.NonUnit},
			blas64.General{Rows: d, Cols: 17, Stride: 17, Data: x})
	}
}

func BenchmarkRefit2000(b *testing.B) { benchRefit(b, 2000, Impl{}) }

// BenchmarkRefit2000AVX2 is the same refit with the 6×8 AVX2 tile alone
// (no 6×16 AVX-512 tiles): what the AVX-512 kernel gains.
func BenchmarkRefit2000AVX2(b *testing.B) {
	defer func(w bool) { useWide = w }(useWide)
	useWide = false
	benchRefit(b, 2000, Impl{})
}
func BenchmarkRefit2000Gonum(b *testing.B) { benchRefit(b, 2000, gonum.Implementation{}) }
func BenchmarkRefit1024(b *testing.B)      { benchRefit(b, 1024, Impl{}) }

// BenchmarkGram1024 is the statistics of 2·10⁴ transitions on 1024
// features: V += ΦᵀΦ by Dsyrk in blocks of 256 rows.
func BenchmarkGram1024(b *testing.B) {
	const d, n, blk = 1024, 20000, 256
	phi := randMat(rand.New(rand.NewPCG(11, 12)), blk*d)
	v := make([]float64, d*d)
	defer cpuPerOp(b)()
	for b.Loop() {
		for t := 0; t < n; t += blk {
			Impl{}.Dsyrk(blas.Upper, blas.Trans, d, blk, 1, phi, d, 1, v, d)
		}
	}
}

// cpuPerOp starts counting the process's CPU time (user + system); the
// returned function reports it per operation as cpu-ns/op, the figure that
// other jobs on a shared machine disturb least.
func cpuPerOp(b *testing.B) func() {
	start := cpuNow()
	return func() { b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op") }
}

func cpuNow() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkMulABtPanel8x2 is η = W φ of sixteen states at the scale
// benchmark's size (d_s 17, D 2000): 2·17·16·2000 flops per call.
func BenchmarkMulABtPanel8x2(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randMat(rng, 17*2000)
	b0, b1 := randMat(rng, 8*2000), randMat(rng, 8*2000)
	c0, c1 := make([]float64, 8*17), make([]float64, 8*17)
	best := fastest(b, func() { MulABtPanel8x2(17, 2000, a, 2000, b0, b1, c0, c1) })
	b.ReportMetric(2*17*16*2000/best, "GFLOP/s")
}

// fastest runs op b.N times in groups of ten on a locked thread and
// reports the least thread CPU time per call of a group (min-cpu-ns/op),
// which it returns: on a machine shared with other jobs the fastest group
// is the one least disturbed (preemption, the other hyperthread's load).
func fastest(b *testing.B, op func()) float64 { return testutil.FastestCPU(b, 10, op) }

// benchSolve times the refit's solve alone: Dpotrs of a D = 2000 factor
// with 17 right-hand sides (Uᵀ then U), by the narrow solve or, with
// narrow false, by Impl.Dtrsm's general path.
func benchSolve(b *testing.B, narrow bool) {
	const d = 2000
	u := spd(d)
	if !(Lapack{}).Dpotrf(blas.Upper, d, u, d) {
		b.Fatal("not positive definite")
	}
	rhs := randMat(rand.New(rand.NewPCG(9, 10)), d*17)
	x := make([]float64, d*17)
	defer func(s bool) { narrowSolve = s }(narrowSolve)
	narrowSolve = narrow
	Install() // Dpotrs's triangular solves on Impl
	best := fastest(b, func() {
		copy(x, rhs)
		Lapack{}.Dpotrs(blas.Upper, d, 17, u, d, x, 17)
	})
	b.ReportMetric(best/1e6, "min-ms/op")
}

func BenchmarkSolve2000(b *testing.B)        { benchSolve(b, true) }
func BenchmarkSolve2000General(b *testing.B) { benchSolve(b, false) }

// BenchmarkPocon2000 times the condition estimate of a D = 2000 factor
// (Lapack.Dpocon: the Hager–Higham solves, Uᵀ by trsvUpperTrans and U by
// gonum's Dtrsv).
func BenchmarkPocon2000(b *testing.B) {
	const d = 2000
	u := spd(d)
	anorm := Lapack{}.Dlansy(lapack.MaxRowSum, blas.Upper, d, u, d, make([]float64, d))
	if !(Lapack{}).Dpotrf(blas.Upper, d, u, d) {
		b.Fatal("not positive definite")
	}
	work, iwork := make([]float64, 3*d), make([]int, d)
	best := fastest(b, func() { Lapack{}.Dpocon(blas.Upper, d, u, d, anorm, work, iwork) })
	b.ReportMetric(best/1e6, "min-ms/op")
}

// BenchmarkLansy2000 times the norm taken before every factorisation
// (mat.Cholesky's CondNorm: the ∞-norm of the upper triangle) at D = 2000.
func BenchmarkLansy2000(b *testing.B) {
	a := spd(2000)
	w := make([]float64, 2000)
	best := fastest(b, func() { Lapack{}.Dlansy(lapack.MaxRowSum, blas.Upper, 2000, a, 2000, w) })
	b.ReportMetric(best/1e6, "min-ms/op")
}

// BenchmarkTrsmPanel2000 is Dpotrf's first panel solve at D = 2000:
// U11⁻ᵀ A12 for 128 rows and 1872 columns (row stride 2000), with the
// reset of B. chunked is trsmNarrow (trsmCols columns at a time); whole
// is its recursion over all 1872 columns at once, as before the chunks
// (the same bits, TestTrsmNarrowIsTrsm).
func BenchmarkTrsmPanel2000(b *testing.B) {
	const m, n, ld = 128, 1872, 2000
	u := upperFactor(m, ld, 1, 3)
	x0 := randMat(rand.New(rand.NewPCG(3, 4)), m*ld)
	x := make([]float64, len(x0))
	for _, c := range []struct {
		name  string
		solve func()
	}{
		{"chunked", func() { trsmNarrow(true, m, n, u, ld, x, ld) }},
		{"whole", func() { narrowRec(true, m, n, n, u, ld, x, ld) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			best := fastest(b, func() { copy(x, x0); c.solve() })
			b.ReportMetric(best/1e6, "min-ms/op")
		})
	}
}
