package linalg

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Install makes Impl gonum's blas64 implementation and Lapack its
// lapack64 one (idempotent). The estimator calls it at start-up, so every
// gonum routine smrl uses runs on them.
func Install() {
	blas64.Use(Impl{})
	lapack64.Use(Lapack{})
}

// Backend names the BLAS that Install selected, for metadata and benchmarks.
const Backend = "pure Go (internal/linalg)"
