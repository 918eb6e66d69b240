package linalg

// MulABt sets C = A·Bᵀ for row-major A (m×k, row stride lda), B (n×k,
// stride ldb) and C (m×n, stride ldc), always by the packed kernel
// (whatever the size, unlike Impl): each element is the same
// fused-multiply-add chain over k, in blocks of kc, whatever m and the
// row's place in A, so a row of C has the same bits whether A holds it
// alone or among others. The batched rollouts rely on that: η = W φ of
// one state equals its row of Φ Wᵀ for a batch of states.
func MulABt(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	scale(whole, m, n, 0, c, ldc)
	gemm(whole, m, n, k, 1, operand{a, lda, false}, operand{b, ldb, true}, c, ldc)
}

// Mul1 sets C = alpha·op(A)·op(B) + beta·C (row-major; op(X) = Xᵀ when
// its flag is set; op(A) m×k, op(B) k×n) by the packed kernel on the
// calling goroutine alone, whatever the size: for callers that split the
// work among goroutines themselves (a fixed split keeps their sums'
// order, hence their bits, the same for any number of workers). Each
// element is Impl.Dgemm's above MinWork, bit for bit.
func Mul1(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	scale(whole, m, n, beta, c, ldc)
	gemmOn(1, whole, m, n, k, alpha, operand{a, lda, tA}, operand{b, ldb, tB}, c, ldc)
}
