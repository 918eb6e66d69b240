package linalg

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

func randMat(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// refAt is op(X)(i, j) of the test's operands.
func refAt(x []float64, ld int, t bool, i, j int) float64 {
	if t {
		return x[j*ld+i]
	}
	return x[i*ld+j]
}

// checkClose fails unless |got − want| ≤ tol·(1 + |want|) entrywise.
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*(1+math.Abs(want[i]))) {
			t.Fatalf("%s: entry %d is %v, want %v (difference %g)", what, i, got[i], want[i], d)
		}
	}
}

// TestGemmAgainstTripleLoop checks the packed product against the
// definition C_ij += α Σ_p op(A)_ip op(B)_pj summed in long double-free
// plain loops, for every transposition, sizes that are not multiples of the
// tile or of kc, and each part of C.
func TestGemmAgainstTripleLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m, n, k := 37, 29, 300 // k crosses a kc block
	for _, ta := range []bool{false, true} {
		for _, tb := range []bool{false, true} {
			for _, pt := range []part{whole, upperPart, lowerPart} {
				nn := n
				if pt != whole {
					nn = m
				}
				a, b := randMat(rng, m*k), randMat(rng, k*nn)
				lda, ldb := k, nn
				if ta {
					lda = m
				}
				if tb {
					ldb = k
				}
				c0 := randMat(rng, m*nn)
				got := append([]float64(nil), c0...)
				gemm(pt, m, nn, k, -0.5, operand{a, lda, ta}, operand{b, ldb, tb}, got, nn)
				want := append([]float64(nil), c0...)
				for i := range m {
					for j := range nn {
						if (pt == upperPart && j < i) || (pt == lowerPart && j > i) {
							continue
						}
						var s float64
						for p := range k {
							s += refAt(a, lda, ta, i, p) * refAt(b, ldb, tb, p, j)
						}
						want[i*nn+j] += -0.5 * s
					}
				}
				checkClose(t, "gemm", got, want, 1e-12)
			}
		}
	}
}

// TestKernelGoSameBits: the assembly tile and kern6x8Go give the same
// bits (the same fused multiply-adds in the same order).
func TestKernelGoSameBits(t *testing.T) {
	if !useFMA {
		t.Skip("no FMA kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{0, 1, 7, 256} {
		a, b := randMat(rng, mr*k), randMat(rng, nr*k)
		c1 := randMat(rng, mr*11)
		c2 := append([]float64(nil), c1...)
		kern6x8(k, a, b, c1, 11, 1.7)
		kern6x8Go(k, a, b, c2, 11, 1.7)
		for i := range c1 {
			if math.Float64bits(c1[i]) != math.Float64bits(c2[i]) {
				t.Fatalf("k=%d entry %d: assembly %v, Go %v", k, i, c1[i], c2[i])
			}
		}
	}
}

// TestImplAboveMinWork runs Impl's Dgemm, Dsyrk and Dtrsm on sizes that
// take the blocked path and compares them with gonum's (1e-10), and checks
// that one goroutine and several give the same bits.
func TestImplAboveMinWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, k := 260, 260 // n·n·k > parallelWork (> MinWork): the Dgemm below splits across goroutines
	if !big(n, n, k) || n*n*k < parallelWork {
		t.Fatalf("test sizes below MinWork or parallelWork")
	}
	a := randMat(rng, k*n)
	var im Impl
	var ref gonum.Implementation
	c1 := randMat(rng, n*n)
	c2 := append([]float64(nil), c1...)
	im.Dsyrk(blas.Upper, blas.Trans, n, k, 1, a, n, 0.5, c1, n)
	ref.Dsyrk(blas.Upper, blas.Trans, n, k, 1, a, n, 0.5, c2, n)
	checkClose(t, "Dsyrk", c1, c2, 1e-10)
	prev := runtime.GOMAXPROCS(1)
	c3 := randMat(rng, n*n)
	c4 := append([]float64(nil), c3...)
	im.Dgemm(blas.Trans, blas.NoTrans, n, n, k, 1, a, n, a, n, 0, c3, n)
	runtime.GOMAXPROCS(4)
	im.Dgemm(blas.Trans, blas.NoTrans, n, n, k, 1, a, n, a, n, 0, c4, n)
	runtime.GOMAXPROCS(prev)
	for i := range c3 {
		if math.Float64bits(c3[i]) != math.Float64bits(c4[i]) {
			t.Fatalf("Dgemm entry %d: %v on one goroutine, %v on four", i, c3[i], c4[i])
		}
	}
	// A well-conditioned triangle: the Cholesky factor of AᵀA + n I.
	u := append([]float64(nil), c3...)
	for i := range n {
		u[i*n+i] += float64(n)
	}
	for i := range n { // upper factor by plain Cholesky
		for j := range i {
			u[i*n+j] = 0
		}
	}
	chol(u, n)
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		tri := u
		if ul == blas.Lower {
			tri = transpose(u, n)
		}
		for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			nrhs := 150
			b1 := randMat(rng, n*nrhs)
			b2 := append([]float64(nil), b1...)
			im.Dtrsm(blas.Left, ul, tr, blas.NonUnit, n, nrhs, 2, tri, n, b1, nrhs)
			ref.Dtrsm(blas.Left, ul, tr, blas.NonUnit, n, nrhs, 2, tri, n, b2, nrhs)
			checkClose(t, "Dtrsm", b1, b2, 1e-10)
		}
	}
}

// chol overwrites the upper triangle of the symmetric a with U, a = UᵀU.
func chol(a []float64, n int) {
	for j := range n {
		s := a[j*n+j]
		for p := range j {
			s -= a[p*n+j] * a[p*n+j]
		}
		d := math.Sqrt(s)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[j*n+i]
			for p := range j {
				s -= a[p*n+j] * a[p*n+i]
			}
			a[j*n+i] = s / d
		}
	}
}

