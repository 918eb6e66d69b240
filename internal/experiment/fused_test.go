//go:build amd64 && !amd64.v3

package experiment

// fusedMulAdd: see fused_other_test.go.
const fusedMulAdd = false
