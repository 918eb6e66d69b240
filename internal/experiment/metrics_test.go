package experiment

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// key of a metrics line or an episode row: the deterministic content.
type metricKey struct {
	agent         string
	seed, episode int
}

// readMetrics reads dir's metrics.jsonl by (agent, seed, episode),
// failing on a repeated line.
func readMetrics(t *testing.T, dir string) map[metricKey]metrics.Line {
	t.Helper()
	lines, err := metrics.Read(filepath.Join(dir, metrics.File))
	if err != nil {
		t.Fatal(err)
	}
	out := map[metricKey]metrics.Line{}
	for _, l := range lines {
		k := metricKey{l.Agent, l.Seed, l.Episode}
		if _, dup := out[k]; dup {
			t.Errorf("%v appears twice in metrics.jsonl", k)
		}
		out[k] = l
	}
	return out
}

// Every finished episode of every agent, the oracle's too, is one line of
// metrics.jsonl with the return and |Ŵ − W0| of episodes.csv, the steps
// of the trial so far, and times; the lines of a trial are in the file
// before its journal line is written (flushed as each episode ends).
func TestMetricsLinePerEpisode(t *testing.T) {
	c := quick(t)
	dir := t.TempDir()
	var missing []string
	journaled := func() {
		// Each trial's journal line is written after its last episode's
		// metrics line: count that they are all on disk already.
		lines, err := metrics.Read(filepath.Join(dir, metrics.File))
		if err != nil || len(lines) < (journalLines(dir))*c.Episodes {
			missing = append(missing, "metrics lag the journal")
		}
	}
	if err := Run(context.Background(), c, Options{OutDir: dir, Workers: 2, journaled: journaled}); err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("metrics.jsonl was not written as episodes ended: %v", missing)
	}
	got := readMetrics(t, dir)
	res, err := results.ReadJournal(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(record.Trials(c)) * c.Episodes; len(got) != want {
		t.Fatalf("metrics.jsonl has %d lines, want %d (one per episode of every trial)", len(got), want)
	}
	sawOracle := false
	for tr, eps := range res {
		steps := 0
		for _, e := range eps {
			steps += e.Steps
			l, ok := got[metricKey{tr.Agent, tr.Seed, e.Episode}]
			if !ok {
				t.Fatalf("no metrics line for %s seed %d episode %d", tr.Agent, tr.Seed, e.Episode)
			}
			if l.Return != e.Reward || l.Steps != steps || l.EpisodeSeconds < 0 || l.WallSeconds < l.EpisodeSeconds-1e-3 {
				t.Errorf("%s seed %d episode %d: line %+v, want return %v, steps %d and times", tr.Agent, tr.Seed, e.Episode, l, e.Reward, steps)
			}
			switch {
			case l.WError == nil && !math.IsNaN(e.WError):
				t.Errorf("%s seed %d episode %d: w_error missing, episodes has %v", tr.Agent, tr.Seed, e.Episode, e.WError)
			case l.WError != nil && *l.WError != e.WError:
				t.Errorf("%s seed %d episode %d: w_error %v, episodes has %v", tr.Agent, tr.Seed, e.Episode, *l.WError, e.WError)
			}
		}
		sawOracle = sawOracle || tr.Agent == "oracle"
	}
	if !sawOracle {
		t.Error("the config has no oracle: the test wants its lines too")
	}
}

// --resume appends to the interrupted run's metrics (dropping a line cut
// short), --overwrite replaces them, and merge concatenates the shards'.
func TestMetricsResumeOverwriteMerge(t *testing.T) {
	c := quick(t)
	dir := t.TempDir()
	ctx, cancel, journaled := cancelAfter(2)
	defer cancel()
	if err := Run(ctx, c, Options{OutDir: dir, Workers: 1, journaled: journaled}); !errors.Is(err, errs.ErrInterrupted) {
		t.Fatalf("interrupted run: %v", err)
	}
	before := len(readMetrics(t, dir))
	f, _ := os.OpenFile(filepath.Join(dir, metrics.File), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"agent":"sm","se`)
	f.Close()
	if err := Run(context.Background(), c, Options{OutDir: dir, Resume: true, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	// A resume recomputes only the trials not journaled; the lines of the
	// episodes of the trial in flight at the interrupt are written again.
	lines, err := metrics.Read(filepath.Join(dir, metrics.File))
	if err != nil {
		t.Fatal(err)
	}
	total := len(record.Trials(c)) * c.Episodes
	if len(lines) < total || len(lines) > total+c.Episodes || before < 2*c.Episodes {
		t.Errorf("after resume %d lines (%d before), want %d to %d", len(lines), before, total, total+c.Episodes)
	}
	if err := Run(context.Background(), c, Options{OutDir: dir, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if n := len(readMetrics(t, dir)); n != total {
		t.Errorf("after --overwrite %d lines, want %d", n, total)
	}
	var shards []string
	for i := range 2 {
		d := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: d, Shard: runner.Shard{Index: i, Count: 2}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	out := t.TempDir()
	if err := Merge(context.Background(), shards, Options{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	a, b := readFile(t, shards[0], metrics.File), readFile(t, shards[1], metrics.File)
	if got := string(readFile(t, out, metrics.File)); got != string(a)+string(b) || strings.Count(got, "\n") != total {
		t.Errorf("merged metrics.jsonl is not the shards' in order (%d lines, want %d)", strings.Count(got, "\n"), total)
	}
}
