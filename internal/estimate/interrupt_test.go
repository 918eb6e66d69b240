package estimate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/errs"
)

// TestInterruptibleReturnsAtCancel: a fit that never polls its context is
// abandoned when the context is cancelled (SIGTERM during a long fit), its
// result returned when it ends first, and its panic returned as an error.
func TestInterruptibleReturnsAtCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	v, err := interruptible(ctx, "the fit was", func() (int, error) { <-release; return 1, nil })
	if !errors.Is(err, errs.ErrInterrupted) || v != 0 || !strings.Contains(err.Error(), "the fit was abandoned; nothing was written") {
		t.Fatalf("cancelled during the work: %d, %v", v, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("returned %v after the cancellation", d)
	}

	v, err = interruptible(context.Background(), "the fit was", func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("finished work: %d, %v", v, err)
	}
	want := errors.New("singular")
	if _, err = interruptible(context.Background(), "the fit was", func() (int, error) { return 0, want }); err != want {
		t.Fatalf("work's error: %v", err)
	}
	ran := false
	if _, err = interruptible(ctx, "the fit was", func() (int, error) { ran = true; return 1, nil }); !errors.Is(err, errs.ErrInterrupted) || ran {
		t.Fatalf("already cancelled: ran %v, %v", ran, err)
	}
	_, err = interruptible(context.Background(), "the fit was", func() (int, error) { panic("index out of range") })
	if err == nil || !strings.Contains(err.Error(), "index out of range") || errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("panic: %v", err)
	}
}
