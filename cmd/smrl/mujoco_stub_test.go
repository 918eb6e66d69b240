//go:build !mujoco

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMuJoCoNeedsTheTag: a binary built without -tags mujoco names the
// MuJoCo tasks in smrl list envs as needing the tag, and a config that
// selects one, by name or Gymnasium id, is exit 2 saying how to build it,
// with nothing written.
func TestMuJoCoNeedsTheTag(t *testing.T) {
	_, stdout, _ := run(t, "list", "envs")
	for _, name := range []string{"inverted-pendulum", "InvertedPendulum-v4", "reacher", "Reacher-v4", "half-cheetah", "HalfCheetah-v4", "hopper", "Hopper-v4"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("smrl list envs does not name %s:\n%s", name, stdout)
		}
	}
	if !strings.Contains(stdout, "needs a build with -tags mujoco") {
		t.Errorf("smrl list envs does not say the MuJoCo tasks need the tag:\n%s", stdout)
	}
	dir := t.TempDir()
	for _, kind := range []string{"HalfCheetah-v4", "reacher"} {
		cfg := filepath.Join(dir, kind+".yaml")
		if err := os.WriteFile(cfg, []byte("env:\n  kind: "+kind+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out-"+kind)
		code, stdout, stderr := run(t, "run", "--config", cfg, "--out", out)
		wantUsage(t, code, stdout, stderr, "env.kind", "MuJoCo", "go build -tags mujoco ./cmd/smrl", "make mujoco")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the refused run left %s (err %v)", kind, out, err)
		}
	}
}
