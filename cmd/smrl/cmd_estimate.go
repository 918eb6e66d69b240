package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/dataset"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimate"
	"github.com/smrl-dev/smrl/internal/estimator"
	"github.com/smrl-dev/smrl/internal/experiment"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/spf13/cobra"
)

// EstimateOptions are the flags of smrl estimate.
type EstimateOptions struct {
	IO  *IOStreams
	Cmd *cobra.Command // for loadConfig

	Config    ConfigFlags
	DataPath  string
	Quiet     bool
	Methods   []string
	Format    string
	Out       string
	NoPlots   bool
	Plot      string
	MLESE     string // information or sandwich
	SE        string // compute or none
	HC1       bool
	Where     []string
	SaveModel string
	Model     string

	// Which flags were given, for the checks of flag combinations.
	NSet, RepeatsSet, SweepNSet bool
}

// estimateKeys maps config keys to the flags of smrl estimate.
var estimateKeys = map[string]string{
	"estimate.n":       "n",
	"estimate.repeats": "repeats",
	"estimate.sweep_n": "sweep-n",
	"lambda":           "lambda",
	"seed":             "seed",
	"workers":          "workers",
}

// NewCmdEstimate returns smrl estimate; a non-nil runF is called with the
// parsed options instead of estimateRun.
func NewCmdEstimate(io *IOStreams, runF func(*EstimateOptions) error) *cobra.Command {
	opts := &EstimateOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "estimate [flags]",
		Short: "Estimate W from transitions with score matching, least squares and MLE",
		Long: `Estimate the parameter W of the configured transition family
P_W(s'|s,a) = q(s') exp(<psi(s'), W phi(s,a)> − Z) from transitions, with
score matching (sm), ridge least squares (lds) and maximum likelihood (mle),
and report each estimate with its standard errors (se: sandwich for sm and
lds, the inverse observed information for mle unless --mle-se sandwich; JSON
also gives the 95% Wald intervals Ŵ ∓ 1.96 se), its distance |Ŵ − W0|_F from
the true W0 and the time it took. Score matching is weighted where the
family needs it (the relu kink with model.kink weighted, bounded supports),
and the output names its weight; sm-kernel and sm-plain are its kernel and
unweighted variants.

--lambda cv chooses λ from the grid cv.grid by cv.folds-fold held-out
score-matching loss (contiguous folds of the data in order) and prints the
loss of every λ before the estimates (JSON: cv and lambda).

The transitions come from --data, a CSV file with header s,a,s_next (or
s0,…,a0,…,s_next0,… for more dimensions), or the transitions.csv(.gz) of
smrl run --save-transitions (whose rows --where selects by agent, seed and
episode), or are drawn from the config's
true model: estimate.n i.i.d. transitions with s ~ Unif[init_low, init_high],
a uniform over env.actions and s' ~ P_W0(·|s,a). |Ŵ − W0|_F is reported only
for drawn data.

With --sweep-n or --out, smrl estimate sweeps the sample size instead: for
every n of estimate.sweep_n and every repeat it draws fresh data, fits every
method and writes the rows method,n,repeat,frobenius_error to the CSV file
--out (with the held-out log-likelihood of each fit on 1000 fresh transitions,
and each method's relative efficiency against mle, MSE_mle / MSE, per n), then
prints the fitted slope of log mean error on log n and the relative
efficiencies.
The file does not depend on the number of workers. The figure of the error
against n (log–log, with a 1/sqrt(n) guide) is written next to it as
FILE.png, and the diagnostics (relative efficiency and held-out
log-likelihood against n) as FILE-diagnostics.png, unless --no-plots.

smrl replaces the files at --out, FILE.png and --plot only when it wrote
them (a sweep CSV by its header, a figure by the mark smrl puts in every
figure), so running a command again works; any other existing file there
is refused with exit 2 before any work.

--n, --lambda, --seed, --repeats, --sweep-n and --workers override the config
keys estimate.n, lambda, seed, estimate.repeats, estimate.sweep_n and workers
(also settable as SMRL_ESTIMATE_N, SMRL_LAMBDA, ...).`,
		Example: `  smrl estimate --n 2000
  smrl estimate --n 2000 --lambda cv
  smrl estimate --data transitions.csv --method sm,lds --format json
  smrl estimate --config configs/quick.yaml --data results/quick/transitions.csv --where agent=sm,seed=0
  smrl estimate --sweep-n 100,1000,10000 --repeats 20 --out sweep.csv
  smrl estimate --n 1000 --plot densities.png`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cmd = cmd
			f := cmd.Flags()
			opts.NSet = f.Changed("n")
			opts.RepeatsSet = f.Changed("repeats")
			opts.SweepNSet = f.Changed("sweep-n")
			if runF != nil {
				return runF(opts)
			}
			return estimateRun(opts)
		},
	}
	f := cmd.Flags()
	addConfigFlags(cmd, &opts.Config, true)
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "print no \"wrote ...\" lines (the estimates of --format are still printed)")
	f.StringVar(&opts.DataPath, "data", "", "CSV `FILE` of transitions (default: draw them from the config's true model)")
	f.Int("n", 0, "number of transitions to draw (config estimate.n, default 1000)")
	f.StringSliceVar(&opts.Methods, "method", nil, estimate.MethodsHelp())
	f.String("lambda", "", "ridge regularisation λ >= 0, or cv to choose it on cv.grid by cv.folds-fold held-out score-matching loss (config lambda, default 1e-4)")
	f.StringVar(&opts.MLESE, "mle-se", "information", "standard errors of mle: information (inverse observed Fisher) or sandwich")
	f.StringVar(&opts.SE, "se", "compute", "standard errors: compute (the sandwich, or --mle-se) or none (skip them and their second pass over the data; se_kind none)")
	f.BoolVar(&opts.HC1, "hc1", false, "multiply sandwich variances by n/(n − d) (HC1; default HC0, no small-sample factor)")
	f.Uint64("seed", 0, "master seed of the drawn data (config seed, default 1)")
	f.StringVar(&opts.Format, "format", "table", "output format of the estimates (not of figures): table or json")
	cmd.RegisterFlagCompletionFunc("format", completeWords("table", "json"))
	cmd.RegisterFlagCompletionFunc("se", completeWords("compute", "none"))
	cmd.RegisterFlagCompletionFunc("method", completeWords(estimate.DefaultMethods()...))
	f.IntSlice("sweep-n", nil, "sweep these sample `sizes` (config estimate.sweep_n); needs --out")
	f.Int("repeats", 0, "data sets per size in a sweep (config estimate.repeats, default 20)")
	f.StringVar(&opts.Out, "out", "", "write the sweep's errors to this CSV `FILE` (runs a sweep)")
	f.Int("workers", 0, "parallel sweep jobs; 0 = all cores (config workers)")
	f.BoolVar(&opts.NoPlots, "no-plots", false, "in a sweep, do not draw the error-vs-n figure next to the CSV")
	f.StringSliceVar(&opts.Where, "where", nil, "with --data from smrl run --save-transitions, use only these rows: `agent=NAME,seed=N[-M],episodes=N[-M]`")
	f.StringVar(&opts.SaveModel, "save-model", "", "write the fitted models (family, features, W, λ, n and the config) to this JSON `FILE`")
	f.StringVar(&opts.Model, "model", "", "evaluate the models of this `FILE` (from --save-model) on --data: held-out score-matching loss and log-likelihood")
	cmd.RegisterFlagCompletionFunc("where", completeWhere)
	cmd.RegisterFlagCompletionFunc("data", completeFileExt("csv", "gz"))
	cmd.RegisterFlagCompletionFunc("save-model", completeFileExt("json"))
	cmd.RegisterFlagCompletionFunc("model", completeFileExt("json"))
	f.StringVar(&opts.Plot, "plot", "", "draw the true and estimated densities P(s'|s, a=±1) for 15 states to this `FILE` (.png, .svg or .pdf; 1-D state and action)")
	return cmd
}

