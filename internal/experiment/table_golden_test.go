package experiment

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden tables in testdata")

// The terminal table and summary.csv of a small run of each environment
// kind match their golden copies: the columns suit the task (return per
// episode for all; lengths for terminating tasks; cumulative reward and
// regret for the paper's MDP; the plus count for ±1 actions only). The
// figures follow: no plus count figure for box actions, no length figure
// where the return is the length, no cumulative reward figure outside the
// paper's MDP. Regenerate with go test ./internal/experiment -run Golden -update.
func TestTableGolden(t *testing.T) {
	if testutil.FusedMulAdd {
		t.Skip("the golden files are a default amd64 build's; this build may fuse multiply-adds, which changes results")
	}
	for _, tc := range []struct {
		kind, config string
		horizon      int
		agents       []string
		figures      []string
	}{
		{"expfam", "quick.yaml", 0, []string{"sm", "lds", "oracle"},
			[]string{"cum_reward", "return", "cum_regret", "regret_loglog", "plus_count", "actions", "w_error", "mdp", "densities", "interval_estimates", "performance_profile"}},
		{"cartpole", "cartpole.yaml", 40, []string{"sm", "oracle"},
			[]string{"return", "return_steps", "cum_regret", "regret_loglog", "plus_count", "actions", "marginals", "interval_estimates", "performance_profile"}},
		{"pendulum", "pendulum.yaml", 15, []string{"lds", "oracle"},
			[]string{"return", "cum_regret", "regret_loglog", "marginals", "interval_estimates", "performance_profile"}},
		// sm on the pendulum's 200 random Fourier features: the bits of the
		// features' default arithmetic (model.features.fma false), which
		// every shipped config on them depends on.
		{"pendulum-sm", "pendulum.yaml", 15, []string{"sm", "oracle"},
			[]string{"return", "cum_regret", "regret_loglog", "marginals", "interval_estimates", "performance_profile"}},
		{"mountain-car", "mountain-car.yaml", 30, []string{"lds", "oracle"},
			[]string{"return", "cum_regret", "marginals", "interval_estimates", "performance_profile"}}, // no positive regret: no log–log figure
	} {
		t.Run(tc.kind, func(t *testing.T) {
			c := testutil.LoadConfig(t, filepath.Join("../../configs", tc.config))
			c.Agents, c.Seeds, c.Episodes = tc.agents, 2, 3
			if tc.horizon > 0 {
				c.Env.Horizon = tc.horizon
			}
			dir := t.TempDir()
			var out bytes.Buffer
			var figs []string
			err := Run(context.Background(), c, Options{OutDir: dir, Workers: 2, Stdout: &out, Plot: func(d string) (err error) {
				figs, err = Figures(d, "svg")
				return err
			}})
			if err != nil {
				t.Fatal(err)
			}
			// The table, without the line naming the temporary directory.
			table := out.String()[:strings.Index(out.String(), "\nwrote ")]
			sum, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "table-"+tc.kind+".txt")
			got := table + "\n--- summary.csv\n" + string(sum)
			if *updateGolden {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("table and summary.csv differ from %s:\n%s", golden, got)
			}
			var names []string
			for _, f := range figs {
				names = append(names, strings.TrimSuffix(filepath.Base(f), ".svg"))
			}
			if strings.Join(names, " ") != strings.Join(tc.figures, " ") {
				t.Errorf("figures %v, want %v", names, tc.figures)
			}
		})
	}
}
