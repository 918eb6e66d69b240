// Package errs holds the sentinel errors that decide smrl's exit codes.
//
// Every package wraps one of these (with fmt.Errorf("...: %w", ...)) when the
// cause is the user's input rather than a failure of the program, and
// cmd/smrl maps them to exit codes in one place:
//
//	ErrInvalidInput → 2 (bad flag, config key or value, data file)
//	ErrInternal     → 3 (a bug in smrl: a recovered panic)
//	ErrInterrupted  → 130
//	anything else   → 1
package errs

import (
	"errors"
	"fmt"
	"path"
	"runtime"
	"strings"
)

// ErrInvalidInput marks errors caused by user input: a malformed config key,
// an out-of-range value, a bad data file. The command exits with code 2.
var ErrInvalidInput = errors.New("invalid input")

// ErrInterrupted marks a run stopped by SIGINT, SIGTERM or SIGHUP. Exit code 130.
var ErrInterrupted = errors.New("interrupted")

// ErrInternal marks a bug in smrl, such as a recovered panic: neither the
// user's fault nor an ordinary runtime failure. Exit code 3.
var ErrInternal = errors.New("internal error")

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

// Recovered turns the value r of a recovered panic into an error wrapping
// ErrInternal, on one line: the panic value and the place it happened
// (file:line of the innermost frame outside the runtime), for a bug report.
// Call it directly in the deferred function that recovered:
//
//	defer func() {
//		if r := recover(); r != nil {
//			err = errs.Recovered(r)
//		}
//	}()
func Recovered(r any) error {
	msg := strings.Join(strings.Fields(fmt.Sprint(r)), " ")
	if where := panicSite(); where != "" {
		msg += " at " + where
	}
	return &internal{msg}
}

type internal struct{ msg string }

func (e *internal) Error() string {
	return "internal error (a bug in smrl; please report it): " + e.msg
}
func (e *internal) Unwrap() error { return ErrInternal }

// panicSite returns "file.go:line" of the frame that panicked: the first
// frame after runtime.gopanic that is not in package runtime. While a
// deferred function runs, the panicking frames are still on the stack.
func panicSite() string {
	pc := make([]uintptr, 64)
	n := runtime.Callers(3, pc)
	frames := runtime.CallersFrames(pc[:n])
	seenPanic := false
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			seenPanic = true
		} else if seenPanic && !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s:%d", path.Join(path.Base(path.Dir(f.File)), path.Base(f.File)), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// Protect runs f and returns its error, or the panic inside it as an error
// wrapping ErrInternal (see Recovered). Worker goroutines run their work
// through it: a panic there cannot be recovered by anyone else and would
// end the process with a stack dump, skipping every cleanup.
func Protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Recovered(r)
		}
	}()
	return f()
}
