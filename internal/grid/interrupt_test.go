package grid

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
)

// Issue 19, item 11: the validation of a grid's points (seconds for a
// large grid) stops between points when the context is cancelled.
func TestLoadContextStopsBetweenPoints(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.yaml")
	os.WriteFile(p, []byte("seeds: 1\nepisodes: 1\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LoadContext(ctx, config.Options{Path: p}, []string{"planner.tau=lin:1:100:100"})
	if !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("err = %v, want interrupted", err)
	}
	if _, err := LoadContext(context.Background(), config.Options{Path: p}, []string{"planner.tau=lin:1:10:10"}); err != nil {
		t.Fatal(err)
	}
}
