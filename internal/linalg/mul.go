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
