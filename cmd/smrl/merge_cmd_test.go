package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// Issue 12, crashes 8: with more shards than trials, the empty shards succeed (with
// figures on) and merge with the others into the single-machine result.
func TestEmptyShardsSucceedAndMerge(t *testing.T) {
	cfg := tinyConfig(t, "") // 3 trials: 7 of the 10 shards are empty
	base := t.TempDir()
	ref := filepath.Join(base, "ref")
	mustRun(t, "run", "--config", cfg, "--out", ref, "-q", "--no-plots")
	var shards []string
	for i := range 10 {
		d := filepath.Join(base, fmt.Sprintf("shard-%d", i))
		mustRun(t, "run", "--config", cfg, "--out", d, "-q", "--shard", fmt.Sprintf("%d/10", i))
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	mustRun(t, append(append([]string{"merge"}, shards...), "--out", merged, "-q", "--no-plots")...) // the CSV files are compared
	for _, f := range []string{"episodes.csv", "summary.csv"} {
		if read(t, filepath.Join(merged, f)) != read(t, filepath.Join(ref, f)) {
			t.Errorf("merged %s differs from the single run", f)
		}
	}
	var meta map[string]any
	json.Unmarshal([]byte(read(t, filepath.Join(merged, "metadata.json"))), &meta)
	if meta["go_version"] == nil || meta["go_version"] == "" {
		t.Errorf("merged metadata.json lacks go_version: %v", meta)
	}
}

// Shards with the default --out claim results/<name>/, into which merge
// then writes, as the README shows.
func TestDefaultShardDirsMergeIntoParent(t *testing.T) {
	cfg, _ := filepath.Abs(quickConfig)
	t.Chdir(t.TempDir())
	var wg sync.WaitGroup
	codes := make([]ExitCode, 3)
	for i := range 3 { // started together, as the README's loop does
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = run(t, "run", "--config", cfg, "-q", "--no-plots", "--shard", fmt.Sprintf("%d/3", i))
		}()
	}
	wg.Wait()
	if fmt.Sprint(codes) != "[0 0 0]" {
		t.Fatalf("shards exited %v", codes)
	}
	var shards []string
	for i := range 3 {
		shards = append(shards, filepath.Join("results", "quick", fmt.Sprintf("shard-%d-of-3", i)))
	}
	mustRun(t, append(append([]string{"merge"}, shards...), "--out", filepath.Join("results", "quick"), "-q", "--no-plots")...)
	if n := strings.Count(read(t, filepath.Join("results", "quick", "episodes.csv")), "\n"); n != 1+3*2*8 {
		t.Errorf("merged episodes.csv has %d lines", n)
	}
}

// Shards given the conventional --out DIR/shard-i-of-n explicitly (as the
// Slurm example does) mark DIR too, so merge writes there; a DIR the user
// already filled stays theirs: the shards still run, the merge is refused.
func TestExplicitShardDirsMergeIntoParent(t *testing.T) {
	cfg, _ := filepath.Abs(quickConfig)
	t.Chdir(t.TempDir())
	for _, parent := range []string{"fresh", "mine"} {
		if parent == "mine" {
			os.MkdirAll(parent, 0o755)
			os.WriteFile(filepath.Join(parent, "notes.txt"), []byte("mine"), 0o644)
		}
		var shards []string
		for i := range 2 {
			dir := filepath.Join(parent, fmt.Sprintf("shard-%d-of-2", i))
			mustRun(t, "run", "--config", cfg, "-q", "--no-plots", "--shard", fmt.Sprintf("%d/2", i), "--out", dir)
			shards = append(shards, dir)
		}
		code, _, stderr := run(t, append(append([]string{"merge"}, shards...), "--out", parent, "-q", "--no-plots")...)
		switch parent {
		case "fresh":
			if code != ExitOK {
				t.Fatalf("merge into the shards' parent: exit %d: %s", code, stderr)
			}
		case "mine":
			if code != ExitUsage || !strings.Contains(stderr, "no .smrl-results marker") || read(t, filepath.Join(parent, "notes.txt")) != "mine" {
				t.Errorf("merge into a user's directory: exit %d: %s", code, stderr)
			}
		}
	}
}

// Issue 12, low: merge's "--out is not an input" check held against a symlink.
func TestMergeOutSymlinkToInput(t *testing.T) {
	base := t.TempDir()
	shard := filepath.Join(base, "shard")
	mustRun(t, "run", "--config", quickConfig, "--seeds", "1", "--episodes", "2", "--out", shard, "-q", "--no-plots")
	link := filepath.Join(base, "link")
	if err := os.Symlink(shard, link); err != nil {
		t.Skip(err)
	}
	before := snapshot(t, shard)
	code, stdout, stderr := run(t, "merge", shard, "--out", link, "-q", "--no-plots")
	wantUsage(t, code, stdout, stderr, "is the shard directory")
	sameSnapshot(t, "merge into a symlink to its input", before, snapshot(t, shard))
}

