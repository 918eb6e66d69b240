package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smrl watch --once of a finished run prints the state and the chart and
// exits; --png writes the live figure; bad flags and a directory that is
// not a run's exit 2.
func TestWatchCommand(t *testing.T) {
	cfg := tinyConfig(t, "")
	out := filepath.Join(t.TempDir(), "r")
	mustRun(t, "run", "--config", cfg, "--out", out, "-q", "--no-plots")
	png := filepath.Join(t.TempDir(), "live")
	stdout := mustRun(t, "watch", out, "--once", "--png", png, "--width", "20", "--height", "4")
	for _, w := range []string{out + ": done, 6/6 episodes", "mean return per episode", "* sm", "episode 2: "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	if b, err := os.ReadFile(filepath.Join(png, "live-return.png")); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("no live-return.png: %v", err)
	}
	for _, args := range [][]string{{"watch", out, "--interval", "0"}, {"watch", out, "--width", "2"}, {"watch", t.TempDir(), "--once"}} {
		if code, _, stderr := run(t, args...); code != ExitUsage {
			t.Errorf("smrl %v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}
