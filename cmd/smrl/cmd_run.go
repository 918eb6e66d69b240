package main

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/runner"
	"github.com/spf13/cobra"
)

// RunOptions are the flags of smrl run and smrl compare.
type RunOptions struct {
	IO  *IOStreams
	Cmd *cobra.Command

	Config  ConfigFlags
	Out     string
	NoPlots bool
	Quiet   bool
	Format  string
	// Agents is compare's --agents: the config key agents.
	Agents []string
	// Resume, Shard and ShardCount control interrupted and sharded runs.
	Resume     bool
	Shard      string
	ShardCount int
	LogFormat  string
	// Overwrite lets a fresh run replace completed results in --out;
	// DryRun validates and prints the plan without writing.
	Overwrite bool
	DryRun    bool
	// SaveTransitions is --save-transitions: "" (off), "csv" or "gz".
	SaveTransitions string
	// SaveModels is --save-models.
	SaveModels bool
	// Grace is how long the trials in flight may finish after SIGINT,
	// SIGTERM or SIGHUP.
	Grace time.Duration
}

// DefaultGrace is --grace's default: within the 30 s Kubernetes allows a
// pod between SIGTERM and SIGKILL, with time left to write the journal.
const DefaultGrace = 20 * time.Second

// runKeys maps config keys to the flags shared by run and compare.
var runKeys = map[string]string{
	"episodes": "episodes",
	"seeds":    "seeds",
	"seed":     "seed",
	"workers":  "workers",
	// issue 22: the standard errors of Ŵ per episode.
	"stats.save_se": "save-se",
	// issue 34: Ŵ per episode in w.csv.
	"stats.save_w": "save-w",
	// issue 38: the figures' options, as smrl plot has them.
	"plot.smooth":     "smooth",
	"plot.seed_lines": "seed-lines",
	"init_model":      "init-model",
}

// agentRunKeys are runKeys with --agents (compare and sweep), which sets
// the config key agents: it overrides SMRL_AGENTS and the file only when
// given.
var agentRunKeys = func() map[string]string {
	k := maps.Clone(runKeys)
	k["agents"] = "agents"
	return k
}()