// completeWhere completes --where terms (comma-separated): the keys of a
// filter (dataset.ParseFilter) followed by "=", and after agent= the agent
// names.
func completeWhere(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	prefix, term := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		prefix, term = toComplete[:i+1], toComplete[i+1:]
	}
	var out []cobra.Completion
	if name, ok := strings.CutPrefix(term, "agent="); ok {
		for _, a := range config.Names("agents") {
			if strings.HasPrefix(a, name) {
				out = append(out, prefix+"agent="+a)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	for _, k := range []string{"agent=", "seed=", "episodes="} {
		if strings.HasPrefix(k, term) && !strings.Contains(prefix, k) {
			out = append(out, prefix+k)
		}
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// completeFileExt completes a file flag with files of these extensions.
func completeFileExt(exts ...string) func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return exts, cobra.ShellCompDirectiveFilterFileExt
	}
}

// estimateRun does the work of smrl estimate: it checks the flags, then
// runs one of its modes, each a function of its own: scoring saved models
// (evaluateModel, --model), the sweep over n (estimateSweep, --sweep-n or
// --out), or one fit of transitions drawn from the true model or read
// from --data (estimateFit). Output is written only once everything
// succeeded.
func estimateRun(opts *EstimateOptions) error {
	methods, filter, err := checkEstimateFlags(opts)
	if err != nil {
		return err
	}
	if opts.Model != "" {
		return evaluateModel(opts, filter)
	}
	if opts.SaveModel != "" {
		if opts.isSweep() {
			return usageErrorf("--save-model applies to one fit, not a sweep")
		}
		if err := checkOutFile("--save-model", opts.SaveModel); err != nil {
			return err
		}
		if err := checkOwnFile("--save-model", opts.SaveModel, modelFileKind); err != nil {
			return err
		}
	}
	// estimate runs no agent: the agents of a config, and what only they
	// need, are not its business.
	copt, err := opts.Config.options()
	if err != nil {
		return err
	}
	copt.IgnoreAgents = true
	// Fitted to data, W has no truth: env.w0 may be left out.
	copt.NoTrueW = opts.DataPath != ""
	c, err := loadConfigOpts(opts.Cmd, copt, estimateKeys)
	if err != nil {
		return err
	}
	if opts.isSweep() {
		return estimateSweep(opts, c, methods)
	}
	return estimateFit(opts, c, methods, filter)
}

// isSweep reports whether the flags ask for the sweep over n.
func (opts *EstimateOptions) isSweep() bool { return opts.SweepNSet || opts.Out != "" }

// checkEstimateFlags checks the values of the flags and their
// combinations, which need no config, and returns the methods and the
// --where filter.
func checkEstimateFlags(opts *EstimateOptions) ([]string, dataset.Filter, error) {
	if opts.Format != "table" && opts.Format != "json" {
		return nil, dataset.Filter{}, usageErrorf("unknown --format %q (known: table, json)", opts.Format)
	}
	if f := opts.Cmd.Flags().Lookup("lambda"); f != nil && f.Changed && f.Value.String() != config.LambdaCVWord {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f.Value.String()), 64); err != nil {
			return nil, dataset.Filter{}, usageErrorf("--lambda: want a number >= 0 or %s, got %q", config.LambdaCVWord, f.Value.String())
		}
	}
	if opts.MLESE != "information" && opts.MLESE != "sandwich" {
		return nil, dataset.Filter{}, usageErrorf("unknown --mle-se %q (known: information, sandwich)", opts.MLESE)
	}
	if opts.SE != "compute" && opts.SE != "none" {
		return nil, dataset.Filter{}, usageErrorf("unknown --se %q (known: compute, none)", opts.SE)
	}
	methods, err := estimate.ParseMethods(opts.Methods)
	if err != nil {
		return nil, dataset.Filter{}, asUsage(fmt.Errorf("--method: %w", err))
	}
	sweep := opts.isSweep()
	switch {
	case opts.SweepNSet && opts.Out == "":
		return nil, dataset.Filter{}, usageErrorf("--sweep-n needs --out FILE for the CSV of errors")
	case sweep && opts.DataPath != "":
		return nil, dataset.Filter{}, usageErrorf("a sweep (--sweep-n, --out) draws its own data and cannot use --data")
	case sweep && opts.NSet:
		return nil, dataset.Filter{}, usageErrorf("--n does not apply to a sweep; give the sizes with --sweep-n")
	case !sweep && opts.RepeatsSet:
		return nil, dataset.Filter{}, usageErrorf("--repeats applies to a sweep only (--sweep-n and --out)")
	case opts.DataPath != "" && opts.NSet:
		return nil, dataset.Filter{}, usageErrorf("--n does not apply to --data: every transition of the file is used")
	case len(opts.Where) > 0 && opts.DataPath == "":
		return nil, dataset.Filter{}, usageErrorf("--where selects rows of --data FILE; give the file")
	}
	filter, err := dataset.ParseFilter(opts.Where)
	if err != nil {
		return nil, dataset.Filter{}, asUsage(fmt.Errorf("--where: %w", err))
	}
	return methods, filter, nil
}

