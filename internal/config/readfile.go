package config

import (
	"fmt"
	"io"
	"os"

	"github.com/smrl-dev/smrl/internal/errs"
)

// MaxFileBytes bounds the size of a config file. A config is a few
// kilobytes; without a bound, --config /dev/zero grew to gigabytes and
// ended in "fatal error: out of memory".
const MaxFileBytes = 16 << 20

// readFile reads the config file at path: a regular file (a FIFO would
// block, a device never end) of at most MaxFileBytes. Errors wrap
// errs.ErrInvalidInput and name path.
func readFile(path string) ([]byte, error) {
	// Checked before it is opened: opening a FIFO blocks until a writer
	// comes.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("reading config: %w", err))
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("reading config: %w", err))
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, errs.Invalid(fmt.Errorf("reading config: %w", err))
	}
	if err := regular(path, fi); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("reading config: %w", err))
	}
	if len(data) > MaxFileBytes {
		return nil, errs.Invalid(fmt.Errorf("reading config %s: larger than %d MiB, which no config is", path, MaxFileBytes>>20))
	}
	return data, nil
}

// regular refuses a config path that is not a regular file.
func regular(path string, fi os.FileInfo) error {
	if fi.IsDir() {
		return errs.Invalid(fmt.Errorf("reading config %s: is a directory, want a YAML file", path))
	}
	if !fi.Mode().IsRegular() {
		return errs.Invalid(fmt.Errorf("reading config %s: not a regular file (%s), want a YAML file", path, kindOf(fi.Mode())))
	}
	return nil
}

// kindOf names the kind of a file that is not regular.
func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeCharDevice != 0, m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.Type().String()
}