func addRunFlags(cmd *cobra.Command, opts *RunOptions) {
	f := cmd.Flags()
	addConfigFlags(cmd, &opts.Config, true)
	f.StringVarP(&opts.Out, "out", "o", "", "results `DIR`ectory (default results/<config name>)")
	f.Int("episodes", 0, "episodes per trial (config key episodes)")
	f.Int("seeds", 0, "trials per agent (config key seeds)")
	f.Uint64("seed", 0, "master seed (config key seed)")
	f.Int("workers", 0, "parallel trials, 0 = all cores (config key workers)")
	f.String("init-model", "", "model `FILE` (smrl estimate --save-model, smrl run --save-models) whose Ŵ each learner plans with until its first refit (config key init_model)")
	f.Bool("save-se", false, "record the standard errors of Ŵ of the learning agents per episode: columns se_k_j of episodes.csv (config key stats.save_se)")
	f.Bool("save-w", false, "write Ŵ per episode to w.csv instead of episodes.csv (so anyway when d_psi·d_phi > 64; config key stats.save_w)")
	f.Int("smooth", 0, "draw return, episode length and plus count as moving averages over `K` episodes (config key plot.smooth)")
	f.Bool("seed-lines", false, "also draw each seed's values as thin lines under the means (config key plot.seed_lines)")
	f.BoolVar(&opts.NoPlots, "no-plots", false, "do not draw figures")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress lines and no table")
	f.StringVar(&opts.Format, "plot-format", "png", "figure format: png, svg or pdf")
	cmd.RegisterFlagCompletionFunc("plot-format", completeWords("png", "svg", "pdf"))
	f.BoolVar(&opts.Resume, "resume", false, "continue the interrupted run in --out, skipping completed trials")
	f.BoolVar(&opts.Overwrite, "overwrite", false, "replace the completed results in --out (without it a fresh run there is refused)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "validate the config, print the plan (trials, output directory, transitions file) and write nothing")
	f.StringVar(&opts.Shard, "shard", "", "run only shard `i/n` of the trials (default: from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID)")
	f.IntVar(&opts.ShardCount, "shard-count", 0, "number of shards for JOB_COMPLETION_INDEX (or SMRL_SHARD_COUNT)")
	f.StringVar(&opts.LogFormat, "log-format", "text", "log records on stderr: text or json")
	cmd.RegisterFlagCompletionFunc("log-format", completeWords("text", "json"))
	f.DurationVar(&opts.Grace, "grace", DefaultGrace, "after SIGINT, SIGTERM or SIGHUP, let the trials in flight finish for at most this `duration` (0: no limit); a second signal, or the end of it, abandons them (--resume recomputes them)")
	cmd.RegisterFlagCompletionFunc("grace", completeWords(DefaultGrace.String(), "0"))
}

// addAgentsFlag adds --agents (config key agents) with completion.
func addAgentsFlag(cmd *cobra.Command, opts *RunOptions, usage string) {
	cmd.Flags().StringSliceVar(&opts.Agents, "agents", nil, usage+": "+strings.Join(config.Names("agents"), ", "))
	cmd.RegisterFlagCompletionFunc("agents", completeWords(config.Names("agents")...))
}

// NewCmdRun returns smrl run. A non-nil runF is called with the parsed
// options instead of runRun (tests of the flags run no experiment).
func NewCmdRun(io *IOStreams, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "run [flags]",
		Short: "Run the agents of a config over seeded trials",
		Long: `Run every agent listed in the config (key agents) for the configured number
of seeds and episodes on the configured environment (env.kind: the paper's
exponential-family MDP, cartpole, pendulum, mountain-car or their Gymnasium
ids; smrl list envs), planning with the configured planner (planner.kind:
rss, cem or mppi; smrl list planners), and write episodes.csv, summary.csv,
config.yaml (the keys the run uses), metadata.json, figures (plots/),
report.md and report.html into the results directory; with
--save-transitions also every transition played (transitions.csv, or
transitions.csv.gz with --save-transitions=gz), which smrl estimate --data
reads; with --save-models every learning agent's final model
(models/<agent>-seed<k>.json), which smrl estimate --model scores.

A results directory that holds completed results is not replaced: --overwrite
replaces it, --resume continues an interrupted run. --dry-run prints the plan
and writes nothing. SIGINT, SIGTERM or SIGHUP (unless ignored, as under nohup)
stops the run with exit 130: the trials in flight may finish for --grace
(default 20s), a second signal abandons them, and --resume recomputes what
was not journaled.

Trials run in parallel on --workers cores; the CSV files are byte-identical
for any number of workers. Every agent in one seed faces the same initial
states and transition noise, so regret against the oracle is paired.`,
		Example: `  smrl run --config configs/synthetic.yaml
  smrl run --config configs/quick.yaml --out /tmp/quick --no-plots
  smrl run --config configs/quick.yaml --set planner.tau=3 --dry-run
  smrl run --set env.kind=Pendulum-v1 --set planner.kind=mppi --set agents=[oracle] --seeds 1
  SMRL_EPISODES=100 smrl run --config configs/nonlds.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cmd = cmd
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	addRunFlags(cmd, opts)
	addAgentsFlag(cmd, opts, "agents to run (config key agents)")
	addDataFlags(cmd, opts)
	return cmd
}

// NewCmdCompare returns smrl compare; runF as for NewCmdRun.
func NewCmdCompare(io *IOStreams, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "compare [flags]",
		Short: "Compare SM, LDS and the oracle on the paper's experiment",
		Long: `Run score matching (sm), least squares (lds) and the true model (oracle) with
the shared planner, as in the paper's figure "exp-syn-mdp", and print the
final cumulative reward and regret per agent with 95% intervals next to the
paper's values. Without --config it uses the embedded paper config, so

    smrl compare

reproduces the paper's comparison. --agents chooses other agents. Output
files are those of smrl run.`,
		Example: `  smrl compare
  smrl compare --agents sm,mle,lds,oracle --seeds 20
  smrl compare --config configs/synthetic-flipped.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cmd = cmd
			if runF != nil {
				return runF(opts)
			}
			return runRun(opts)
		},
	}
	addRunFlags(cmd, opts)
	addAgentsFlag(cmd, opts, "agents to compare (config key agents; default sm, lds, oracle)")
	addDataFlags(cmd, opts)
	return cmd
}

