package estimate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/testutil"
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

// TestKernelFitWritesNoWarning: the kernel fit, the work a signal
// abandons, writes nothing itself; its degenerate-statistics warning
// (bandwidth 200 against next states within about ±3) reaches Options.Progress
// through Run once the fit has ended, so an abandoned fit cannot print it
// after the interruption's message.
func TestKernelFitWritesNoWarning(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "k.yaml")
	yaml := "env:\n  kind: expfam\n  family:\n    kind: kernel\n    dim: 1\n    centres: 10\n    bandwidth: 200\n" +
		"  features:\n    kind: expression\n    phi: [\"1\", \"cos(pi*s0/4)\", \"sin(pi*s0/4)\"]\nlambda: 0.1\n"
	var csv strings.Builder
	csv.WriteString("s,a,s_next\n")
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 { // the bimodal law of docs/kernel-families.md
		s, mu := 4*rng.Float64()-2, 1.0
		if rng.Float64() < 1/(1+math.Exp(-2*s)) {
			mu = -1
		}
		fmt.Fprintf(&csv, "%v,1,%v\n", s, s/2+mu+0.35*rng.NormFloat64())
	}
	data := filepath.Join(dir, "train.csv")
	for name, text := range map[string]string{cfg: yaml, data: csv.String()} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := testutil.LoadConfigOptions(t, config.Options{Path: cfg, NoTrueW: true})
	mdp, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	var progress strings.Builder
	opt := Options{Data: data, Progress: &progress}
	var st stage
	tr, err := readTransitions(c, mdp, opt, &st)
	if err != nil {
		t.Fatal(err)
	}
	res, err := fitKernel(c, mdp, KernelSpecOf(mdp), tr, opt, &st)
	if err != nil {
		t.Fatal(err)
	}
	const warning = "warning: the kernel statistics of bandwidth 200 are numerically constant"
	if progress.Len() != 0 || len(res.warnings) != 1 || !strings.HasPrefix(res.warnings[0], warning) {
		t.Fatalf("the fit wrote %q and kept the warnings %q", progress.String(), res.warnings)
	}
	if _, err := Run(context.Background(), c, opt); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(progress.String(), "smrl estimate: "+warning); n != 1 {
		t.Fatalf("Run wrote %q: the fit's warning %d times, want once", progress.String(), n)
	}
}

// TestRunCancelledBeforeReading: a signal before the transitions are read
// (reading 10⁶ rows takes about a second) abandons the reading, saying so.
// A signal during the reading takes the same interruptible, whose return
// at a cancellation in flight TestInterruptibleReturnsAtCancel checks
// (and docs/hardening.md measures on 10⁶ rows).
func TestRunCancelledBeforeReading(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.csv")
	if err := os.WriteFile(data, []byte("s,a,s_next\n0.5,1,0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := testutil.LoadConfigOptions(t, config.Options{NoTrueW: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, c, Options{Data: data})
	if !errors.Is(err, errs.ErrInterrupted) || !strings.Contains(err.Error(), "reading the transitions was abandoned; nothing was written") {
		t.Fatalf("got %v, want the reading abandoned", err)
	}
}
