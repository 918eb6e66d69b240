package runner

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestLargeFeaturesWorkerIndependent: at the size where the statistics are
// summed in blocks, the Cholesky is blocked and the products split over
// goroutines (testdata/scale-lq17.yaml cut to 600 features, 12-step
// episodes, sm and lds, 2 seeds), the episodes are the same for 1 and 2
// workers and for GOMAXPROCS 1 and 2.
func TestLargeFeaturesWorkerIndependent(t *testing.T) {
	c := testutil.LoadConfigOptions(t, config.Options{Path: "testdata/scale-lq17.yaml",
		Environ: []string{"SMRL_MODEL_FEATURES_DIM=600", "SMRL_ENV_HORIZON=12", "SMRL_SEEDS=2", "SMRL_EPISODES=3", "SMRL_AGENTS=sm,lds", "SMRL_PLANNER_MPPI_SAMPLES=8"}})
	m, err := env.New(c)
	if err != nil {
		t.Fatal(err)
	}
	run := func(workers, procs int) string {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		res, err := Run(context.Background(), c, m, record.Trials(c), Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%v", res.Episodes)
	}
	one := run(1, 1)
	if two := run(2, 2); two != one {
		t.Fatal("episodes differ between 1 worker on 1 core and 2 workers on 2")
	}
}
