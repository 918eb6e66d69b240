package experiment

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// A continuous-control run whose lds agent has its own features (and so
// records no W) resumes and merges: the journal checks expect no W for it.
// The merged shards equal a single run.
func TestContinuousControlResumesAndMerges(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/pendulum.yaml")
	c.Seeds, c.Episodes, c.Env.Horizon, c.Stats.BootstrapReps = 2, 2, 10, fewDraws
	ref := filepath.Join(t.TempDir(), "ref")
	if err := Run(context.Background(), c, Options{OutDir: ref}); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), c, Options{OutDir: ref, Resume: true}); err != nil {
		t.Fatalf("resuming a complete run: %v", err)
	}
	var shards []string
	for i := range 2 {
		d := filepath.Join(t.TempDir(), "shard")
		if err := Run(context.Background(), c, Options{OutDir: d, Shard: runner.Shard{Index: i, Count: 2}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := Merge(context.Background(), shards, Options{OutDir: out}); err != nil {
		t.Fatal(err)
	}
	if a, b := readFile(t, ref, "episodes.csv"), readFile(t, out, "episodes.csv"); string(a) != string(b) {
		t.Error("merged shards differ from the single run")
	}
}
