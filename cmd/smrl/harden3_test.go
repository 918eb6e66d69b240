package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hardening, round three (issue 19): the narrow cases a hostile user still
// found. One test per item, each a table of cases where there are several.

// tinyRun makes a finished results directory of a tiny config (3 agents ×
// 1 seed × 2 episodes) and returns its path and the config's.
func tinyRun(t *testing.T, extra ...string) (out, cfg string) {
	t.Helper()
	cfg = tinyConfig(t, "")
	out = filepath.Join(t.TempDir(), "res")
	mustRun(t, append([]string{"run", "--config", cfg, "--out", out, "-q", "--workers", "1", "--plot-format", "svg"}, extra...)...)
	return out, cfg
}

// Item 1: a journal.jsonl, .smrl-lock or plots/ planted as a symbolic link
// inside smrl's own directory was written (or deleted) through. Now every
// command refuses it with exit 2 naming the link, and the user's files the
// link points to are untouched.
func TestLinksInOwnDirectoryAreNotFollowed(t *testing.T) {
	for _, tc := range []struct {
		name string
		link string // the entry of the results directory made a link
		dir  bool   // the link's target is a folder (plots/)
		args []string
	}{
		{"journal, fresh run", "journal.jsonl", false, []string{"run", "-q", "--no-plots"}},
		{"journal, resume", "journal.jsonl", false, []string{"run", "-q", "--no-plots", "--resume"}},
		{"lock, fresh run", ".smrl-lock", false, []string{"run", "-q", "--no-plots"}},
		{"plots, run", "plots", true, []string{"run", "-q", "--plot-format", "svg"}},
		{"plots, run --no-plots", "plots", true, []string{"run", "-q", "--no-plots"}},
		{"plots, plot in place", "plots", true, []string{"plot", "--format", "svg"}},
		{"plots, merge", "plots", true, []string{"merge", "-q", "--plot-format", "svg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, cfg := tinyRun(t)
			user := t.TempDir()
			target := filepath.Join(user, "precious.txt")
			os.WriteFile(target, []byte("precious\n"), 0o644)
			if tc.dir {
				target = user
				os.WriteFile(filepath.Join(user, "cum_reward.svg"), []byte("mine\n"), 0o644)
			}
			var args []string
			switch tc.args[0] {
			case "plot":
				args = append(tc.args, "--in", out)
			case "merge":
				shard := filepath.Join(t.TempDir(), "shard")
				mustRun(t, "run", "--config", cfg, "--out", shard, "-q", "--no-plots", "--workers", "1")
				args = append(tc.args, shard, "--out", out)
			default:
				args = append(tc.args, "--config", cfg, "--out", out, "--workers", "1")
			}
			link := filepath.Join(out, tc.link)
			os.RemoveAll(link)
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, user)
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, link, "is a symbolic link", "remove the link")
			sameSnapshot(t, strings.Join(args, " "), before, snapshot(t, user))
		})
	}
}