// Issue 19, item 4, the kill property extended to merge: a merge killed (SIGKILL) at
// any moment over a directory holding an earlier merge never leaves that
// merge's figures or report beside its own new CSV files, and merging
// again gives the directory an uninterrupted merge writes, byte for byte.
func TestKilledMergeLeavesNoStaleFigures(t *testing.T) {
	root := t.TempDir()
	merged := func(seed string) string { // an uninterrupted merge of the shards of seed
		shards := []string{filepath.Join(root, seed, "s0"), filepath.Join(root, seed, "s1")}
		for i, s := range shards {
			mustRun(t, "run", "--config", quickConfig, "--seed", seed, "--shard", fmt.Sprintf("%d/2", i), "--out", s, "-q", "--no-plots")
		}
		out := filepath.Join(root, seed, "merged")
		mustRun(t, append([]string{"merge", "--out", out, "-q", "--plot-format", "svg"}, shards...)...)
		return out
	}
	oldRef, newRef := merged("1"), merged("2")
	oldFiles, newFiles := snapshot(t, oldRef), snapshot(t, newRef)
	rel := func(m map[string]string, base string) map[string]string {
		out := map[string]string{}
		for p, b := range m {
			r, _ := filepath.Rel(base, p)
			if !strings.HasPrefix(filepath.Base(r), ".smrl") && r != "metadata.json" {
				out[r] = b
			}
		}
		return out
	}
	oldRel, newRel := rel(oldFiles, oldRef), rel(newFiles, newRef)
	args := []string{"merge", "--out", "OUT", "--overwrite", "-q", "--plot-format", "svg", filepath.Join(root, "2", "s0"), filepath.Join(root, "2", "s1")}
	for _, delay := range []time.Duration{40, 120, 200, 300, 450} {
		out := filepath.Join(root, fmt.Sprintf("kill-%d", delay), "merged") // report.md names it
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.CopyFS(out, os.DirFS(oldRef)); err != nil {
			t.Fatal(err)
		}
		args[2] = out
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSmrl$")
		cmd.Env = append(os.Environ(), "SMRL_TEST_ARGS="+strings.Join(args, "\n"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		now := rel(snapshot(t, out), out)
		newCSV := now["episodes.csv"] == newRel["episodes.csv"] || now["summary.csv"] == newRel["summary.csv"]
		for f, b := range now {
			derived := f == "report.md" || strings.HasPrefix(f, "plots"+string(filepath.Separator))
			if newCSV && derived && b == oldRel[f] && b != newRel[f] {
				t.Errorf("killed after %v ms: %s of the earlier merge is beside the new CSV files", int(delay), f)
			}
		}
		mustRun(t, args...)
		if got := rel(snapshot(t, out), out); fmt.Sprint(got) != fmt.Sprint(newRel) {
			for f := range newRel {
				if got[f] != newRel[f] {
					t.Errorf("killed after %v ms: merging again gives another %s than the uninterrupted merge", int(delay), f)
				}
			}
			for f := range got {
				if _, ok := newRel[f]; !ok {
					t.Errorf("killed after %v ms: merging again leaves %s, which the uninterrupted merge does not write", int(delay), f)
				}
			}
		}
	}
}

// merge's arguments and flags parse into MergeOptions through its runF
// (nothing is merged); it needs at least one directory.
func TestMergeFlags(t *testing.T) {
	var o *MergeOptions
	capture := func(ios *IOStreams) *cobra.Command {
		return NewCmdMerge(ios, func(mo *MergeOptions) error { o = mo; return nil })
	}
	code, _, stderr := runSeam(t, capture, "merge", "a", "b", "--out", "m", "--overwrite", "-q", "--log-format", "json")
	if code != ExitOK || o == nil {
		t.Fatalf("exit %d, runF called %v: %s", code, o != nil, stderr)
	}
	if got, want := fmt.Sprintf("%v %s %v %v %v %s %s", o.Dirs, o.Out, o.Overwrite, o.Quiet, o.NoPlots, o.Format, o.LogFormat), "[a b] m true true false png json"; got != want {
		t.Errorf("parsed %q, want %q", got, want)
	}
	o = nil
	code, stdout, stderr := runSeam(t, capture, "merge", "--out", "m")
	wantUsage(t, code, stdout, stderr, "requires at least 1 arg(s)")
	if o != nil {
		t.Error("runF called after a usage error")
	}
}
