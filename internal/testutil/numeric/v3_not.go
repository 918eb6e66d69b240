//go:build !amd64.v3

package numeric

// AMD64V3: see v3.go.
const AMD64V3 = false
