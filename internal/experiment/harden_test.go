package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// The interrupted message says "interrupted" once (it said
// "interrupted: interrupted: …").
func TestInterruptedMessageOnce(t *testing.T) {
	c := quick(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, c, Options{OutDir: t.TempDir(), ResumeHint: "smrl run --resume"})
	if !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if n := strings.Count(err.Error(), "interrupted"); n != 1 {
		t.Errorf("%q says interrupted %d times", err, n)
	}
}

// A merged metadata.json records the Go version and git commit like a
// run's.
func TestMergedMetadata(t *testing.T) {
	c := quick(t)
	shard := t.TempDir()
	if err := Run(context.Background(), c, Options{OutDir: shard, Shard: runner.Shard{Index: 0, Count: 1}}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Merge(context.Background(), []string{shard}, Options{OutDir: out, Version: "v9", Commit: "abc123"}); err != nil {
		t.Fatal(err)
	}
	var meta results.Metadata
	b, _ := os.ReadFile(filepath.Join(out, results.MetadataFile))
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.GoVersion == "" || meta.GitCommit != "abc123" || meta.Version != "v9" {
		t.Errorf("merged metadata %+v: want go_version, git_commit abc123 and smrl_version v9", meta)
	}
}
