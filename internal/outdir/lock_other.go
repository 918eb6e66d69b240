//go:build !unix

package outdir

// Lock is a no-op where flock is not available: concurrent runs into one
// directory are not detected there.
func Lock(dir string) (release func() error, err error) {
	return func() error { return nil }, nil
}
