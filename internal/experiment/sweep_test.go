package experiment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// tinySweep is a 2×2 grid over the planner on the quick config: 4 points
// × 3 agents × 2 seeds × 3 episodes.
func tinySweep(t *testing.T, extra ...string) *grid.Sweep {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	body := "name: tiny\nseeds: 2\nepisodes: 3\nplanner:\n  n_rollouts: 10\nsweep:\n  planner.tau: [2, 5]\n  planner.n_rollouts: [4, 12]\nstats:\n  bootstrap_reps: 200\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := grid.Load(config.Options{Path: p}, extra)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sweepFiles are the files of a point that must be byte-identical.
var sweepFiles = []string{results.EpisodesFile, results.SummaryFile, results.ConfigFile}

// samePoints compares the CSV files and configs of every point of s in
// two sweep directories, and sweep.csv.
func samePoints(t *testing.T, s *grid.Sweep, a, b, what string) {
	t.Helper()
	for _, p := range s.Points {
		for _, f := range sweepFiles {
			if !bytes.Equal(readFile(t, filepath.Join(a, p.Name), f), readFile(t, filepath.Join(b, p.Name), f)) {
				t.Errorf("%s: point %s: %s differs", what, p.Name, f)
			}
		}
	}
	if !bytes.Equal(readFile(t, a, grid.TableFile), readFile(t, b, grid.TableFile)) {
		t.Errorf("%s: sweep.csv differs", what)
	}
}

// Every point directory of a sweep is what smrl run writes for the point's
// config, byte for byte, whatever the workers of either; sweep.csv holds
// the last summary row of each point and agent.
func TestSweepEqualsSeparateRuns(t *testing.T) {
	s := tinySweep(t)
	root := filepath.Join(t.TempDir(), "sweep")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Workers: 3}}); err != nil {
		t.Fatal(err)
	}
	var firstEpisodes []byte
	for _, p := range s.Points {
		// The point's own config.yaml, run alone as smrl run --config does.
		c := testutil.LoadConfig(t, filepath.Join(root, p.Name, results.ConfigFile))
		ref := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: ref, Workers: 1}); err != nil {
			t.Fatal(err)
		}
		for _, f := range sweepFiles {
			if !bytes.Equal(readFile(t, ref, f), readFile(t, filepath.Join(root, p.Name), f)) {
				t.Errorf("point %s: %s differs from smrl run's", p.Name, f)
			}
		}
		if ep := readFile(t, ref, results.EpisodesFile); firstEpisodes == nil {
			firstEpisodes = ep
		} else if bytes.Equal(ep, firstEpisodes) {
			t.Errorf("point %s has the episodes of the first point: the grid changed nothing", p.Name)
		}
		if !outdir.Owned(filepath.Join(root, p.Name)) {
			t.Errorf("point %s is not marked as smrl's", p.Name)
		}
	}
	rows, err := s.ReadTable(filepath.Join(root, grid.TableFile))
	if err != nil {
		t.Fatal(err)
	}
	sums, err := results.ReadSummary(filepath.Join(root, s.Points[3].Name, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	last := sums[len(sums)/3-1] // sm's last episode
	r := rows[9]                // point 3, sm
	if r.Agent != "sm" || r.Point != s.Points[3].Name || r.Episode != 3 || r.CumReward.Mean != last.CumReward.Mean ||
		r.CumRegret.Hi != last.CumRegret.Hi || r.RegretSlope != last.RegretSlope && !(math.IsNaN(r.RegretSlope) && math.IsNaN(last.RegretSlope)) {
		t.Errorf("sweep.csv row %+v, summary %+v", r, last)
	}
	// Any workers: the same files (the shared sweep ran on one worker).
	_, one := tinySweepRun(t)
	samePoints(t, s, root, one, "1 vs 3 workers")
	// A fresh sweep into a completed sweep directory is refused; with
	// Overwrite it replaces it.
	err = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: one, Workers: 2}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds completed results (sweep.csv): --overwrite replaces them") {
		t.Errorf("a second sweep without Overwrite: %v", err)
	}
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: one, Workers: 2, Overwrite: true}}); err != nil {
		t.Fatalf("a second sweep into the same directory: %v", err)
	}
	samePoints(t, s, root, one, "re-run")
}

