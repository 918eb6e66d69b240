package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

func TestPlotRefusesTruncatedEpisodes(t *testing.T) {
	c := quick(t)
	dir := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	if figs, err := Plot(dir, "", "png"); err != nil || len(figs) == 0 {
		t.Fatalf("complete directory: %v", err)
	}
	p := filepath.Join(dir, "episodes.csv")
	b, _ := os.ReadFile(p)
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(p, []byte(strings.Join(lines[:len(lines)/2], "")), 0o644)
	_, err := Plot(dir, "", "png")
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated episodes.csv: err = %v", err)
	}
}
