package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/expfam"
	"github.com/spf13/cobra"
)

// IOStreams are the output streams shared by all commands. Commands write
// results to Out and nothing else; errors are returned, and Main prints
// them to ErrOut. Progress and warnings go to ErrOut.
type IOStreams struct {
	Out    io.Writer
	ErrOut io.Writer
}

// Main runs smrl with the command-line arguments args (without the program
// name) and returns the exit code. SIGINT, SIGTERM and SIGHUP (see
// stopSignals) cancel the context of the command (cmd.Context()); a command
// that stops because of it returns an error wrapping errs.ErrInterrupted.
// The trials in flight may finish for --grace; a second signal abandons
// them at once (abandonSignal), and a third terminates the process
// immediately.
func Main(args []string, stdout, stderr io.Writer) ExitCode {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Room for both signals that have a step below: with one slot, a second
	// signal arriving before the goroutine took the first was dropped, and
	// the trials in flight were not abandoned.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals()...)
	defer signal.Stop(sigs)
	abandon := make(chan struct{})
	done := make(chan struct{})
	defer close(done)
	go func() {
		for _, step := range []func(){cancel, func() { close(abandon) }} {
			select {
			case <-sigs:
				step()
			case <-done:
				return
			}
		}
		// The default handling lets a third signal end the process at once.
		signal.Stop(sigs)
	}()
	ctx = context.WithValue(ctx, abandonKey{}, (<-chan struct{})(abandon))
	return execute(ctx, newRootCmd(&IOStreams{Out: stdout, ErrOut: stderr}), args, stdout, stderr)
}

// stopSignals are the signals that interrupt a command: SIGINT, SIGTERM,
// and SIGHUP unless the process started with it ignored. SIGHUP (the
// terminal or SSH session closed) would otherwise kill smrl with no resume
// hint; under nohup, which ignores SIGHUP so that the run outlives the
// session, signal.Notify would undo that.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// abandonKey is the context key of the channel that the second signal
// closes.
type abandonKey struct{}

// abandonSignal returns the channel of ctx that a second stop signal
// closes (nil, which never closes, outside Main).
func abandonSignal(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(abandonKey{}).(<-chan struct{})
	return ch
}

// execute runs the command tree root with args, prints an error on stderr
// and returns the exit code.
func execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) (code ExitCode) {
	if args == nil {
		args = []string{} // nil would make cobra read os.Args
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)

	// Any error before a command's Run starts comes from cobra's parsing
	// of the command line (unknown command, bad arguments, required
	// flags): a usage error.
	started := false
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	strictCompletion(root)
	markStart(root, &started)

	// A panic is a bug, never the user's fault: one line, exit 3. Worker
	// goroutines recover their own panics and return them as errors.
	defer func() {
		if r := recover(); r != nil {
			err := errs.Recovered(r)
			printError(stderr, root.CommandPath(), err)
			code = exitCode(err)
		}
	}()
	cmd, err := root.ExecuteContextC(ctx)
	if started {
		// The rows built are valid whatever became of the command.
		if _, serr := expfam.SaveTables(); serr != nil {
			fmt.Fprintf(stderr, "smrl: warning: %v (the run's results are not affected)\n", serr)
		}
	}
	if err == nil {
		return ExitOK
	}
	if !started {
		err = asUsage(errs.Invalid(err))
	}
	path := root.CommandPath()
	if cmd != nil {
		path = cmd.CommandPath()
	}
	printError(stderr, path, err)
	return exitCode(err)
}

// newRootCmd builds the command tree.
func newRootCmd(ios *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "smrl",
		Short: "Score-matching model-based RL experiment runner",
		Long: `smrl reproduces the experiments of "Exponential Family Model-Based
Reinforcement Learning via Score Matching" (NeurIPS 2022).

It learns the transition model P_W(s'|s,a) = q(s') exp(<psi(s'), W phi(s,a)> − Z)
of an MDP by score matching (SMRL), compares it with least squares (LDS) and
maximum likelihood, and runs model-based RL agents (greedy, optimistic and
posterior-sampling) on the paper's synthetic MDP and on CartPole, Pendulum
and MountainCarContinuous, planning with random shooting, CEM or MPPI
(smrl list envs, smrl list planners, smrl list agents).

Experiments are described by YAML configs (--config, repeatable: later files
win); --set KEY=VALUE, SMRL_* environment variables and flags override their
keys (smrl config --sources shows where each value comes from; smrl list
keys lists them). Exit codes: 0 success, 1 failure,
2 bad usage, config or data, 3 internal error (a bug), 130 interrupted.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetVersionTemplate(versionLine() + "\n")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return asUsage(errs.Invalid(plainFlagError(err)))
	})

	var noCache bool
	cmd.PersistentFlags().BoolVar(&noCache, "no-cache", false, "do not read or write the sampling-table cache (in $SMRL_CACHE_DIR, else the user cache directory)")
	cmd.PersistentPreRun = func(*cobra.Command, []string) {
		dir := ""
		if !noCache {
			dir = tableCacheDir(os.Getenv)
		}
		expfam.SetTableCache(dir)
	}

	cmd.SetHelpCommand(newHelpCmd())
	// Subcommands: add new ones here.
	cmd.AddCommand(NewCmdVersion(ios), NewCmdEstimate(ios, nil), NewCmdRun(ios, nil), NewCmdCompare(ios, nil), NewCmdPlot(ios, nil), NewCmdMerge(ios, nil), NewCmdSample(ios, nil), NewCmdSweep(ios, nil), NewCmdConfig(ios, nil), NewCmdList(ios, nil), NewCmdWatch(ios, nil))
	return cmd
}

// tableCacheDir is the directory of the sampling-table cache: SMRL_CACHE_DIR
// when set, else smrl's directory in the user cache directory ("" when there
// is none).
func tableCacheDir(getenv func(string) string) string {
	if d := getenv("SMRL_CACHE_DIR"); d != "" {
		return d
	}
	return expfam.DefaultTableCacheDir()
}

// markStart wraps the Run of cmd and its subcommands so that *started is
// set once a command's own work begins.
func markStart(cmd *cobra.Command, started *bool) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := emptyStringFlag(c); err != nil {
				return err
			}
			*started = true
			return run(c, args)
		}
	} else if run := cmd.Run; run != nil {
		cmd.Run = func(c *cobra.Command, args []string) {
			*started = true
			run(c, args)
		}
	}
	for _, c := range cmd.Commands() {
		markStart(c, started)
	}
}

// newHelpCmd is cobra's help command, except that an unknown topic is a
// usage error (exit 2) rather than a usage text and exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command of smrl: smrl help [path to command].",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			target, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				return usageErrorf("unknown help topic %q (the commands are listed by smrl --help)", strings.Join(args, " "))
			}
			return target.Help()
		},
	}
}

// strictCompletion makes "smrl completion SHELL" with an unknown shell a
// usage error (exit 2). cobra's completion command has no Run of its own,
// so it would print its help and exit 0; once it is runnable, cobra checks
// its arguments against its subcommands (bash, zsh, fish, powershell).
func strictCompletion(root *cobra.Command) {
	for _, c := range root.Commands() {
		if c.Name() == "completion" && c.Run == nil && c.RunE == nil {
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
	}
}
