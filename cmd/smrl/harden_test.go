package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/smrl-dev/smrl/internal/expfam"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

const quickConfig = "../../configs/quick.yaml"

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("smrl %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot maps every file under dir to its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func sameSnapshot(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("%s changed the directory:\nbefore %v\nafter  %v", what, before, after)
	}
}

// Issue 12, data loss 1: --out into a directory smrl did not make used to
// delete report.md and plots/fig.png and overwrite a commented config.yaml.
func TestOutIntoUserDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "plots"), 0o755)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("# notes\nseeds: 1\nepisodes: 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plots", "fig.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("x"), 0o644)
	before := snapshot(t, dir)
	code, stdout, stderr := run(t, "run", "--config", filepath.Join(dir, "config.yaml"), "--out", dir, "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, dir, "not empty", "not made by smrl")
	sameSnapshot(t, "a refused run", before, snapshot(t, dir))

	// --out . from inside it, as in the report.
	t.Chdir(dir)
	code, stdout, stderr = run(t, "run", "--config", "config.yaml", "--out", ".", "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "not empty")
	sameSnapshot(t, "--out .", before, snapshot(t, dir))
	// compare and plot --out refuse it too; merge --out as well.
	code, stdout, stderr = run(t, "compare", "--config", "config.yaml", "--out", dir, "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "not empty")
	sameSnapshot(t, "compare", before, snapshot(t, dir))
}

// An empty name wrote into results/ itself, and SMRL_NAME=../../x escaped
// it. Both are config errors now, before anything is written.
func TestNameIsOnePathComponent(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("e.yaml", []byte("name: \"\"\nseeds: 1\nepisodes: 2\n"), 0o644)
	code, stdout, stderr := run(t, "run", "--config", "e.yaml", "--no-plots", "-q")
	wantUsage(t, code, stdout, stderr, "e.yaml: name: must be a file name")
	t.Setenv("SMRL_NAME", "../../x")
	code, stdout, stderr = run(t, "run", "--no-plots", "-q", "--seeds", "1", "--episodes", "1")
	wantUsage(t, code, stdout, stderr, `SMRL_NAME: name: must be a file name`, `"../../x"`)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused runs wrote %v", ents)
	}
}

// Data loss 3: two runs into one --out both exited 0 and interleaved the
// journal. The second is refused now, naming the first one's PID.
func TestSecondRunIntoSameOutIsRefused(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	args := []string{"run", "--config", quickConfig, "--out", out, "--no-plots", "-q", "--seeds", "30", "--workers", "1"}
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
	if n := strings.Count(read(t, filepath.Join(out, "journal.jsonl")), "\n"); n != 3*30 {
		t.Errorf("journal holds %d lines, want %d", n, 3*30)
	}
	if _, err := os.Stat(filepath.Join(out, ".smrl-lock")); !os.IsNotExist(err) {
		t.Errorf("the lock file outlived the run: %v", err)
	}
}

// Data loss 2 and 4 through the command line: a resume after a cut-short
// journal line, resumed twice, gives the uninterrupted result; a journal
// whose records disagree with the config is refused by --resume and merge,
// naming the line.
func TestResumeAndMergeJournal(t *testing.T) {
	base := t.TempDir()
	ref := filepath.Join(base, "ref")
	mustRun(t, "run", "--config", quickConfig, "--out", ref, "--no-plots", "-q")
	out := filepath.Join(base, "cut")
	mustRun(t, "run", "--config", quickConfig, "--out", out, "--no-plots", "-q")
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

// Crashes 8: with more shards than trials, the empty shards succeed (with
// figures on) and merge with the others into the single-machine result.
func TestEmptyShardsSucceedAndMerge(t *testing.T) {
	base := t.TempDir()
	ref := filepath.Join(base, "ref")
	mustRun(t, "run", "--config", quickConfig, "--out", ref, "-q", "--no-plots")
	var shards []string
	for i := range 10 {
		d := filepath.Join(base, fmt.Sprintf("shard-%d", i))
		mustRun(t, "run", "--config", quickConfig, "--out", d, "-q", "--shard", fmt.Sprintf("%d/10", i))
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	mustRun(t, append(append([]string{"merge"}, shards...), "--out", merged, "-q")...)
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

// Crashes 10: plot refuses a truncated summary.csv, and plot --out leaves
// the results directory untouched (its report.md used to link elsewhere).
func TestPlotSummaryAndOut(t *testing.T) {
	base := t.TempDir()
	res := filepath.Join(base, "res")
	mustRun(t, "run", "--config", quickConfig, "--out", res, "-q")
	before := snapshot(t, res)
	figs := filepath.Join(base, "figs")
	mustRun(t, "plot", "--in", res, "--out", figs)
	sameSnapshot(t, "plot --out", before, snapshot(t, res))
	report := read(t, filepath.Join(figs, "report.md"))
	if !strings.Contains(report, "](cum_reward.png)") {
		t.Errorf("report.md in --out does not link its figures relatively:\n%s", report)
	}
	// plot --out into a directory of the user's is refused.
	code, stdout, stderr := run(t, "plot", "--in", res, "--out", base)
	wantUsage(t, code, stdout, stderr, "not empty")

	sp := filepath.Join(res, "summary.csv")
	lines := strings.SplitAfter(read(t, sp), "\n")
	os.WriteFile(sp, []byte(strings.Join(lines[:len(lines)-3], "")), 0o644)
	code, stdout, stderr = run(t, "plot", "--in", res)
	wantUsage(t, code, stdout, stderr, sp, "truncated")

	// Redrawing in place needs smrl's own directory.
	foreign := filepath.Join(base, "foreign")
	os.Mkdir(foreign, 0o755)
	for _, f := range []string{"episodes.csv", "summary.csv", "config.yaml"} {
		os.WriteFile(filepath.Join(foreign, f), []byte(read(t, filepath.Join(figs, "..", "res", f))), 0o644)
	}
	code, stdout, stderr = run(t, "plot", "--in", foreign)
	wantUsage(t, code, stdout, stderr, "not made by smrl", "--out")
}

// Low: merge's "--out is not an input" check held against a symlink.
func TestMergeOutSymlinkToInput(t *testing.T) {
	base := t.TempDir()
	shard := filepath.Join(base, "shard")
	mustRun(t, "run", "--config", quickConfig, "--out", shard, "-q", "--no-plots")
	link := filepath.Join(base, "link")
	if err := os.Symlink(shard, link); err != nil {
		t.Skip(err)
	}
	before := snapshot(t, shard)
	code, stdout, stderr := run(t, "merge", shard, "--out", link, "-q", "--no-plots")
	wantUsage(t, code, stdout, stderr, "is the shard directory")
	sameSnapshot(t, "merge into a symlink to its input", before, snapshot(t, shard))
}

// A panic anywhere is an internal error: exit 3, one line, no stack dump.
func TestPanicIsInternalError(t *testing.T) {
	root := newRootCmd(&IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var s []int
		_ = s[len(os.Args)] // index out of range
		return nil
	}})
	var out, errOut bytes.Buffer
	code := execute(context.Background(), root, []string{"boom"}, &out, &errOut)
	if code != ExitInternal {
		t.Errorf("exit %d, want %d", code, ExitInternal)
	}
	msg := errOut.String()
	if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "smrl: internal error") || !strings.Contains(msg, "index out of range") {
		t.Errorf("stderr %q: want one line naming the internal error", msg)
	}
}

// Low: unknown help topics and completion shells are usage errors; every
// error is one line (several config problems, the λ hint); no doubled
// "interrupted:".
func TestUsageAndOneLineErrors(t *testing.T) {
	code, stdout, stderr := run(t, "completion", "tcsh")
	wantUsage(t, code, stdout, stderr, "tcsh")
	code, stdout, stderr = run(t, "help", "bogus")
	wantUsage(t, code, stdout, stderr, "bogus")

	dir := t.TempDir()
	two := filepath.Join(dir, "two.yaml")
	os.WriteFile(two, []byte("seeds: 0\nepisodes: 0\n"), 0o644)
	code, _, stderr = run(t, "run", "--config", two)
	if code != ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "seeds") || !strings.Contains(stderr, "episodes") {
		t.Errorf("two problems: exit %d, stderr %q: want both on one line", code, stderr)
	}
	same := filepath.Join(dir, "same.csv")
	os.WriteFile(same, []byte("s,a,s_next\n0.5,1,0.2\n0.5,1,0.2\n0.5,1,0.2\n"), 0o644)
	code, _, stderr = run(t, "estimate", "--data", same, "--lambda", "0", "--method", "sm")
	if code != ExitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "; hint: λ is set by --lambda") {
		t.Errorf("λ hint: exit %d, stderr %q: want one line with the hint", code, stderr)
	}
	if got := oneLine("a\n\n  b\n"); got != "a; b" {
		t.Errorf("oneLine = %q", got)
	}
}

