package main

import (
	"context"
	"path/filepath"
	"time"

	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/watch"
	"github.com/spf13/cobra"
)

// WatchOptions are the flags of smrl watch.
type WatchOptions struct {
	IO       *IOStreams
	Dir      string
	Interval time.Duration
	Once     bool
	PNG      string
	Width    int
	Height   int
}

// NewCmdWatch returns smrl watch; a non-nil runF is called with the parsed
// options instead of watchRun.
func NewCmdWatch(io *IOStreams, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "watch DIR",
		Short: "Show the learning curves of a run while it goes on",
		Long: `Redraw, every --interval, the learning curves of the run (or sweep) writing
into DIR: a text chart of the mean return per episode of every agent, over
the seeds that have finished the episode, read from DIR/metrics.jsonl (a
sweep: every point's), with the episodes done, the time elapsed and an ETA
from the measured episode times. It stops when the run's metadata.json says
it is done (or the run was interrupted), or on Ctrl-C. --once draws once and
exits; --png DIR writes the figure DIR/live-return.png (one per point of a
sweep) at every redraw instead of or beside the chart. smrl watch only
reads DIR.`,
		Example: `  smrl run --config configs/pendulum.yaml --out results/pendulum &
  smrl watch results/pendulum
  smrl watch results/pendulum --once --png /tmp/live`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = args[0]
			if runF != nil {
				return runF(opts)
			}
			return watchRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&opts.Interval, "interval", 2*time.Second, "time between redraws")
	f.BoolVar(&opts.Once, "once", false, "draw once and exit")
	f.StringVar(&opts.PNG, "png", "", "also write the live figure(s) into this directory (new, empty or smrl's own)")
	f.IntVar(&opts.Width, "width", 64, "chart width in characters")
	f.IntVar(&opts.Height, "height", 12, "chart height in lines")
	return cmd
}

func watchRun(ctx context.Context, opts *WatchOptions) error {
	if opts.Interval <= 0 && !opts.Once {
		return usageErrorf("--interval %v: want a positive duration", opts.Interval)
	}
	if opts.Width < 8 || opts.Width > 1000 || opts.Height < 3 || opts.Height > 200 {
		return usageErrorf("--width %d, --height %d: want 8 to 1000 characters and 3 to 200 lines", opts.Width, opts.Height)
	}
	wo := watch.Options{Interval: opts.Interval, Once: opts.Once, Out: opts.IO.Out, Clear: !opts.Once && isTerminal(opts.IO.Out),
		Width: opts.Width, Height: opts.Height}
	if opts.PNG != "" {
		if err := outdir.Claim(opts.PNG); err != nil {
			return err
		}
		wo.Figures = func(s *watch.Snapshot) error { return liveFigures(opts.PNG, s) }
	}
	return watch.Watch(ctx, opts.Dir, wo)
}

// liveFigures writes the live figure of every results directory of s
// that has finished an episode into dir.
func liveFigures(dir string, s *watch.Snapshot) error {
	for _, r := range s.Runs {
		if len(r.Curves) == 0 {
			continue
		}
		name, title := "live-return.png", filepath.Base(filepath.Clean(s.Dir))
		if r.Name != "" {
			name, title = "live-return-"+r.Name+".png", r.Name
		}
		if err := plotting.LiveReturn(filepath.Join(dir, name), title, r.Curves, r.Episodes, plotting.Options{}); err != nil {
			return err
		}
	}
	return nil
}
