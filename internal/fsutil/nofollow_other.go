//go:build !unix

package fsutil

// oNoFollow is 0 where open has no O_NOFOLLOW: OpenNoFollow then checks
// the path with Lstat before it opens it (which leaves a race).
const oNoFollow = 0

// isLoop is false where there is no O_NOFOLLOW.
func isLoop(error) bool { return false }