func transpose(a []float64, n int) []float64 {
	t := make([]float64, n*n)
	for i := range n {
		for j := range n {
			t[j*n+i] = a[i*n+j]
		}
	}
	return t
}

// TestPotrfAgainstGonum: the right-looking blocked factor of a 300×300
// matrix (above MinPotrf) equals gonum's Dpotrf to 1e-10, and a matrix that
// is not positive definite is reported as such.
func TestPotrfAgainstGonum(t *testing.T) {
	n := MinPotrf + 44
	a := spd(n)
	got := append([]float64(nil), a...)
	want := append([]float64(nil), a...)
	if !(Lapack{}).Dpotrf(blas.Upper, n, got, n) {
		t.Fatal("blocked Dpotrf: not positive definite")
	}
	var ref lapackgonum.Implementation
	if !ref.Dpotrf(blas.Upper, n, want, n) {
		t.Fatal("gonum Dpotrf: not positive definite")
	}
	for i := range n {
		checkClose(t, "Dpotrf", got[i*n+i:(i+1)*n], want[i*n+i:(i+1)*n], 1e-10)
	}
	bad := append([]float64(nil), a...)
	bad[(n-1)*n+n-1] = -1 // the last pivot turns negative
	if (Lapack{}).Dpotrf(blas.Upper, n, bad, n) {
		t.Fatal("blocked Dpotrf accepted a matrix with a negative diagonal entry")
	}
}

// TestMulABtRowIndependentOfBatch: a row of A·Bᵀ has the same bits
// computed alone (m = 1) and at any place of a batch of 13 rows, and is the
// product to 1e-12.
func TestMulABtRowIndependentOfBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const m, n, k = 13, 17, 600 // k spans three kc blocks
	a, b := randMat(rng, m*k), randMat(rng, n*k)
	all := make([]float64, m*n)
	MulABt(m, n, k, a, k, b, k, all, n)
	one := make([]float64, n)
	for i := range m {
		MulABt(1, n, k, a[i*k:], k, b, k, one, n)
		for j := range n {
			if math.Float64bits(one[j]) != math.Float64bits(all[i*n+j]) {
				t.Fatalf("row %d column %d: %v alone, %v in the batch", i, j, one[j], all[i*n+j])
			}
			var s float64
			for p := range k {
				s += a[i*k+p] * b[j*k+p]
			}
			if !numeric.AbsWithin(one[j], s, 1e-12*(1+math.Abs(s))) {
				t.Fatalf("row %d column %d: %v, want %v", i, j, one[j], s)
			}
		}
	}
}

// TestPoconAgainstGonum: the condition estimate with the plain solves of
// Lapack.Dlatrs equals gonum's Dpocon on the same factor (n above
// MinPotrf) to 1e-8, for a well and an ill conditioned matrix.
func TestPoconAgainstGonum(t *testing.T) {
	n := MinPotrf + 20
	for _, ridge := range []float64{1, 1e-9} {
		a := spd(n)
		for i := range n {
			a[i*n+i] += ridge - 1 // XᵀX/n + ridge·I
		}
		var ref lapackgonum.Implementation
		anorm := ref.Dlansy(lapack.MaxColumnSum, blas.Upper, n, a, n, make([]float64, n))
		if !ref.Dpotrf(blas.Upper, n, a, n) {
			t.Fatal("not positive definite")
		}
		got := Lapack{}.Dpocon(blas.Upper, n, a, n, anorm, make([]float64, 3*n), make([]int, n))
		want := ref.Dpocon(blas.Upper, n, a, n, anorm, make([]float64, 3*n), make([]int, n))
		if !numeric.AbsWithin(got, want, 1e-8*want) {
			t.Fatalf("ridge %g: rcond %v, gonum's %v", ridge, got, want)
		}
	}
}

// TestMul1: Mul1 is the blocked product (Impl.Dgemm above MinWork) bit for
// bit, with beta applied first, for every transposition, and a triple
// loop's product within 1e-12.
func TestMul1(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, n, k := 170, 150, 300 // m·n·k above MinWork, k across a kc block
	for _, ta := range []bool{false, true} {
		for _, tb := range []bool{false, true} {
			a, b := randMat(rng, m*k), randMat(rng, k*n)
			lda, ldb := k, n
			if ta {
				lda = m
			}
			if tb {
				ldb = k
			}
			c0 := randMat(rng, m*n)
			got, want := append([]float64(nil), c0...), append([]float64(nil), c0...)
			tA, tB := blas.NoTrans, blas.NoTrans
			if ta {
				tA = blas.Trans
			}
			if tb {
				tB = blas.Trans
			}
			Mul1(ta, tb, m, n, k, 0.7, a, lda, b, ldb, 0.3, got, n)
			Impl{}.Dgemm(tA, tB, m, n, k, 0.7, a, lda, b, ldb, 0.3, want, n)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("Mul1 ta=%v tb=%v entry %d: %v, Dgemm %v", ta, tb, i, got[i], want[i])
				}
			}
		}
	}
	// And against an independent triple loop (1e-12), the sum over k in
	// its own order.
	a, b := randMat(rng, m*k), randMat(rng, k*n)
	got := make([]float64, m*n)
	Mul1(false, false, m, n, k, 1, a, k, b, n, 0, got, n)
	want := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for p := range k {
				s += a[i*k+p] * b[p*n+j]
			}
			want[i*n+j] = s
		}
	}
	checkClose(t, "Mul1", got, want, 1e-12)
}
