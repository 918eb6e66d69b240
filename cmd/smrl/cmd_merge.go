package main

import (
	"context"
	"os"

	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/spf13/cobra"
)

// MergeOptions are the flags of smrl merge.
type MergeOptions struct {
	IO        *IOStreams
	Dirs      []string
	Out       string
	Overwrite bool
	NoPlots   bool
	Quiet     bool
	Format    string
	LogFormat string
}

// NewCmdMerge returns smrl merge; a non-nil runF is called with the parsed
// options instead of mergeRun.
func NewCmdMerge(io *IOStreams, runF func(*MergeOptions) error) *cobra.Command {
	opts := &MergeOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "merge DIR... --out DIR",
		Short: "Merge the results directories of a sharded run",
		Long: `Combine the results directories written by the shards of one run
(smrl run --shard i/n, or a Kubernetes Indexed Job or Slurm array) into one
directory with the same episodes.csv, summary.csv and figures a single-machine
run writes. The shards must share one config (up to workers) and together
hold every (agent, seed) trial exactly once; merge names what is missing or
duplicated otherwise. The shards of a sweep (smrl sweep --shard) merge the
same way, point by point, into the sweep directory. A --out that holds
completed results (a run's episodes.csv, a sweep's sweep.csv) is refused
unless --overwrite.`,
		Example: `  smrl merge results/synthetic/shard-*-of-4 --out results/synthetic`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dirs = args
			if runF != nil {
				return runF(opts)
			}
			return mergeRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Out, "out", "o", "", "merged results directory")
	f.BoolVar(&opts.Overwrite, "overwrite", false, "replace the completed results in --out (without it a merge there is refused)")
	f.BoolVar(&opts.NoPlots, "no-plots", false, "do not draw figures")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no table and no log records")
	f.StringVar(&opts.Format, "plot-format", "png", "figure format: png, svg or pdf")
	f.StringVar(&opts.LogFormat, "log-format", "text", "log records on stderr: text or json")
	return cmd
}

func mergeRun(ctx context.Context, opts *MergeOptions) error {
	if opts.Out == "" {
		return usageErrorf("merge needs --out DIR")
	}
	switch opts.Format {
	case "png", "svg", "pdf":
	default:
		return usageErrorf("--plot-format: want png, svg or pdf, got %q", opts.Format)
	}
	eo := experiment.Options{OutDir: opts.Out, Overwrite: opts.Overwrite, CommandLine: append([]string{"smrl"}, os.Args[1:]...),
		Version: versionString(), Commit: vcsRevision(), Warn: opts.IO.ErrOut}
	if !opts.Quiet {
		eo.Stdout = opts.IO.Out
		eo.Log = newLogger(opts.IO.ErrOut, opts.LogFormat)
	}
	if !opts.NoPlots {
		eo.Plot = drawFigures(opts.IO, opts.Format, opts.Quiet)
	}
	sweeps := 0
	for _, d := range opts.Dirs {
		if grid.IsDir(d) {
			sweeps++
		}
	}
	switch sweeps {
	case 0:
		return experiment.Merge(ctx, opts.Dirs, eo)
	case len(opts.Dirs):
		if eo.Plot != nil {
			eo.Plot = drawFigures(opts.IO, opts.Format, true) // one line for all points, from the sweep
		}
		return experiment.MergeSweep(ctx, opts.Dirs, experiment.SweepOptions{Options: eo, Format: opts.Format})
	}
	return usageErrorf("merge: give the shards of one run or of one sweep, not both (%d of the %d directories hold a %s)", sweeps, len(opts.Dirs), grid.ManifestFile)
}
