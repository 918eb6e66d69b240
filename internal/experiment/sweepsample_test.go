package experiment

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// tinyBase is a config file for sweeps: 2 seeds of 3 episodes.
func tinyBase(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte("name: tiny\nseeds: 2\nepisodes: 3\nplanner:\n  n_rollouts: 4\nstats:\n  bootstrap_reps: 200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readCSVCell returns the value column of aggregate.csv's row (agent, metric).
func aggregateValue(t *testing.T, dir, agent, metric string) float64 {
	t.Helper()
	recs, err := fsutil.ReadCSV(filepath.Join(dir, "aggregate.csv"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		if r[0] == agent && r[1] == metric {
			v, err := strconv.ParseFloat(r[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("aggregate.csv of %s has no row %s %s", dir, agent, metric)
	return 0
}

// Agents swept: each point runs its own agents, sweep.csv has a row per
// point and agent of the point, the oracle of two agent points ran the
// same trials, and the aggregate over points pools each agent's seeds of
// every point (a stratum per planner.tau): lds's mean score is the mean,
// over its seeds at both τ, of the mean reward per episode, computed here
// from the journals.
func TestSweepOverAgents(t *testing.T) {
	s, err := grid.Load(config.Options{Path: tinyBase(t)}, []string{"agents=[sm,oracle],[lds,oracle]", "planner.tau=2,5"})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "sw")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Workers: 2}}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.ReadTable(filepath.Join(root, grid.TableFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 {
		t.Fatalf("sweep.csv has %d rows, want 4 points × 2 agents", len(rows))
	}
	oracle := map[string]grid.Stat{}
	var sum float64
	var n int
	for _, p := range s.Points {
		done, err := results.ReadJournal(filepath.Join(root, p.Name), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(done) != 4 {
			t.Errorf("point %s ran %d trials, want its 2 agents × 2 seeds", p.Name, len(done))
		}
		for tr, eps := range done {
			if tr.Agent != "lds" {
				continue
			}
			var r float64
			for _, e := range eps {
				r += e.Reward
			}
			sum += r / float64(len(eps))
			n++
		}
	}
	for _, r := range rows {
		if r.Agent != "oracle" {
			continue
		}
		tau := r.Values[1]
		if prev, ok := oracle[tau]; ok && prev != r.CumReward {
			t.Errorf("the oracle at planner.tau=%s differs between agent points: %v, %v", tau, prev, r.CumReward)
		}
		oracle[tau] = r.CumReward
	}
	if got, want := aggregateValue(t, root, "lds", "mean"), sum/float64(n); n != 4 || !testutil.AbsWithin(got, want, 1e-12*math.Abs(want)) {
		t.Errorf("lds mean over points %v (from %d seeds), want %v", got, n, want)
	}
}

// --sample: the shards of a random search merge into the unsharded
// sweep, byte for byte (every shard draws the same points).
func TestSweepSampleShards(t *testing.T) {
	load := func() *grid.Sweep {
		s, err := grid.LoadSample(context.Background(), config.Options{Path: tinyBase(t)}, []string{"lambda=log:1e-4:1:2", "planner.tau=2,3,5"}, 3)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load()
	ref := filepath.Join(t.TempDir(), "ref")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: ref}}); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := range 2 {
		d := filepath.Join(t.TempDir(), "shard")
		if err := RunSweep(context.Background(), load(), SweepOptions{Options: Options{OutDir: d, Shard: runner.Shard{Index: i, Count: 2}}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := MergeSweep(context.Background(), shards, SweepOptions{Options: Options{OutDir: out}}); err != nil {
		t.Fatal(err)
	}
	samePoints(t, s, ref, out, "merged sample")
}

// A sweep over tasks whose returns differ in scale (env.horizon 3 and 12)
// with stats.normalise: random-oracle: the root's aggregate mean of sm is
// the mean over both points' seeds of (x − r)/(o − r), x the seed's mean
// return per episode and r, o the point's mean scores of random and the
// oracle, computed here from the journals.
func TestSweepNormalisedAcrossTasks(t *testing.T) {
	s, err := grid.Load(config.Options{Path: tinyBase(t)}, []string{"env.horizon=3,12", "agents=[random,oracle,sm]", "stats.normalise=random-oracle"})
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "sw")
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: root, Workers: 2}}); err != nil {
		t.Fatal(err)
	}
	var want float64
	var n int
	for _, p := range s.Points {
		done, err := results.ReadJournal(filepath.Join(root, p.Name), nil)
		if err != nil {
			t.Fatal(err)
		}
		score := map[string][]float64{}
		for tr, eps := range done {
			var sum float64
			for _, e := range eps {
				sum += e.Reward
			}
			score[tr.Agent] = append(score[tr.Agent], sum/float64(len(eps)))
		}
		avg := func(x []float64) float64 { return (x[0] + x[1]) / 2 }
		r, o := avg(score["random"]), avg(score["oracle"])
		for _, x := range score["sm"] {
			want += (x - r) / (o - r)
			n++
		}
		if got := aggregateValue(t, filepath.Join(root, p.Name), "oracle", "mean"); !testutil.AbsWithin(got, 1, 1e-12) {
			t.Errorf("point %s: the oracle's normalised mean %v, want 1", p.Name, got)
		}
	}
	want /= float64(n)
	// aggregate_points.csv: every point's aggregate.csv rows, in point
	// order, behind the point's name and values.
	recs, err := fsutil.ReadCSV(filepath.Join(root, PointAggregatesFile), "")
	if err != nil {
		t.Fatal(err)
	}
	k := 1
	for _, p := range s.Points {
		own, err := fsutil.ReadCSV(filepath.Join(root, p.Name, "aggregate.csv"), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range own[1:] {
			want := strings.Join(append(append([]string{p.Name}, s.Grid.Texts(p.Coords)...), r...), ",")
			if k >= len(recs) || strings.Join(recs[k], ",") != want {
				t.Fatalf("aggregate_points.csv row %d is not %s", k, want)
			}
			k++
		}
	}
	if k != len(recs) {
		t.Errorf("aggregate_points.csv has %d rows, the points %d", len(recs)-1, k-1)
	}
	if got := aggregateValue(t, root, "sm", "mean"); n != 4 || !testutil.AbsWithin(got, want, 1e-12) {
		t.Errorf("root normalised mean of sm %v over %d seeds, want %v", got, n, want)
	}
}
