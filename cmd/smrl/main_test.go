package main

import (
	"os"
	"testing"
)

// TestMain keeps the tests' sampling-table cache in a directory of their own,
// never the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "smrl-test-cache-*")
	if err != nil {
		panic(err)
	}
	os.Setenv("SMRL_CACHE_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
