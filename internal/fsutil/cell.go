package fsutil

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
)

// Cell is one cell of a CSV file smrl wrote, with where it is, so that a
// bad value is reported as "FILE line N, column C (NAME): ...". smrl writes
// numbers as decimal text (strconv 'g' form) and an undefined value (NaN)
// as an empty cell, so a cell reading NaN, Inf or ±Inf, or any other text
// than a decimal number, was not written by smrl: it is refused, as an
// error wrapping errs.ErrInvalidInput.
type Cell struct {
	Path   string // the file
	Line   int    // the record's line, from 1
	Column int    // the column, from 1
	Name   string // the column's header
	Text   string // the cell
}

// Errorf returns an error naming the cell's file, line and column, wrapping
// errs.ErrInvalidInput.
func (c Cell) Errorf(format string, args ...any) error {
	return errs.Invalid(fmt.Errorf("%s line %d, column %d (%s): %s", c.Path, c.Line, c.Column, c.Name, fmt.Sprintf(format, args...)))
}

// Float parses a cell that holds a finite number. With optional, an empty
// cell is NaN (smrl writes NaN, an undefined value, as an empty cell);
// otherwise it is an error.
func (c Cell) Float(optional bool) (float64, error) {
	if c.Text == "" {
		if optional {
			return math.NaN(), nil
		}
		return 0, c.Errorf("empty cell, want a number")
	}
	v, err := parseNumber(c.Text)
	if err != nil {
		return 0, c.Errorf("%v", err)
	}
	return v, nil
}

// Int parses a cell that holds an integer in [lo, hi].
func (c Cell) Int(lo, hi int) (int, error) {
	v, err := strconv.Atoi(c.Text)
	if err != nil {
		if c.Text == "" {
			return 0, c.Errorf("empty cell, want an integer")
		}
		return 0, c.Errorf("%q is not an integer", c.Text)
	}
	switch {
	case v >= lo && v <= hi:
		return v, nil
	case hi == math.MaxInt:
		return 0, c.Errorf("%d is less than %d", v, lo)
	}
	return 0, c.Errorf("%d is out of range [%d, %d]", v, lo, hi)
}

// parseNumber parses s as smrl writes a number: finite, in decimal
// notation (digits, sign, point, exponent). NaN, Inf and ±Inf, which smrl
// never writes (it writes NaN as an empty cell), hexadecimal and
// underscored forms, and values that overflow a float64 are errors.
func parseNumber(s string) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789+-.eE") != "" {
		if isNonFinite(s) {
			return 0, fmt.Errorf("%q is not a finite number (smrl writes an undefined value as an empty cell)", s)
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is too large for a float64", s)
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil // an underflow rounds to 0 or a subnormal, as when written
}

// isNonFinite reports whether s is a spelling of NaN or ±Inf that
// strconv.ParseFloat accepts.
func isNonFinite(s string) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && (math.IsNaN(v) || math.IsInf(v, 0))
}
