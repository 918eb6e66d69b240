package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 12, data loss 3: two runs into one --out both exited 0 and interleaved the
// journal. The second is refused now, naming the first one's PID.
//
// 12 seeds (36 trials of 8 episodes, about 0.6 s of CPU on one worker)
// keep the first run going for ten times the two refused runs' start
// (config and lock, about 30 ms each).
func TestSecondRunIntoSameOutIsRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	args := []string{"run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--seeds", "12", "--workers", "1"}
	var wg sync.WaitGroup
	wg.Add(1)
	var firstCode ExitCode
	var firstErr string
	go func() {
		defer wg.Done()
		var o, e bytes.Buffer
		firstCode = Main(args, &o, &e)
		firstErr = e.String()
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(out, "journal.jsonl")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run did not start")
		}
		time.Sleep(time.Millisecond)
	}
	code, stdout, stderr := run(t, args...)
	wantUsage(t, code, stdout, stderr, out, "in use by another smrl process", fmt.Sprintf("PID %d", os.Getpid()))
	code, stdout, stderr = run(t, append(args, "--resume")...)
	wantUsage(t, code, stdout, stderr, "in use by another smrl process")
	wg.Wait()
	if firstCode != ExitOK {
		t.Fatalf("first run: exit %d: %s", firstCode, firstErr)
	}
	if n := strings.Count(read(t, filepath.Join(out, "journal.jsonl")), "\n"); n != 3*12 {
		t.Errorf("journal holds %d lines, want %d", n, 3*12)
	}
	if _, err := os.Stat(filepath.Join(out, ".smrl-lock")); !os.IsNotExist(err) {
		t.Errorf("the lock file outlived the run: %v", err)
	}
}

// Issue 12, data loss 2 and 4 through the command line: a resume after a cut-short
// journal line, resumed twice, gives the uninterrupted result; a journal
// whose records disagree with the config is refused by --resume and merge,
// naming the line.
func TestResumeAndMergeJournal(t *testing.T) {
	base := t.TempDir()
	ref, out := quickRun(t), quickRun(t) // the uninterrupted run, and the one cut short below
	jp := filepath.Join(out, "journal.jsonl")
	lines := strings.SplitAfter(read(t, jp), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last newline
	last := lines[len(lines)-1]
	os.WriteFile(jp, []byte(strings.Join(lines[:len(lines)-2], "")+last[:len(last)/2]), 0o644)
	os.Remove(filepath.Join(out, "episodes.csv"))
	for range 2 {
		mustRun(t, "run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--resume")
		if read(t, filepath.Join(out, "episodes.csv")) != read(t, filepath.Join(ref, "episodes.csv")) {
			t.Fatal("resumed episodes.csv differs from the uninterrupted run")
		}
	}

	// A record with too few episodes.
	var rec map[string]any
	lines = strings.SplitAfter(read(t, jp), "\n")
	json.Unmarshal([]byte(lines[1]), &rec)
	rec["episodes"] = rec["episodes"].([]any)[:3]
	b, _ := json.Marshal(rec)
	lines[1] = string(b) + "\n"
	os.WriteFile(jp, []byte(strings.Join(lines, "")), 0o644)
	code, stdout, stderr := run(t, "run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--resume")
	wantUsage(t, code, stdout, stderr, jp+" line 2", "has 3 episodes, the config has 8")
	code, stdout, stderr = run(t, "merge", out, "--out", filepath.Join(base, "merged"), "-q", "--no-plots")
	wantUsage(t, code, stdout, stderr, jp+" line 2", "has 3 episodes")
	if _, err := os.Stat(filepath.Join(base, "merged")); !os.IsNotExist(err) {
		t.Errorf("a refused merge created its --out: %v", err)
	}
}

// Issue 19, item 8: --resume without --shard on a shard's directory ran the whole
// experiment into it (and the later merge failed). metadata.json, written
// when the trials start, records the shard; a mismatch is refused.
func TestResumeChecksShard(t *testing.T) {
	cfg := tinyConfig(t, "")
	swCfg := tinyConfig(t, "sweep:\n  planner.tau: [2, 4]\n")
	for _, tc := range []struct {
		name   string
		first  []string // the run made with
		resume []string // the resume's shard flags
		errHas string   // "": accepted
	}{
		{"shard resumed whole", []string{"run", "--shard", "0/2"}, nil, "holds shard 0/2, but this run is the whole run"},
		{"shard resumed as another", []string{"run", "--shard", "0/2"}, []string{"--shard", "1/2"}, "holds shard 0/2, but this run is shard 1/2; resume it with --shard 0/2"},
		{"whole run resumed as shard", []string{"run"}, []string{"--shard", "0/2"}, "holds the whole run (no --shard), but this run is shard 0/2; resume it without --shard"},
		{"sweep shard resumed whole", []string{"sweep", "--shard", "1/2"}, nil, "holds shard 1/2, but this run is the whole run"},
		{"shard resumed as itself", []string{"run", "--shard", "0/2"}, []string{"--shard", "0/2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.first[0] == "sweep" {
				c = swCfg
			}
			out := filepath.Join(t.TempDir(), "d")
			mustRun(t, append(tc.first, "--config", c, "--out", out, "-q", "--no-plots", "--workers", "1")...)
			before := snapshot(t, out)
			args := append([]string{tc.first[0], "--config", c, "--out", out, "-q", "--no-plots", "--workers", "1", "--resume"}, tc.resume...)
			if tc.errHas == "" {
				mustRun(t, args...)
				return
			}
			code, stdout, stderr := run(t, args...)
			wantUsage(t, code, stdout, stderr, "metadata.json records that", tc.errHas)
			sameSnapshot(t, tc.name, before, snapshot(t, out))
		})
	}
}
