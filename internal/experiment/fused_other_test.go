//go:build !amd64 || amd64.v3

package experiment

// fusedMulAdd reports that the compiler may fuse x·y + z into one FMA
// (GOAMD64=v3 or later, arm64 and other architectures; the Go spec allows
// it): results then differ from a default amd64 build's in the last bits
// and beyond, and the tests that compare with golden files written by such
// a build skip. Results stay the same for any --workers.
const fusedMulAdd = true