// estimateSweep is smrl estimate --sweep-n/--out: the errors of every
// method over the sample sizes, written to --out with its summary line,
// then the error-vs-n and diagnostics figures unless --no-plots.
func estimateSweep(opts *EstimateOptions, c *config.Config, methods []string) error {
	fig, diag, err := checkSweepTargets(opts)
	if err != nil {
		return err
	}
	rows, err := estimate.Sweep(opts.Cmd.Context(), c, estimate.SweepOptions{Methods: methods, Progress: opts.IO.ErrOut})
	if err != nil {
		return lambdaHint(err)
	}
	if err := estimate.WriteSweep(opts.Out, rows); err != nil {
		return err
	}
	out := opts.IO.Out
	if opts.Quiet {
		out = io.Discard
	}
	sizes := len(rows) / len(methods) / c.Estimate.Repeats
	if _, err := fmt.Fprintf(out, "wrote %s (%d methods × %d sizes × %d repeats); slope of log mean |W−W0|_F on log n: %s\n",
		opts.Out, len(methods), sizes, c.Estimate.Repeats, sweepSlopes(rows)); err != nil {
		return err
	}
	if opts.NoPlots {
		return nil
	}
	if err := plotting.SweepFigure(opts.Out, fig, plotting.Options{}); err != nil {
		return fmt.Errorf("drawing %s: %w", fig, err)
	}
	wrote, err := plotting.SweepDiagnosticsFigure(opts.Out, diag, plotting.Options{})
	if err != nil {
		return fmt.Errorf("drawing %s: %w", diag, err)
	}
	if !wrote {
		_, err = fmt.Fprintf(out, "wrote %s\n", fig)
		return err
	}
	_, err = fmt.Fprintf(out, "wrote %s and %s\n", fig, diag)
	return err
}

