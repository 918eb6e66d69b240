package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// exprConfig is a config whose env.family.psi holds the one string psi
// (written as a YAML double-quoted scalar).
func exprConfig(psi string) string {
	return fmt.Sprintf("name: cf\nenv:\n  family:\n    kind: expression\n    log_q: \"x^2 - x^4/4\"\n    psi: [%q]\n    dim: 1\n  w0: [[0.5, 1]]\n", psi)
}

// Multi-line strings that start with a space or a newline, in a list, are
// written to the snapshot so that it loads back to the same value and the
// same snapshot. (yaml's Encode of the whole config refused the first and
// third, and wrote the second as "\nx\n".)
func TestSnapshotStringsRoundTrip(t *testing.T) {
	for _, psi := range []string{" x\n", "\n  x\n", "\n x\n", "x\n  ", "x"} {
		c, err := loadText(t, exprConfig(psi))
		if err != nil {
			t.Fatalf("psi %q: %v", psi, err)
		}
		snap, err := c.YAML()
		if err != nil {
			t.Fatalf("psi %q: snapshot: %v", psi, err)
		}
		p := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(p, snap, 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := Load(Options{Path: p, Snapshot: true})
		if err != nil {
			t.Fatalf("psi %q: loading its snapshot: %v\n%s", psi, err, snap)
		}
		got, err := back.Value("env.family.psi")
		if err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprintf("%q", got); s != fmt.Sprintf("%q", []string{psi}) {
			t.Errorf("psi %q: the snapshot loads back as %s\n%s", psi, s, snap)
		}
		again, err := back.YAML()
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(snap) {
			t.Errorf("psi %q: the snapshot of the snapshot differs:\n%s\n---\n%s", psi, snap, again)
		}
	}
}

// A value yaml's encoder refuses is refused when the config is loaded, as
// invalid input naming its key, so that no run claims a directory and then
// fails writing config.yaml.
func TestSnapshotRefusalNamesKey(t *testing.T) {
	_, err := loadText(t, exprConfig("\tx\n"))
	if err == nil {
		t.Fatal("a psi with a tab in a multi-line string loaded")
	}
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "env.family.psi: cannot be written to the snapshot config.yaml") {
		t.Errorf("error %q: want invalid input naming env.family.psi", err)
	}
}