// The shards of a sweep merge into the sweep directory of the unsharded
// sweep, and sharding splits the global trial list (a shard may hold no
// trial of some point).
func TestSweepShardsMergeToSweep(t *testing.T) {
	s, ref := tinySweepRun(t)
	base := t.TempDir()
	var shards []string
	const n = 7
	for i := 0; i < n; i++ {
		d := filepath.Join(base, "shard-"+string(rune('0'+i)))
		if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: d, Shard: runner.Shard{Index: i, Count: n}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d, grid.TableFile)); err == nil {
			t.Error("a shard wrote sweep.csv")
		}
		shards = append(shards, d)
	}
	// 24 trials (6 per point) in 7 shards: shard k holds global trials k,
	// k+7, …; shard 6 holds trials 6, 13 and 20, none of point 0 (trials
	// 0–5) and two of point 2 (12–17).
	total := 0
	for _, d := range shards {
		total += sweepJournalLines(s, d)
	}
	if a, b := journalLines(filepath.Join(shards[6], s.Points[0].Name)), journalLines(filepath.Join(shards[6], s.Points[2].Name)); total != 24 || a != 0 || b != 1 {
		t.Errorf("the shards hold %d trials (want 24), shard 6 holds %d of point 0 (want 0) and %d of point 2 (want 1)", total, a, b)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := MergeSweep(context.Background(), []string{shards[3], shards[0], shards[4], shards[6], shards[2], shards[5], shards[1]}, SweepOptions{Options: Options{OutDir: out}}); err != nil {
		t.Fatal(err)
	}
	samePoints(t, s, ref, out, "merged")
	// A missing shard is named with its point.
	err := MergeSweep(context.Background(), shards[:6], SweepOptions{Options: Options{OutDir: t.TempDir()}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "sweep point planner.tau=2,planner.n_rollouts=12: merge: 1 of 6 trials are missing") ||
		!strings.Contains(err.Error(), "missing") {
		t.Errorf("missing shard: %v", err)
	}
	// A shard of another grid is refused.
	other := filepath.Join(base, "other")
	if err := RunSweep(context.Background(), tinySweep(t, "planner.tau=2,3"), SweepOptions{Options: Options{OutDir: other, Shard: runner.Shard{Index: 0, Count: n}}}); err != nil {
		t.Fatal(err)
	}
	err = MergeSweep(context.Background(), []string{shards[1], other}, SweepOptions{Options: Options{OutDir: t.TempDir()}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "planner.tau is swept over 2,5, not 2,3") {
		t.Errorf("other grid: %v", err)
	}
}

// sweepJournalLines counts the journaled trials of every point.
func sweepJournalLines(s *grid.Sweep, root string) int {
	n := 0
	for _, p := range s.Points {
		n += journalLines(filepath.Join(root, p.Name))
	}
	return n
}

// An interrupted sweep resumes to the sweep an uninterrupted run writes.
func TestSweepResumeAfterInterrupt(t *testing.T) {
	s, ref := tinySweepRun(t)
	dir := filepath.Join(t.TempDir(), "sweep")
	ctx, cancel, journaled := cancelAfter(8)
	defer cancel()
	err := RunSweep(ctx, s, SweepOptions{Options: Options{OutDir: dir, Workers: 1, ResumeHint: "smrl sweep --resume", journaled: journaled}})
	if !errors.Is(err, errs.ErrInterrupted) || !strings.Contains(err.Error(), "smrl sweep --resume") {
		t.Fatalf("interrupted sweep: err = %v", err)
	}
	if n := sweepJournalLines(s, dir); n < 8 || n >= 24 {
		t.Fatalf("%d of 24 trials journaled after the interrupt", n)
	}
	if _, err := os.Stat(filepath.Join(dir, grid.TableFile)); err == nil {
		t.Error("an interrupted sweep wrote sweep.csv")
	}
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: dir, Workers: 2, Resume: true}}); err != nil {
		t.Fatal(err)
	}
	samePoints(t, s, ref, dir, "resumed")
	if n := sweepJournalLines(s, dir); n != 24 {
		t.Errorf("the journals hold %d trials after the resume, want each of the 24 once", n)
	}

	// A resume with another grid, or another config at a point, is refused.
	err = RunSweep(context.Background(), tinySweep(t, "planner.tau=2,3"), SweepOptions{Options: Options{OutDir: dir, Resume: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "planner.tau is swept over 2,5, not 2,3") {
		t.Errorf("resume with another grid: %v", err)
	}
	err = RunSweep(context.Background(), tinySweep(t, "lambda=0.01"), SweepOptions{Options: Options{OutDir: dir, Resume: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "the swept keys are planner.tau, planner.n_rollouts, not planner.tau, planner.n_rollouts, lambda") {
		t.Errorf("resume with another key: %v", err)
	}
	s2 := tinySweep(t)
	for i := range s2.Points {
		s2.Points[i].Config.Episodes = 5
	}
	err = RunSweep(context.Background(), s2, SweepOptions{Options: Options{OutDir: dir, Resume: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "episodes = 3, but the resolved config has episodes = 5") {
		t.Errorf("resume with another config: %v", err)
	}
	// Nothing to resume.
	err = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: filepath.Join(t.TempDir(), "none"), Resume: true}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "nothing to resume") {
		t.Errorf("resume of nothing: %v", err)
	}
}

// A point directory that holds the user's files is refused before
// anything is written, and so is a run's results directory as a root.
func TestSweepRefusesForeignDirectories(t *testing.T) {
	s := tinySweep(t)
	root := filepath.Join(t.TempDir(), "sweep")
	mine := filepath.Join(root, s.Points[2].Name)
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644)
	err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "not empty and was not made by smrl") {
		t.Errorf("foreign point directory: %v", err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || outdir.Owned(root) {
		t.Errorf("the refused sweep wrote into %s: %v", root, entries)
	}
	run := t.TempDir()
	c := quick(t)
	c.Seeds, c.Episodes = 1, 1
	if err := Run(context.Background(), c, Options{OutDir: run}); err != nil {
		t.Fatal(err)
	}
	err = RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: run}})
	if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "holds the results of a run") {
		t.Errorf("sweep into a run's directory: %v", err)
	}
	// And a run into a sweep's directory.
	sw := filepath.Join(t.TempDir(), "sw")
	if err := RunSweep(context.Background(), tinySweep(t, "planner.tau=2", "planner.n_rollouts=4"), SweepOptions{Options: Options{OutDir: sw}}); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), c, Options{OutDir: sw}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "is a sweep directory") {
		t.Errorf("run into a sweep's directory: %v", err)
	}
	if err := Merge(context.Background(), []string{run}, Options{OutDir: sw}); !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), "is a sweep directory") {
		t.Errorf("merge into a sweep's directory: %v", err)
	}
}

