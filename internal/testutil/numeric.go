package testutil

import "github.com/smrl-dev/smrl/internal/testutil/numeric"

// The numeric helpers live in package numeric, which imports nothing of
// smrl, so that the tests of the leaf packages link no config; a test that
// also loads a config finds them here under the same names.

const (
	FusedMulAdd   = numeric.FusedMulAdd
	AMD64V3       = numeric.AMD64V3
	TestGCPercent = numeric.TestGCPercent
)

var (
	SameBits        = numeric.SameBits
	RequireSameBits = numeric.RequireSameBits
	SameBitsOrNaN   = numeric.SameBitsOrNaN
	Within          = numeric.Within
	Close           = numeric.Close
	CloseSlices     = numeric.CloseSlices
	AbsClose        = numeric.AbsClose
	AbsWithin       = numeric.AbsWithin
	AbsClosef       = numeric.AbsClosef
	FewerGCs        = numeric.FewerGCs
)