// checkSweepTargets refuses, before the sweep, which may take minutes, a
// bad --out or a file of the user's at --out or at the figures' paths,
// which it returns (FILE.png and FILE-diagnostics.png).
func checkSweepTargets(opts *EstimateOptions) (fig, diag string, err error) {
	fig = strings.TrimSuffix(opts.Out, filepath.Ext(opts.Out)) + ".png"
	if !opts.NoPlots && fig == opts.Out {
		return "", "", usageErrorf("--out %s: the error-vs-n figure would be written over the CSV; give a .csv file, or --no-plots", opts.Out)
	}
	if err := checkOutFile("--out", opts.Out); err != nil {
		return "", "", err
	}
	if err := checkOwnFile("--out", opts.Out, outdir.CSVFile(estimate.SweepHeader)); err != nil {
		// a sweep file of an earlier smrl is smrl's too
		if checkOwnFile("--out", opts.Out, outdir.CSVFile(estimate.SweepHeaderV1)) != nil {
			return "", "", err
		}
	}
	diag = strings.TrimSuffix(opts.Out, filepath.Ext(opts.Out)) + "-diagnostics.png"
	if !opts.NoPlots {
		if err := checkOwnFile("the error-vs-n figure", fig, outdir.FigureFile("png")); err != nil {
			return "", "", err
		}
		if err := checkOwnFile("the diagnostics figure", diag, outdir.FigureFile("png")); err != nil {
			return "", "", err
		}
	}
	return fig, diag, nil
}

// sweepSlopes is the sweep's summary: each method's slope of log mean
// error on log n, then the relative efficiencies against mle.
func sweepSlopes(rows []estimate.SweepRow) string {
	var parts []string
	for _, s := range estimate.Slopes(rows) {
		if s.OK {
			parts = append(parts, fmt.Sprintf("%s %.3f", s.Method, s.Slope))
		} else {
			parts = append(parts, s.Method+" n/a")
		}
	}
	if eff := estimate.Efficiencies(rows); eff != "" {
		parts[len(parts)-1] += "; relative efficiency vs mle (MSE_mle/MSE) by n: " + eff
	}
	return strings.Join(parts, ", ")
}

