//go:build !unix

package testutil

import "time"

// threadCPUNanos is the wall clock where no thread CPU clock is read.
func threadCPUNanos() (int64, error) { return time.Now().UnixNano(), nil }
