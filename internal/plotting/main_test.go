package plotting

import (
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestMain runs the tests with fewer garbage collections
// (testutil.FewerGCs), which change no result.
func TestMain(m *testing.M) {
	testutil.FewerGCs()
	os.Exit(m.Run())
}
