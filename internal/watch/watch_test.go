package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// quickRun runs configs/quick.yaml (3 agents × 2 seeds × 8 episodes) into
// a new directory.
func quickRun(t *testing.T) string {
	t.Helper()
	c := testutil.LoadConfig(t, "../../configs/quick.yaml")
	dir := t.TempDir()
	if err := experiment.Run(context.Background(), c, experiment.Options{OutDir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A finished run: done, every episode counted, the curves the means of
// episodes.csv's returns over seeds, and the chart drawn once.
func TestWatchOnceOfAFinishedRun(t *testing.T) {
	dir := quickRun(t)
	var out bytes.Buffer
	if err := Watch(context.Background(), dir, Options{Once: true, Out: &out}); err != nil {
		t.Fatal(err)
	}
	s, err := Take(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if s.State != Done || s.Done != 48 || s.Total != 48 || s.HasETA {
		t.Errorf("snapshot %+v, want done, 48 of 48 episodes, no ETA", s)
	}
	// The mean of episode 8 over the 2 seeds, from episodes.csv.
	rows, err := results.ReadJournal(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for tr, eps := range rows {
		want[tr.Agent] += eps[7].Reward / 2
	}
	for _, c := range s.Runs[0].Curves {
		if len(c.Mean) != 8 || c.N[7] != 2 || !testutil.AbsWithin(c.Mean[7], want[c.Agent], 1e-12) {
			t.Errorf("%s: curve %v over %v, want 8 episodes ending at %v over 2 seeds", c.Agent, c.Mean, c.N, want[c.Agent])
		}
	}
	text := out.String()
	for _, w := range []string{dir + ": done, 48/48 episodes", "mean return per episode", "* sm ", "o lds ", "+ oracle ", "episode 8: "} {
		if !strings.Contains(text, w) {
			t.Errorf("output lacks %q:\n%s", w, text)
		}
	}
	if n := strings.Count(text, "\n"); n < 12 {
		t.Errorf("output has %d lines, want a chart of 12 rows:\n%s", n, text)
	}
}

// A run in progress (metadata says running, the lock is held, 10 of 48
// episodes finished): running, counts, and the ETA by hand.
func TestWatchOfARunningRun(t *testing.T) {
	dir := quickRun(t)
	var meta results.Metadata
	mb, err := os.ReadFile(filepath.Join(dir, results.MetadataFile))
	if err != nil || json.Unmarshal(mb, &meta) != nil {
		t.Fatal("reading metadata.json:", err)
	}
	meta.Running, meta.Workers = true, 2
	b, _ := json.Marshal(meta)
	os.WriteFile(filepath.Join(dir, results.MetadataFile), b, 0o644)
	os.WriteFile(filepath.Join(dir, outdir.LockFile), []byte("1\n"), 0o644)
	// Keep the first 10 lines, with times we choose: sm 2 s, lds 1 s.
	lines, err := metrics.Read(filepath.Join(dir, metrics.File))
	if err != nil {
		t.Fatal(err)
	}
	lines = lines[:10]
	var buf bytes.Buffer
	sec := map[string]float64{"sm": 2, "lds": 1, "oracle": 3}
	var agentsSeen = map[string]int{}
	for _, l := range lines {
		l.EpisodeSeconds = sec[l.Agent]
		agentsSeen[l.Agent]++
		j, _ := json.Marshal(l)
		buf.Write(append(j, '\n'))
	}
	p := filepath.Join(dir, metrics.File)
	os.WriteFile(p, buf.Bytes(), 0o644)
	fi, _ := os.Stat(p)
	s, err := Take(dir, fi.ModTime())
	if err != nil {
		t.Fatal(err)
	}
	if s.State != Running || s.Done != 10 || s.Total != 48 || !s.HasETA {
		t.Fatalf("snapshot %+v, want running, 10 of 48, an ETA", s)
	}
	// Remaining episodes per agent times its mean (an agent not yet seen:
	// the mean of all), over 2 workers (6 trials, at least 2 unfinished).
	var all, n float64
	for a, k := range agentsSeen {
		all += float64(k) * sec[a]
		n += float64(k)
	}
	var work float64
	for _, a := range []string{"sm", "lds", "oracle"} {
		m := all / n
		if agentsSeen[a] > 0 {
			m = sec[a]
		}
		work += float64(16-agentsSeen[a]) * m
	}
	testutil.AbsClosef(t, s.ETA.Seconds(), work/2, 1e-6, "ETA %v, want %v s", s.ETA, work/2)
	// Without the lock the run was interrupted: watch stops at once.
	os.Remove(filepath.Join(dir, outdir.LockFile))
	if s, _ := Take(dir, time.Now()); s.State != Stopped {
		t.Errorf("state %v without the lock, want stopped", s.State)
	}
	if err := Watch(context.Background(), dir, Options{Interval: time.Hour}); err != nil {
		t.Errorf("watch of a stopped run: %v", err)
	}
}

// A sweep directory: one curve set per point, named, and the episodes of
// all points counted; done once the sweep's metadata says so.
func TestWatchOfASweep(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	os.WriteFile(p, []byte("name: tiny\nseeds: 1\nepisodes: 2\nagents: [sm, oracle]\nplanner:\n  n_rollouts: 4\nstats:\n  bootstrap_reps: 100\n"), 0o644)
	s, err := grid.Load(config.Options{Path: p}, []string{"planner.tau=2,3"})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "sw")
	if err := experiment.RunSweep(context.Background(), s, experiment.SweepOptions{Options: experiment.Options{OutDir: root, Workers: 2}}); err != nil {
		t.Fatal(err)
	}
	snap, err := Take(root, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if snap.State != Done || snap.Done != 8 || snap.Total != 8 || len(snap.Runs) != 2 || snap.Runs[1].Name != s.Points[1].Name {
		t.Fatalf("snapshot %+v, want done, 8 of 8 episodes over the 2 points", snap)
	}
	var out bytes.Buffer
	if err := Draw(&out, snap, 20, 4); err != nil || !strings.Contains(out.String(), s.Points[0].Name+"\n") {
		t.Errorf("the chart does not name the points: %v\n%s", err, out.String())
	}
}

// A line no trial of the run could have written (an episode, seed or
// agent beyond the config's) is refused naming the file and the line,
// before any curve is built: an episode of 2e9 used to allocate curves of
// 2e9 entries.
func TestWatchRefusesForeignLines(t *testing.T) {
	dir := quickRun(t)
	p := filepath.Join(dir, "metrics.jsonl")
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(orig, []byte("\n")) + 1
	for _, c := range []struct{ line, want string }{
		{`{"agent":"sm","seed":0,"episode":2000000000,"steps":1,"return":1}`, "episode 2000000000, but the run has 8 episodes"},
		{`{"agent":"sm","seed":99999999999,"episode":1,"steps":1,"return":1}`, "seed 99999999999, but the run has 2 seeds"},
		{`{"agent":"bogus","seed":0,"episode":1,"steps":1,"return":1}`, `agent "bogus" is not one of the run's agents`},
	} {
		if err := os.WriteFile(p, append(slices.Clone(orig), c.line+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Take(dir, time.Now())
		if want := fmt.Sprintf("%s line %d: %s", p, n, c.want); err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want invalid input with %q", c.line, err, want)
		}
	}
}

// A directory where a run's metrics.jsonl or metadata.json belongs is
// invalid input naming it (exit 2), not a read error (exit 1).
func TestWatchRefusesDirectoriesAsFiles(t *testing.T) {
	dir := quickRun(t)
	for _, name := range []string{metrics.File, results.MetadataFile} {
		p := filepath.Join(dir, name)
		saved := p + ".saved"
		if err := os.Rename(p, saved); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Take(dir, time.Now())
		if err == nil || !errors.Is(err, errs.ErrInvalidInput) || !strings.Contains(err.Error(), p+" is a directory") {
			t.Errorf("%s a directory: err = %v, want invalid input naming it", name, err)
		}
		os.Remove(p)
		if err := os.Rename(saved, p); err != nil {
			t.Fatal(err)
		}
	}
}