// Low: estimate takes a config whose agents it does not run; a sweep's
// --out is checked before the sweep; huge --data values are exit 2, also
// with --plot; a misspelt SMRL_* variable is named with the closest key.
func TestEstimateHardening(t *testing.T) {
	dir := t.TempDir()
	ucb := filepath.Join(dir, "ucb.yaml")
	os.WriteFile(ucb, []byte("agents: [sm-ucb]\nlambda: 0\n"), 0o644)
	mustRun(t, "estimate", "--config", ucb, "--n", "200", "--method", "lds")

	start := time.Now()
	code, _, stderr := run(t, "estimate", "--sweep-n", "100000,200000", "--repeats", "50", "--out", filepath.Join(dir, "missing", "s.csv"))
	if code != ExitUsage || !strings.Contains(stderr, "missing does not exist") || time.Since(start) > 5*time.Second {
		t.Errorf("sweep into a missing directory: exit %d after %v, stderr %q", code, time.Since(start), stderr)
	}

	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte("s,a,s_next\n0.1,1,1e200\n0.2,-1,-1e200\n0.3,1,2e200\n0.1,-1,0.5\n"), 0o644)
	png := filepath.Join(dir, "d.png")
	code, stdout, stderr := run(t, "estimate", "--data", big, "--plot", png)
	wantUsage(t, code, stdout, stderr, big+` line 2 column "s_next"`, "outside [−1024, 1024]")
	if _, err := os.Stat(png); !os.IsNotExist(err) {
		t.Errorf("a refused estimate wrote %s", png)
	}

	t.Setenv("SMRL_EPISODS", "3")
	_, _, stderr = run(t, "estimate", "--n", "100", "--method", "lds")
	if !strings.Contains(stderr, "SMRL_EPISODS is not a config key") || !strings.Contains(stderr, "did you mean SMRL_EPISODES?") {
		t.Errorf("misspelt variable: stderr %q", stderr)
	}
}

