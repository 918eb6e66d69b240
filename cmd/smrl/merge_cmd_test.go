package main

import (
	"encoding/json"
	"fmt"
	"maps"
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
		args := []string{"run", "--config", cfg, "--out", d, "-q", "--shard", fmt.Sprintf("%d/10", i)}
		if i < 3 { // shard i holds trial i (runner.Shard.Contains): the empty ones draw, the figures of a shard with trials are other tests'
			args = append(args, "--no-plots")
		}
		mustRun(t, args...)
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
// The shards are small (2 seeds × 3 episodes: a merge draws the same
// figures from fewer rows), and the kills fall at fractions of the time an
// uninterrupted merge took, so that they spread over a merge however fast
// the machine (fixed delays of 40–450 ms could all fall after a merge's end once it
// took less than that).
func TestKilledMergeLeavesNoStaleFigures(t *testing.T) {
	root := t.TempDir()
	small := []string{"-q", "--no-plots", "--seeds", "2", "--episodes", "3", "--set", fewDraws}
	shardsOf := func(seed string) []string {
		shards := []string{filepath.Join(root, seed, "s0"), filepath.Join(root, seed, "s1")}
		for i, s := range shards {
			mustRun(t, append([]string{"run", "--config", quickConfig, "--seed", seed, "--shard", fmt.Sprintf("%d/2", i), "--out", s}, small...)...)
		}
		return shards
	}
	mergeArgs := func(out string, shards []string) []string {
		return append([]string{"merge", "--out", out, "--overwrite", "-q", "--plot-format", "svg"}, shards...)
	}
	oldRef, newRef := filepath.Join(root, "1", "merged"), filepath.Join(root, "2", "merged")
	mustRun(t, mergeArgs(oldRef, shardsOf("1"))...)
	newShards := shardsOf("2")
	start := time.Now()
	mustRun(t, mergeArgs(newRef, newShards)...)
	took := time.Since(start) // a killed merge's process starts in a few ms and writes its CSV files first
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
	for _, frac := range []float64{0.1, 0.3, 0.5, 0.7} { // before the CSV files, among the figures; a kill at the end leaves a finished merge
		delay := time.Duration(frac * float64(took))
		out := filepath.Join(root, fmt.Sprintf("kill-%v", frac), "merged") // report.md names it
		os.MkdirAll(filepath.Dir(out), 0o755)
		if err := os.CopyFS(out, os.DirFS(oldRef)); err != nil {
			t.Fatal(err)
		}
		args := mergeArgs(out, newShards)
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSmrl$")
		cmd.Env = append(os.Environ(), "SMRL_TEST_ARGS="+strings.Join(args, "\n"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Kill()
		cmd.Wait()
		now := rel(snapshot(t, out), out)
		newCSV := now["episodes.csv"] == newRel["episodes.csv"] || now["summary.csv"] == newRel["summary.csv"]
		for f, b := range now {
			derived := f == "report.md" || strings.HasPrefix(f, "plots"+string(filepath.Separator))
			if newCSV && derived && b == oldRel[f] && b != newRel[f] {
				t.Errorf("killed after %v: %s of the earlier merge is beside the new CSV files", delay, f)
			}
		}
		mustRun(t, args...)
		if got := rel(snapshot(t, out), out); !maps.Equal(got, newRel) {
			for f := range newRel {
				if got[f] != newRel[f] {
					t.Errorf("killed after %v: merging again gives another %s than the uninterrupted merge", delay, f)
				}
			}
			for f := range got {
				if _, ok := newRel[f]; !ok {
					t.Errorf("killed after %v: merging again leaves %s, which the uninterrupted merge does not write", delay, f)
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
