//go:build amd64.v3

package estimator

// fusedMulAdd reports that the compiler may fuse the test's plain loops'
// x·y + z into one FMA (GOAMD64=v3 or later), so that they no longer round
// as gonum's assembly does.
const fusedMulAdd = true