// The points' figures are drawn in parallel (the race detector runs this
// test; TestSweepFiguresAndPlot, which draws many more, it does not).
func TestSweepDrawsPointsInParallel(t *testing.T) {
	s := tinySweep(t, "planner.tau=5")
	root := filepath.Join(t.TempDir(), "sweep")
	so := SweepOptions{Format: "svg", Options: Options{OutDir: root, Workers: 2, Plot: func(dir string) error {
		_, err := Figures(dir, "svg")
		return err
	}}}
	if err := RunSweep(context.Background(), s, so); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(s.Points[1].Name, "plots", "densities.svg"), filepath.Join("plots", "sweep_regret_planner.n_rollouts.svg"),
		filepath.Join("plots", "sweep_heatmap_regret.svg")} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

// plot --in of a sweep refuses an edited sweep.csv (NaN or ±Inf, which
// smrl writes as an empty cell; seeds or episode other than the point's
// config) or an edited point file with one error naming the file, line and
// column, before it draws anything.
func TestPlotSweepRefusesEditedCells(t *testing.T) {
	s := tinySweep(t, "planner.n_rollouts=4") // points planner.tau=2 and 5; 2 seeds, 3 episodes
	root := filepath.Join(t.TempDir(), "sweep")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root}}); err != nil {
		t.Fatal(err)
	}
	last := s.Points[len(s.Points)-1].Name
	table := filepath.Join(root, grid.TableFile)
	summary := filepath.Join(root, last, results.SummaryFile)
	orig := map[string][]byte{table: readFile(t, root, grid.TableFile), summary: readFile(t, filepath.Join(root, last), results.SummaryFile)}
	for _, tc := range []struct {
		path, col, text string
		line            int
		errHas          string
	}{
		{table, "cum_reward_lo", "NaN", 3, `sweep.csv line 3, column 8 (cum_reward_lo): "NaN" is not a finite number`},
		{table, "cum_regret_mean", "Inf", 2, `sweep.csv line 2, column 10 (cum_regret_mean): "Inf" is not a finite number`},
		{table, "w_error_mean", "-Inf", 2, `sweep.csv line 2, column 17 (w_error_mean): "-Inf" is not a finite number`},
		{table, "seeds", "999", 2, `sweep.csv line 2, column 5 (seeds): 999, but the point's config has seeds = 2`},
		{table, "episode", "-5", 4, `sweep.csv line 4, column 6 (episode): -5 is less than 1`},
		{summary, "reward_mean", "NaN", 2, `summary.csv line 2, column 4 (reward_mean): "NaN" is not a finite number`},
	} {
		t.Run(filepath.Base(tc.path)+"/"+tc.col+"="+tc.text, func(t *testing.T) {
			for p, b := range orig {
				os.WriteFile(p, b, 0o644)
			}
			os.WriteFile(tc.path, editCell(t, orig[tc.path], tc.line, tc.col, tc.text), 0o644)
			out := filepath.Join(t.TempDir(), "figs")
			_, err := PlotSweep(root, out, "png")
			if !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("err = %v, want %q", err, tc.errHas)
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the refused plot wrote %s", out)
			}
		})
	}
}