// The sampling-table cache changes how fast a run is, never what it
// computes: a cold run (building and saving the rows), a warm one (loading
// them), one after the cache files were damaged (ignored and rebuilt) and one
// with --no-cache write byte-identical episodes.csv files.
func TestTableCacheDoesNotChangeResults(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("SMRL_CACHE_DIR", cache)
	base := t.TempDir()
	var outs []string
	for i, step := range []string{"cold", "warm", "damaged", "no-cache"} {
		expfam.DropSharedTables() // start each run as a new process would
		switch step {
		case "damaged":
			files, _ := filepath.Glob(filepath.Join(cache, "*.tbl"))
			if len(files) == 0 {
				t.Fatal("the cold run saved no table")
			}
			for _, f := range files {
				os.WriteFile(f, []byte("not a table"), 0o644)
			}
		}
		out := filepath.Join(base, fmt.Sprint(i))
		args := []string{"compare", "--config", quickConfig, "--out", out, "-q", "--no-plots"}
		if step == "no-cache" {
			args = append(args, "--no-cache")
		}
		mustRun(t, args...)
		outs = append(outs, read(t, filepath.Join(out, "episodes.csv")))
	}
	for i := 1; i < len(outs); i++ {
		if outs[i] != outs[0] {
			t.Errorf("run %d's episodes.csv differs from the cold run's", i)
		}
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*.tbl"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); string(b) == "not a table" {
			t.Errorf("%s was not rebuilt after it was damaged", f)
		}
	}
}