func runRun(opts *RunOptions) error {
	c, err := opts.loadConfig()
	if err != nil {
		return err
	}
	eo, err := opts.experimentOptions(experiment.DefaultOutDir(c), c.Workers, opts.Quiet)
	if err != nil {
		return err
	}
	eo.ConfigDescription = opts.Config.description()
	return experiment.Run(opts.Cmd.Context(), c, eo)
}

// loadConfig resolves the config of run or compare: the flags' keys, with
// --agents where the command has it.
func (opts *RunOptions) loadConfig() (*config.Config, error) {
	keys := runKeys
	if opts.Cmd.Flags().Lookup("agents") != nil {
		keys = agentRunKeys
	}
	return loadConfig(opts.Cmd, &opts.Config, keys)
}

// addDataFlags adds the flags of run and compare that save data.
func addDataFlags(cmd *cobra.Command, opts *RunOptions) {
	f := cmd.Flags()
	f.StringVar(&opts.SaveTransitions, "save-transitions", "", "write every trial's transitions to transitions.csv in the results directory (=gz: transitions.csv.gz; not with --resume); smrl estimate --data reads it")
	f.Lookup("save-transitions").NoOptDefVal = "csv"
	cmd.RegisterFlagCompletionFunc("save-transitions", completeWords("csv", "gz"))
	f.BoolVar(&opts.SaveModels, "save-models", false, "write every learning agent's final model to models/<agent>-seed<k>.json in the results directory (not with --resume); smrl estimate --model reads it")
}

