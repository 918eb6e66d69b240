package expfam

import (
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil/numeric"
)

// TestMain runs the tests with fewer garbage collections
// (numeric.FewerGCs), which change no result.
func TestMain(m *testing.M) {
	numeric.FewerGCs()
	os.Exit(m.Run())
}
