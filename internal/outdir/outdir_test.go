package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestClaimNewAndEmpty(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "a", "b")
	if err := Claim(fresh); err != nil {
		t.Fatal(err)
	}
	if !Owned(fresh) {
		t.Fatal("a claimed directory is not owned")
	}
	b, err := os.ReadFile(filepath.Join(fresh, MarkerFile))
	if err != nil {
		t.Fatal(err)
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil || m.Smrl == "" || m.Created.IsZero() {
		t.Errorf("marker %q: %+v, %v", b, m, err)
	}
	// Claiming again is accepted and keeps the directory's files.
	os.WriteFile(filepath.Join(fresh, "episodes.csv"), []byte("x"), 0o644)
	if err := Claim(fresh); err != nil {
		t.Errorf("re-claiming an owned directory: %v", err)
	}
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	if Owned(empty) {
		t.Error("an empty directory is owned before it is claimed")
	}
	if err := Claim(empty); err != nil || !Owned(empty) {
		t.Errorf("claiming an empty directory: %v", err)
	}
}

// A directory with the user's files is refused, names the directory, and
// is left exactly as it was.
func TestClaimRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("# my notes\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "plots"), 0o755)
	before := names(t, dir)
	err := Claim(dir)
	if !errors.Is(err, errs.ErrInvalidInput) {
		t.Fatalf("Claim of a foreign directory: %v, want ErrInvalidInput", err)
	}
	if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("error %q does not name the directory and the reason", err)
	}
	if after := names(t, dir); !slices.Equal(before, after) {
		t.Errorf("directory changed from %v to %v", before, after)
	}
	if Owned(dir) {
		t.Error("refused directory is owned")
	}
	file := filepath.Join(dir, "config.yaml")
	if err := Claim(file); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Claim of a file: %v", err)
	}
}

// Shards starting together claim their common parent at once, each then
// making its own subdirectory: every claim succeeds.
func TestClaimConcurrent(t *testing.T) {
	for round := range 20 {
		parent := filepath.Join(t.TempDir(), "results", "x")
		var wg sync.WaitGroup
		errc := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := Claim(parent); err != nil {
					errc <- err
					return
				}
				errc <- Claim(filepath.Join(parent, fmt.Sprintf("shard-%d-of-8", i)))
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// A path smrl cannot use because of how it was chosen is invalid input
// (exit 2) with a plain reason, and nothing is created.
func TestClaimRefusesUnusablePaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("nonexistent", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"dangling", "symbolic link to nonexistent, which does not exist"},
		{"afile/sub", "a parent of it is a file"},
	} {
		err := Claim(filepath.Join(dir, tc.path))
		if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Claim(%s) = %v, want invalid input saying %q", tc.path, err, tc.want)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"afile", "dangling"}) {
		t.Errorf("directory holds %v after the refused claims", got)
	}
}