// experimentOptions checks the flags shared by run, compare and sweep and
// turns them into the runner's options. defaultOut is the results
// directory without --out; plotQuiet silences the figure log.
func (opts *RunOptions) experimentOptions(defaultOut string, workers int, plotQuiet bool) (experiment.Options, error) {
	switch opts.Format {
	case "png", "svg", "pdf":
	default:
		return experiment.Options{}, usageErrorf("--plot-format: want png, svg or pdf, got %q", opts.Format)
	}
	if opts.LogFormat != "text" && opts.LogFormat != "json" {
		return experiment.Options{}, usageErrorf("--log-format: want text or json, got %q", opts.LogFormat)
	}
	if opts.Grace < 0 {
		return experiment.Options{}, usageErrorf("--grace: want a duration >= 0 (e.g. 20s, or 0 for no limit), got %s", opts.Grace)
	}
	shard, err := resolveShard(opts.Shard, opts.ShardCount)
	if err != nil {
		return experiment.Options{}, err
	}
	out := opts.Out
	shardDir := fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count)
	if out == "" {
		out = defaultOut
		if shard.Count > 0 {
			out = filepath.Join(out, shardDir)
		}
	}
	eo := experiment.Options{
		OutDir: out,
		// A shard in the conventional DIR/shard-i-of-n marks DIR, where
		// smrl merge writes, when DIR is new or empty.
		ClaimParent: shard.Count > 0 && filepath.Base(filepath.Clean(out)) == shardDir,
		Workers:     workers,
		CommandLine: append([]string{"smrl"}, os.Args[1:]...),
		Version:     versionString(),
		Commit:      vcsRevision(),
		Resume:      opts.Resume,
		Shard:       shard,
		ResumeHint:  resumeHint(os.Args[1:], opts.Resume),
		Overwrite:   opts.Overwrite,
		DryRun:      opts.DryRun,
		Grace:       opts.Grace,
		Abandon:     abandonSignal(opts.Cmd.Context()),
	}
	if opts.Resume && opts.Overwrite {
		return experiment.Options{}, usageErrorf("--resume continues the run in --out and --overwrite replaces it: give one")
	}
	switch opts.SaveTransitions {
	case "":
	case "csv":
		eo.SaveTransitions = true
	case "gz":
		eo.SaveTransitions, eo.TransitionsGzip = true, true
	default:
		return experiment.Options{}, usageErrorf("--save-transitions: want csv or gz, got %q", opts.SaveTransitions)
	}
	if eo.SaveTransitions && opts.Resume {
		return experiment.Options{}, usageErrorf("--save-transitions cannot be combined with --resume: the transitions of the trials completed before the interruption were not kept; rerun with --overwrite to save them")
	}
	if opts.SaveModels && opts.Resume {
		return experiment.Options{}, usageErrorf("--save-models cannot be combined with --resume: the models of the trials completed before the interruption were not kept; rerun with --overwrite to save them")
	}
	eo.SaveModels = opts.SaveModels
	// Warnings show with --quiet too: they are what the means can hide.
	eo.Warn = opts.IO.ErrOut
	if !opts.Quiet {
		eo.Stdout = opts.IO.Out
		eo.Log = newLogger(opts.IO.ErrOut, opts.LogFormat)
		if opts.LogFormat == "text" && isTerminal(opts.IO.ErrOut) {
			eo.Bar = opts.IO.ErrOut
		}
	}
	if opts.DryRun {
		eo.Stdout, eo.Log, eo.Bar = opts.IO.Out, nil, nil
	}
	if !opts.NoPlots {
		eo.Plot = drawFigures(opts.IO, opts.Format, plotQuiet)
	}
	return eo, nil
}

// resolveShard takes --shard, else the batch-queue environment.
// --shard-count is the count of JOB_COMPLETION_INDEX: without that
// variable (and without --shard) it shards nothing, and is refused rather
// than ignored; beside --shard it must agree with it.
func resolveShard(flag string, count int) (runner.Shard, error) {
	if flag != "" {
		s, err := runner.ParseShard(flag)
		if err == nil && count != 0 && count != s.Count {
			return s, usageErrorf("--shard %s and --shard-count %d disagree: give one of them", flag, count)
		}
		return s, err
	}
	s, ok, err := runner.ShardFromEnv(os.Getenv, count)
	if err == nil && !ok && count != 0 {
		return s, usageErrorf("--shard-count %d needs JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job); to run one shard by hand give --shard INDEX/%d", count, count)
	}
	return s, err
}

// resumeHint is the command line that resumes the run of args (os.Args
// without the program), quoted as report.md records it so that pasting it
// into a shell gives back the same arguments.
func resumeHint(args []string, resuming bool) string {
	line := append([]string{"smrl"}, args...)
	if !resuming {
		line = append(line, "--resume")
	}
	return plotting.ShellJoin(line)
}

// newLogger returns the slog logger of --log-format.
func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// isTerminal reports whether w is a character device (an interactive
// terminal), where a redrawn progress bar makes sense.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// drawFigures returns the figure step of run, compare and merge: every
// figure of the results directory plus report.md.
func drawFigures(io *IOStreams, format string, quiet bool) func(dir string) error {
	return func(dir string) error {
		figs, err := experiment.Figures(dir, format)
		if err == nil && !quiet {
			fmt.Fprintf(io.Out, "wrote %d figures, %s and %s\n", len(figs), filepath.Join(dir, plotting.ReportFile), filepath.Join(dir, plotting.ReportHTMLFile))
		}
		return err
	}
}
