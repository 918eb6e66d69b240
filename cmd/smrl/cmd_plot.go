package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/spf13/cobra"
)

// PlotOptions are the flags of smrl plot.
type PlotOptions struct {
	IO *IOStreams
	// In is the one results directory (--in); Ins every --in given, more
	// than one for an overlay, with their Labels.
	In     string
	Ins    []string
	Labels []string
	Out    string
	Sweep  string
	Format string
	Quiet  bool
	Smooth int
	Seeds  bool
	// SmoothSet and SeedsSet say that --smooth and --seed-lines were
	// given: they then replace the run's plot.smooth and plot.seed_lines.
	SmoothSet, SeedsSet bool
}

// NewCmdPlot returns smrl plot; a non-nil runF is called with the parsed
// options instead of plotRun.
func NewCmdPlot(io *IOStreams, runF func(*PlotOptions) error) *cobra.Command {
	opts := &PlotOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "plot [flags]",
		Short: "Regenerate the figures of a results directory or an estimation sweep",
		Long: `Redraw every figure of a results directory from its CSV files alone (no
re-running): cumulative reward, cumulative regret, count of a = +1 per
episode (95% intervals as bands), |Ŵ − W0|_F per episode, the MDP panel and
the density grid (from config.yaml and each agent's final W of seed 0).
Figures go to DIR/plots/, DIR/report.md embeds them and DIR/report.html
inlines them (one self-contained file); DIR must then be a
directory smrl made. With --out OUT, the figures and the reports go to OUT
(new, empty or smrl's own) and DIR is only read.

A sweep directory (smrl sweep) gets every point's figures and the sweep
figures, redrawn from sweep.csv; with --out, the sweep figures go to OUT and
each point's to OUT/POINT.

With --sweep FILE.csv (from smrl estimate --sweep-n ... --out FILE.csv) it
draws the estimation error against n on log–log axes instead, to --out or
FILE.FORMAT; an existing file there is replaced only if smrl drew it (exit
2 otherwise, before drawing).`,
		Example: `  smrl plot --in results/synthetic
  smrl plot --in results/synthetic --plot-format svg --out /tmp/figs
  smrl plot --in results/a --in results/b --label before --label after --out /tmp/overlay
  smrl plot --sweep sweep.csv --out sweep.png`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.SmoothSet, opts.SeedsSet = cmd.Flags().Changed("smooth"), cmd.Flags().Changed("seed-lines")
			if len(opts.Ins) == 1 {
				opts.In = opts.Ins[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return plotRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Ins, "in", nil, "results directory to plot; repeated (--in A --in B --out DIR), the runs overlaid in one figure per measure")
	f.StringArrayVar(&opts.Labels, "label", nil, "with several --in, the legend `label` of each, in their order (default: the directories' names)")
	f.StringVar(&opts.Sweep, "sweep", "", "estimation sweep CSV to plot instead")
	f.StringVarP(&opts.Out, "out", "o", "", "output directory (results) or file (sweep)")
	f.StringVar(&opts.Format, "plot-format", "png", "figure format: png, svg or pdf")
	f.StringVar(&opts.Format, "format", "png", "figure format (old name of --plot-format)")
	f.MarkHidden("format")
	cmd.RegisterFlagCompletionFunc("plot-format", completeWords("png", "svg", "pdf"))
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "do not list the figures written")
	f.BoolVar(&opts.Seeds, "seed-lines", false, "also draw each seed's values as thin lines under the means (default: the run's plot.seed_lines)")
	f.IntVar(&opts.Smooth, "smooth", 0, "draw return, episode length and plus count as moving averages over `K` episodes, stated in titles and captions (default: the run's plot.smooth)")
	return cmd
}

func plotRun(opts *PlotOptions) error {
	switch opts.Format {
	case "png", "svg", "pdf":
	default:
		return usageErrorf("--plot-format: want png, svg or pdf, got %q", opts.Format)
	}
	if opts.Smooth < 0 || opts.Smooth > 10_000 {
		return usageErrorf("--smooth: want a window of 0 to 10000 episodes, got %d", opts.Smooth)
	}
	if (opts.Smooth != 0 || opts.Seeds) && opts.Sweep != "" {
		return usageErrorf("--smooth and --seed-lines apply to the figures of a results directory (--in), not --sweep")
	}
	if len(opts.Ins) > 1 || len(opts.Labels) > 0 {
		return overlayRun(opts)
	}
	if (opts.In == "") == (opts.Sweep == "") {
		return usageErrorf("give exactly one of --in DIR and --sweep FILE.csv")
	}
	if opts.Sweep != "" {
		out := opts.Out
		if out == "" {
			out = strings.TrimSuffix(opts.Sweep, filepath.Ext(opts.Sweep)) + "." + opts.Format
		}
		out, err := plotting.SweepFigurePath(out, opts.Format)
		if err != nil {
			return err
		}
		// smrl replaces only a figure it drew: checked before reading.
		flag := "--out"
		if opts.Out == "" {
			flag = "the sweep figure"
		}
		if err := checkOwnFile(flag, out, outdir.FigureFile(opts.Format)); err != nil {
			return err
		}
		if err := plotting.SweepFigure(opts.Sweep, out, plotting.Options{Format: opts.Format}); err != nil {
			return err
		}
		if !opts.Quiet {
			fmt.Fprintln(opts.IO.Out, out)
		}
		return nil
	}
	plot := func(in, out, format string) ([]string, error) {
		fo := experiment.FigureOptions{Format: format}
		if opts.Smooth != 0 || opts.SmoothSet {
			fo.Smooth = &opts.Smooth
		}
		if opts.Seeds || opts.SeedsSet {
			fo.SeedLines = &opts.Seeds
		}
		return experiment.PlotWith(in, out, fo)
	}
	if grid.IsDir(opts.In) {
		if opts.Smooth != 0 || opts.Seeds {
			return usageErrorf("--smooth and --seed-lines apply to the figures of a results directory, not a sweep's")
		}
		plot = experiment.PlotSweep
	}
	figs, err := plot(opts.In, opts.Out, opts.Format)
	for _, f := range figs {
		if !opts.Quiet {
			fmt.Fprintln(opts.IO.Out, f)
		}
	}
	return err
}

// overlayRun is smrl plot with several --in: their overlay into --out.
func overlayRun(opts *PlotOptions) error {
	switch {
	case opts.Sweep != "":
		return usageErrorf("--sweep draws one estimation sweep; several --in overlay results directories: give one or the other")
	case len(opts.Ins) < 2:
		return usageErrorf("--label names the runs of an overlay: give two or more --in")
	case opts.Out == "":
		return usageErrorf("an overlay of %d results directories needs --out DIR (a new directory, or one smrl made)", len(opts.Ins))
	case opts.Seeds:
		return usageErrorf("--seed-lines draws one run's seeds; an overlay draws the runs' means")
	}
	fo := experiment.FigureOptions{Format: opts.Format}
	if opts.SmoothSet {
		fo.Smooth = &opts.Smooth
	}
	figs, err := experiment.PlotOverlay(opts.Ins, opts.Labels, opts.Out, fo)
	if !opts.Quiet {
		for _, f := range figs {
			fmt.Fprintln(opts.IO.Out, f)
		}
	}
	return err
}