// estimateFit is smrl estimate without --model or a sweep: one fit of
// every method on transitions drawn from the true model, or read from
// --data (estimate.Run takes either), then the --plot figure, the
// --save-model file and the estimates in --format.
func estimateFit(opts *EstimateOptions, c *config.Config, methods []string, filter dataset.Filter) error {
	dens, err := checkDensityPlot(opts, c)
	if err != nil {
		return err
	}
	if len(opts.Methods) == 0 {
		methods = nil // the defaults, as Run knows them (a kernel family's: sm alone)
	}
	res, err := estimate.Run(opts.Cmd.Context(), c, estimate.Options{Methods: methods, Data: opts.DataPath, Filter: filter, Progress: opts.IO.ErrOut,
		SE: estimate.SEOptions{MLESandwich: opts.MLESE == "sandwich", HC1: opts.HC1, None: opts.SE == "none"}})
	if err != nil {
		return lambdaHint(err)
	}
	if opts.Plot != "" {
		draw := drawDensities
		if dens == nil { // the kernel family bound to the data (checkDensityPlot)
			draw = drawKernelDensities
		}
		if err := draw(opts.Plot, res, dens); err != nil {
			return err
		}
	}
	// The estimates are encoded before the model is written, so that an
	// estimate the format cannot encode fails before any file exists.
	var b bytes.Buffer
	if opts.Format == "json" {
		err = res.WriteJSON(&b)
	} else {
		err = res.WriteTable(&b)
	}
	if err != nil {
		return err
	}
	if opts.SaveModel != "" {
		mf, err := estimate.ModelOf(res, c)
		if err != nil {
			return err
		}
		if err := estimate.WriteModel(opts.SaveModel, mf); err != nil {
			return err
		}
	}
	_, err = opts.IO.Out.Write(b.Bytes())
	return err
}

// checkDensityPlot checks --plot before estimating, so that a bad one
// wastes no work, and returns the true densities it draws (nil without
// --plot).
func checkDensityPlot(opts *EstimateOptions, c *config.Config) (plotting.DensitySource, error) {
	if opts.Plot == "" {
		return nil, nil
	}
	switch filepath.Ext(opts.Plot) {
	case ".png", ".svg", ".pdf":
	default:
		return nil, usageErrorf("--plot %s: want a .png, .svg or .pdf file", opts.Plot)
	}
	if err := checkOutFile("--plot", opts.Plot); err != nil {
		return nil, err
	}
	if err := checkOwnFile("--plot", opts.Plot, outdir.FigureFile(strings.TrimPrefix(filepath.Ext(opts.Plot), "."))); err != nil {
		return nil, err
	}
	if kernel, err := estimate.KernelPlot(c); kernel || err != nil {
		return nil, err // nil source: drawKernelDensities
	}
	return experiment.NewDensities(c)
}

// drawKernelDensities draws the --plot figure of a kernel family bound
// to the data: at the (s, a) of KernelPanels transitions of the data, the
// learned density of s'_0 beside the histogram of the next states of the
// transitions nearest to it (estimate.KernelDensities).
func drawKernelDensities(path string, res *estimate.Result, _ plotting.DensitySource) error {
	ps, delta, err := res.KernelDensities()
	if err != nil {
		return err
	}
	var panels []plotting.CondPanel
	for _, p := range ps {
		panels = append(panels, plotting.CondPanel{Title: fmt.Sprintf("s = %s, a = %s", shortVec(p.S), shortVec(p.A)), X: p.X, Density: p.Density, Near: p.Near})
	}
	xLabel, learned := "s'_0", "learned P(s'_0 | s, a)"
	if delta {
		xLabel, learned = "s'_0 − s_0", "learned P(s'_0 − s_0 | s, a)"
	}
	near := fmt.Sprintf("the %d transitions nearest to (s, a) (histogram)", estimate.KernelNear(res.N))
	title := fmt.Sprintf("Kernel family fitted to n = %d transitions: learned density at %d (s, a) of the data", res.N, len(panels))
	if err := plotting.ConditionalDensities(path, title, xLabel, learned, near, panels,
		plotting.Options{Format: strings.TrimPrefix(filepath.Ext(path), ".")}); err != nil {
		return fmt.Errorf("drawing %s: %w", path, err)
	}
	return nil
}