// Issue 35, item 3: smrl sweep --dry-run of a sweep at grid.MaxTrials
// lists no trial: it counts them. (It took 1.6 GB for 10 points of
// 1 000 000 seeds.)
func TestSweepDryRunCountsTrials(t *testing.T) {
	s, err := grid.Load(config.Options{Environ: []string{"SMRL_SEEDS=500000", "SMRL_AGENTS=sm"}}, []string{"planner.tau=1,2"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	opt := SweepOptions{Options: Options{OutDir: filepath.Join(t.TempDir(), "sweep"), DryRun: true, Stdout: &out}}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := RunSweep(context.Background(), s, opt); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// A list of the 1 000 000 trials alone is 24 MB.
	t.Logf("allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("the dry run allocated %d bytes, want at most 4 MiB", got)
	}
	if !strings.Contains(out.String(), "2 points, 1000000 trials") || !strings.Contains(out.String(), "planner.tau=2: 500000 trials") {
		t.Errorf("plan:\n%s", out.String())
	}
}

// smrl run --dry-run counts its trials instead of listing them: a million
// seeds of three agents took 297 MB of resident memory.
func TestRunDryRunCountsTrials(t *testing.T) {
	c := quick(t)
	c.Seeds = 1_000_000
	var out bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := Run(context.Background(), c, Options{OutDir: filepath.Join(t.TempDir(), "run"), DryRun: true, Stdout: &out, SaveModels: true, Shard: runner.Shard{Index: 1, Count: 4}}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("the dry run allocated %d bytes, want at most 4 MiB", got)
	}
	if !strings.Contains(out.String(), "shard 1/4 of 3000000 trials") {
		t.Errorf("plan:\n%s", out.String())
	}
}
