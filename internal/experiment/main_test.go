package experiment

import (
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestMain runs the tests with fewer garbage collections
// (testutil.FewerGCs), which change no result, and removes the runs the
// tests share (fixture_test.go).
func TestMain(m *testing.M) {
	testutil.FewerGCs()
	code := m.Run()
	removeFixtures()
	os.Exit(code)
}
