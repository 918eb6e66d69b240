package fsutil

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"

	"github.com/smrl-dev/smrl/internal/errs"
)

// ReadCSV reads the whole CSV file at path, one that smrl wrote (WriteAtomic
// ends every file it writes with a newline). A missing file, one that does
// not end with a newline (truncated) or one that is not CSV is an error
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
		return nil, fmt.Errorf("reading %s: %w", path, err)
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
