package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
)

// ReadMetadata: none is nil without error; a file that is not JSON, or a
// directory in its place, is invalid input naming the path; the format
// version follows it.
func TestReadMetadata(t *testing.T) {
	dir := t.TempDir()
	if m, err := ReadMetadata(dir); m != nil || err != nil {
		t.Errorf("no metadata.json: %v, %v; want nil, nil", m, err)
	}
	if v, err := ReadFormatVersion(dir); v != 1 || err != nil {
		t.Errorf("no metadata.json: version %d, %v; want 1", v, err)
	}
	path := filepath.Join(dir, MetadataFile)
	for _, c := range []struct {
		body    string
		shard   string
		version int
	}{
		{`{"shard": "2/4"}`, "2/4", 1},
		{`{"format_version": 2}`, "", 2},
	} {
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMetadata(dir)
		if err != nil || m == nil || m.Shard != c.shard {
			t.Errorf("%s: %+v, %v", c.body, m, err)
		}
		if v, err := ReadFormatVersion(dir); v != c.version || err != nil {
			t.Errorf("%s: version %d, %v; want %d", c.body, v, err, c.version)
		}
	}
	for _, body := range []string{`{"shard": `, `{"format_version": -1}`, `{"format_version": 99}`} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFormatVersion(dir); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want invalid input naming %s", body, err, path)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMetadata(dir); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v, want invalid input", err)
	}
}
