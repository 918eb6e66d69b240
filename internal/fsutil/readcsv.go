package fsutil

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"

	"github.com/smrl-dev/smrl/internal/errs"
)

// GzipMagic starts every gzip stream (RFC 1952).
const GzipMagic = "\x1f\x8b"

// ReadCSV reads the whole CSV file at path, one that smrl wrote (WriteAtomic
// ends every file it writes with a newline). A missing file, one that does
// not end with a newline (truncated), one that is gzip-compressed or one
// that is not CSV is an error
// naming path and wrapping errs.ErrInvalidInput; whyMissing, if not empty,
// is appended to the message for a missing file.
func ReadCSV(path, whyMissing string) ([][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			msg := path + " not found"
			if whyMissing != "" {
				msg += ": " + whyMissing
			}
			return nil, errs.Invalid(errors.New(msg))
		}
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, errs.Invalid(fmt.Errorf("%s is a directory, not the CSV file smrl reads there", path))
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if bytes.HasPrefix(data, []byte(GzipMagic)) {
		return nil, errs.Invalid(fmt.Errorf("%s looks gzip-compressed (it starts with gzip's bytes 1f 8b), but smrl writes and reads it as plain CSV: decompress it (gunzip)", path))
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil, errs.Invalid(fmt.Errorf("%s does not end with a newline: the file is truncated", path))
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return nil, errs.Invalid(fmt.Errorf("%s: %v", path, err))
	}
	return recs, nil
}
