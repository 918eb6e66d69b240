// Package outdir decides which directories smrl may write into, and keeps
// two smrl processes from writing into the same one at once.
//
// smrl never cleans or overwrites a directory it did not make. A directory
// becomes smrl's when Claim creates it, or finds it empty, and writes the
// marker file MarkerFile into it; from then on Owned reports true and smrl
// may replace the files it writes there. A directory that already holds
// anything else is refused before a single byte is written. Lock takes an
// exclusive advisory lock on a claimed directory for the lifetime of one
// command; the kernel drops it if the process dies.
package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/smrl-dev/smrl/internal/fsutil"
)

// MarkerFile marks a directory as made by smrl. It holds Marker as JSON.
const MarkerFile = ".smrl-results"

// LockFile is the lock of a directory in use; it holds the holder's PID
// and is removed when the lock is released.
const LockFile = ".smrl-lock"

// Marker is the content of MarkerFile.
type Marker struct {
	Smrl    string    `json:"smrl"`    // version of the smrl that claimed the directory
	Created time.Time `json:"created"` // when it was claimed
}

// Claim makes dir a directory smrl may write into: it creates dir (and its
// parents) when missing, or accepts it when it is empty or already carries
// the marker, and then writes the marker. Anything else is refused, before
// anything is written, with an error wrapping errs.ErrInvalidInput that
// names dir: a path that is not a directory, or a non-empty directory
// without the marker (it may hold the user's own files).
func Claim(dir string) error {
	if err := Check(dir); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return PathError(dir, err)
		}
	} else if Owned(dir) {
		return nil
	}
	return writeMarker(dir)
}

// writeMarker creates dir's marker. It is created exclusively rather than
// renamed into place: two processes claiming one new directory at once
// (the shards of a run starting together) then never see each other's
// temporary file, and the second finds the marker already there.
func writeMarker(dir string) error {
	p := filepath.Join(dir, MarkerFile)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("marking as smrl's: %w", PathError(dir, err))
	}
	b, _ := json.MarshalIndent(Marker{Smrl: version(), Created: time.Now().UTC()}, "", "  ")
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return fmt.Errorf("marking as smrl's: %w", PathError(dir, err))
	}
	fsutil.SyncDir(dir)
	return nil
}

// Owned reports whether dir carries smrl's marker, i.e. smrl made it and
// may replace the files it writes there.
func Owned(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, MarkerFile))
	return err == nil && fi.Mode().IsRegular()
}

// CheckNoLinks refuses, with fsutil.LinkError, any of the entries names of
// smrl's own directory dir that is a symbolic link (a journal, or a
// plots/ folder, planted as a link to the user's files): smrl would write
// or delete through it. Commands check before they change anything.
func CheckNoLinks(dir string, names ...string) error {
	for _, n := range names {
		if err := fsutil.NoLink(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// describe names dir for a message, with its absolute path when dir is
// relative ("." alone says little).
func describe(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil && abs != dir {
		return fmt.Sprintf("%s (%s)", dir, abs)
	}
	return dir
}

func isEmpty(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// version is the main module's version from the build info, or "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}
