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
// selects one is exit 2 saying how to build it, with nothing written.
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
	// The shipped configs load (their keys are the tagged build's) and
	// are refused when the run builds the environment, before any output.
	dir := t.TempDir()
	for _, name := range []string{"half-cheetah", "reacher", "inverted-pendulum"} {
		out := filepath.Join(dir, "out-"+name)
		code, stdout, stderr := run(t, "run", "--config", filepath.Join("..", "..", "configs", name+".yaml"), "--out", out)
		wantUsage(t, code, stdout, stderr, "env.kind", name, "MuJoCo", "go build -tags mujoco ./cmd/smrl", "make mujoco")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the refused run left %s (err %v)", name, out, err)
		}
	}
}
