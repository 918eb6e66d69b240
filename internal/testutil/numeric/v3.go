//go:build amd64.v3

package numeric

// AMD64V3 reports a GOAMD64=v3 (or later) build, in which the compiler may
// fuse a test's plain loops' x·y + z into one FMA, so that they no longer
// round as gonum's amd64 assembly does. Unlike FusedMulAdd it is false on
// other architectures, where gonum has no assembly and runs a Go loop.
const AMD64V3 = true
