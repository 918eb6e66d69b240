//go:build !unix

package expfam

import "os"

// mapFile returns the content of path (read into memory where mapping is
// not available).
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

// unmapFile releases what mapFile returned (here, to the garbage collector).
func unmapFile([]byte) {}
