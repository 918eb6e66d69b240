package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestMain keeps the tests' sampling-table cache in a directory of their own,
// never the user's. With testutil.ExtServerEnv set, the test binary is the
// damped pendulum served over env.kind external's protocol instead.
//
// Invoked as "smrl" (a link to the test binary, see TestDocExamples), the
// test binary is smrl itself.
func TestMain(m *testing.M) {
	testutil.FewerGCs()           // fewer garbage collections, which change no result
	testutil.MaybeServeExternal() // a test's env.kind external runs this binary as its simulator
	if filepath.Base(os.Args[0]) == "smrl" {
		os.Exit(int(Main(os.Args[1:], os.Stdout, os.Stderr)))
	}
	if os.Getenv("SMRL_TEST_ARGS") != "" {
		// A helper process (TestHelperSmrl), started by a test of this
		// binary with its environment: it uses that test's cache, and may
		// be killed before it could remove a directory of its own.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "smrl-test-cache-*")
	if err != nil {
		panic(err)
	}
	os.Setenv("SMRL_CACHE_DIR", dir)
	code := m.Run()
	removeFixtures()
	os.RemoveAll(dir)
	os.Exit(code)
}
