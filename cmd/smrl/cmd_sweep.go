package main

import (
	"os"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/spf13/cobra"
)

// SweepOptions are the flags of smrl sweep: those of run, --agents and the
// grid's --set arguments.
type SweepOptions struct {
	RunOptions
	// Sample > 0 draws that many points at random (random search).
	Sample int
}

// NewCmdSweep returns smrl sweep; a non-nil runF is called with the parsed
// options instead of sweepRun.
func NewCmdSweep(io *IOStreams, runF func(*SweepOptions) error) *cobra.Command {
	opts := &SweepOptions{RunOptions: RunOptions{IO: io}}
	cmd := &cobra.Command{
		Use:   "sweep [flags]",
		Short: "Run a config over a grid of values of its keys",
		Long: `Run the agents of a config at every point of a grid of config values: the
Cartesian product of the values of each swept key, given with --set
KEY=VALUES (repeatable) or in the config file's sweep: section. Values are
V1,V2,... (a list key's values in brackets: env.actions=[1,-1] is one point,
[1,-1],[2,-2] two), lin:FROM:TO:COUNT or
log:FROM:TO:COUNT; keys are config keys as in YAML (planner.tau). The
agents key is swept like any list key: --set agents=[sm,oracle],[lds,oracle]
is two points.

--sample N is random search: N points drawn at random instead of the grid,
a lin: range uniformly from [FROM, TO], a log: range log-uniformly (COUNT
unused), a list of values one of them; drawn from the master seed, so the
same on every machine, shard and resume, and --sample 20 begins with the
points of --sample 10 (a sweep: section's sample: N does the same).

Every (point, agent, seed) trial runs on one worker pool. Each point gets a
results directory of its own under --out (default results/<name>-sweep, so a
sweep never collides with smrl run or compare of the same config), named KEY=VALUE,KEY=VALUE, with
exactly the files smrl run writes for the point's config; sweep.csv holds
one row per point and agent (final cumulative reward and regret with 95%
intervals, regret slope, final return), and the sweep figures plot them
against each key. --resume, --shard (or the Kubernetes and Slurm array
variables), --grace and smrl merge work as for smrl run. --save-models
writes each point's learned models as smrl run does.`,
		Example: `  smrl sweep --config configs/ablation-tau-rollouts.yaml
  smrl sweep --set planner.tau=1,3,5 --set planner.n_rollouts=10,100 --seeds 10
  smrl sweep --config configs/quick.yaml --set lambda=log:1e-6:1e-2:5 --out /tmp/lambda
  smrl sweep --config configs/quick.yaml --set lambda=log:1e-4:1:2 --set planner.tau=lin:2:8:2 --sample 6
  smrl sweep --config configs/quick.yaml --set 'agents=[sm,oracle],[lds,oracle]' --set planner.tau=2,5`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cmd = cmd
			if runF != nil {
				return runF(opts)
			}
			return sweepRun(opts)
		},
	}
	addRunFlags(cmd, &opts.RunOptions)
	// sweep's --set is the grid: one value or several per key.
	cmd.Flags().Lookup("set").Usage = "sweep a config key: `KEY=VALUES` (V1,V2,..., lin:FROM:TO:COUNT or log:FROM:TO:COUNT; one value sets the key at every point); repeatable"
	addAgentsFlag(cmd, &opts.RunOptions, "agents to run at every point (config key agents)")
	cmd.Flags().IntVar(&opts.Sample, "sample", 0, "random search: draw `N` points from the swept ranges and values (seeded by seed) instead of the grid")
	cmd.Flags().BoolVar(&opts.SaveModels, "save-models", false, "write every learning agent's final model to models/<agent>-seed<k>.json in each point's directory (not with --resume or --shard); smrl estimate --model reads it")
	return cmd
}

func sweepRun(opts *SweepOptions) error {
	flags, err := configFlags(opts.Cmd, agentRunKeys)
	if err != nil {
		return err
	}
	opt := config.Options{Flags: flags, Environ: os.Environ(), Warn: warner(opts.Cmd)}
	if p := opts.Config.Paths; len(p) > 0 {
		opt.Path, opt.Paths = p[0], p[1:]
	}
	if opts.Sample < 0 || opts.Sample > grid.MaxPoints {
		return usageErrorf("--sample %d: want 1 to %d points (0: the grid)", opts.Sample, grid.MaxPoints)
	}
	s, err := grid.LoadSample(opts.Cmd.Context(), opt, opts.Config.Set, opts.Sample)
	if err != nil {
		return err
	}
	// Figures are drawn once for all points, from the sweep.
	eo, err := opts.experimentOptions(sweepOutDir(experiment.DefaultOutDir(s.Base)), s.Base.Workers, true)
	if err != nil {
		return err
	}
	so := experiment.SweepOptions{Format: opts.Format, Options: eo}
	return experiment.RunSweep(opts.Cmd.Context(), s, so)
}
