//go:build !amd64.v3

package estimator

// fusedMulAdd: see fused_v3_test.go.
const fusedMulAdd = false
