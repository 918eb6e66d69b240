package errs

import (
	"errors"
	"strings"
	"testing"
)

func panicky() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Recovered(r)
		}
	}()
	var s []int
	_ = s[3] // index out of range
	return nil
}

func TestRecovered(t *testing.T) {
	err := panicky()
	if !errors.Is(err, ErrInternal) || errors.Is(err, ErrInvalidInput) {
		t.Fatalf("Recovered: %v does not wrap exactly ErrInternal", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("message is not one line: %q", msg)
	}
	for _, want := range []string{"internal error", "index out of range", "errs/errs_test.go:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
