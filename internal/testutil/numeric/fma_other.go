//go:build !amd64 || amd64.v3

package numeric

// FusedMulAdd reports that the compiler may fuse x·y + z into one FMA
// (GOAMD64=v3 or later, arm64 and other architectures; the Go spec allows
// it), and may do so in one of two copies of the same arithmetic and not in
// the other: tests that compare two such copies bit for bit, or results with
// golden files written by a default amd64 build, skip then. Results stay the
// same for any --workers, as one binary runs one copy.
const FusedMulAdd = true
