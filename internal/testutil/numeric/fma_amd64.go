//go:build amd64 && !amd64.v3

package numeric

// FusedMulAdd: see fma_other.go. A default amd64 build (below GOAMD64=v3)
// never fuses.
const FusedMulAdd = false
