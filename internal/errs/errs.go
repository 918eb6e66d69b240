// Package errs holds the sentinel errors that decide smrl's exit codes.
//
// Every package wraps one of these (with fmt.Errorf("...: %w", ...)) when the
// cause is the user's input rather than a failure of the program, and
// cmd/smrl maps them to exit codes in one place:
//
//	ErrInvalidInput → 2 (bad flag, config key or value, data file)
//	ErrInterrupted  → 130
//	anything else   → 1
package errs

import "errors"

// ErrInvalidInput marks errors caused by user input: a malformed config key,
// an out-of-range value, a bad data file. The command exits with code 2.
var ErrInvalidInput = errors.New("invalid input")

// ErrInterrupted marks a run stopped by SIGINT or SIGTERM. Exit code 130.
var ErrInterrupted = errors.New("interrupted")

// Invalid wraps err so that errors.Is(err, ErrInvalidInput) holds, keeping
// err's own message.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return &invalid{err}
}

type invalid struct{ err error }

func (e *invalid) Error() string { return e.err.Error() }
func (e *invalid) Unwrap() []error {
	return []error{e.err, ErrInvalidInput}
}