// shortVec formats a short vector for a panel title: up to 3 numbers of
// 3 significant digits, then "…".
func shortVec(v []float64) string {
	var parts []string
	for i, x := range v {
		if i == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%.3g", x))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// drawDensities draws the true densities dens and those of the estimates
// of res to path (--plot), in the format its extension names.
func drawDensities(path string, res *estimate.Result, dens plotting.DensitySource) error {
	ests := map[string][]float64{}
	for _, e := range res.Estimates {
		var w []float64
		for _, row := range e.W {
			w = append(w, row...)
		}
		ests[e.Method] = w
	}
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	title := fmt.Sprintf("Transition densities: true (filled) and estimated from n = %d transitions (lines)", res.N)
	if err := plotting.DensityGrid(path, title, dens, ests, plotting.Options{Format: format}); err != nil {
		return fmt.Errorf("drawing %s: %w", path, err)
	}
	return nil
}

// checkOutFile checks that a file can be written at path (given by flag,
// for the message): path is not a directory, and its directory exists and
// is writable.
func checkOutFile(flag, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErrorf("%s %s is a directory; give the file to write", flag, path)
	}
	if err := outdir.CheckWritable(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return nil
}

// checkOwnFile refuses, before any work, to write the file at path (given
// by flag, for the message) when something is there that smrl did not
// write as a file of kind (outdir.CheckFile): smrl replaces only its own
// files.
func checkOwnFile(flag, path string, kind outdir.FileKind) error {
	if err := outdir.CheckFile(path, kind); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}

// lambdaHint points at --lambda when an estimator failed because of the
// user's choice of λ and data (a singular system, or an MLE without a
// maximiser at λ = 0).
func lambdaHint(err error) error {
	if errors.Is(err, errs.ErrInvalidInput) &&
		(errors.Is(err, estimator.ErrSingular) || errors.Is(err, estimator.ErrNoConvergence)) {
		return &hinted{err, "hint: λ is set by --lambda (config key lambda), e.g. --lambda 1e-4"}
	}
	return err
}

// hinted appends a hint to an error's message, keeping what it wraps.
type hinted struct {
	err  error
	hint string
}

func (h *hinted) Error() string { return h.err.Error() + "; " + h.hint }
func (h *hinted) Unwrap() error { return h.err }

// modelFileKind is the model file smrl estimate --save-model writes.
var modelFileKind = outdir.PrefixFile(estimate.ModelPrefix, "a model file smrl wrote (such a file begins with the JSON text "+strconv.Quote(estimate.ModelPrefix)+")")

// evaluateModel is smrl estimate --model FILE --data DATA: every model of
// FILE scored on the transitions of DATA.
func evaluateModel(opts *EstimateOptions, filter dataset.Filter) error {
	switch {
	case opts.DataPath == "":
		return usageErrorf("--model evaluates the models on --data FILE; give the file")
	case len(opts.Config.Paths) > 0 || len(opts.Config.Set) > 0:
		return usageErrorf("--model takes the config from the model file; drop --config and --set")
	case opts.SaveModel != "" || opts.Plot != "" || opts.Out != "":
		return usageErrorf("--model evaluates saved models; it does not combine with --save-model, --plot or --out")
	}
	mf, c, err := estimate.ReadModel(opts.Model)
	if err != nil {
		return err
	}
	evals, err := estimate.Evaluate(opts.Cmd.Context(), mf, c, opts.DataPath, filter)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if opts.Format == "json" {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(evals); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "method\tn\tSM loss (lower is better)\tlog-likelihood per transition")
		for _, e := range evals {
			ll := "n/a"
			if e.LogLik != nil {
				ll = fmt.Sprintf("%.4g", *e.LogLik)
			}
			if e.LogLikSE != nil {
				ll += fmt.Sprintf(" ± %.2g (%s)", *e.LogLikSE, cmp.Or(e.SEWhat, "importance-sampled log Z"))
			}
			fmt.Fprintf(tw, "%s\t%d\t%.6g\t%s\n", e.Method, e.N, e.SMLoss, ll)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err = opts.IO.Out.Write(b.Bytes())
	return err
}
