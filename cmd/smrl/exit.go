package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/smrl-dev/smrl/internal/errs"
)

// ExitCode is the status smrl exits with.
type ExitCode int

// Exit codes.
const (
	ExitOK          ExitCode = 0   // success
	ExitFailure     ExitCode = 1   // the program failed
	ExitUsage       ExitCode = 2   // bad usage, config or data: unknown flag or command, wrong arguments, invalid file
	ExitInternal    ExitCode = 3   // a bug in smrl (a recovered panic)
	ExitInterrupted ExitCode = 130 // stopped by SIGINT, SIGTERM or SIGHUP
)

// exitCode maps an error to the exit code: ErrInterrupted → 130,
// ErrInternal → 3, ErrInvalidInput → 2, anything else → 1, nil → 0.
func exitCode(err error) ExitCode {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errs.ErrInterrupted):
		return ExitInterrupted
	case errors.Is(err, errs.ErrInternal):
		return ExitInternal
	case errors.Is(err, errs.ErrInvalidInput):
		return ExitUsage
	}
	return ExitFailure
}

// usageError is a mistake in the command line itself (a flag, an argument,
// a subcommand), for which the error message is followed by a pointer to
// --help. It wraps errs.ErrInvalidInput.
type usageError struct{ err error }

func (e *usageError) Error() string   { return e.err.Error() }
func (e *usageError) Unwrap() []error { return []error{e.err, errs.ErrInvalidInput} }

// usageErrorf returns a usage error (exit code 2, with a --help hint).
func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// asUsage marks err as a usage error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	var u *usageError
	if errors.As(err, &u) {
		return err
	}
	return &usageError{err}
}

// printError writes err once to w as one line, "smrl: <message>", followed
// for a usage error by "Run '<cmdPath> --help' for usage.". A message of
// several lines (errors.Join of several problems) is joined with "; ", so
// that every error is one line whatever produced it.
func printError(w io.Writer, cmdPath string, err error) {
	fmt.Fprintf(w, "smrl: %s\n", oneLine(err.Error()))
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmdPath)
	}
}

// oneLine joins the non-blank lines of msg with "; ".
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}
