// Package experiment runs a configured experiment end to end:
// config → MDP → trials on a worker pool → results files → table → figures.
package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/smrl-dev/smrl/internal/agent"
	"github.com/smrl-dev/smrl/internal/aggregate"
	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/estimate"
	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/plotting"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// Options controls one run.
type Options struct {
	OutDir      string // results directory; created if missing, else it must be empty or smrl's own
	Workers     int    // parallel trials; <= 0 means all cores
	Stdout      io.Writer
	CommandLine []string
	Version     string
	Commit      string
	// Resume continues the run in OutDir: completed trials of its journal
	// are kept, the config must be the same.
	Resume bool
	// Shard restricts the run to a subset of the trials (Count 0: all).
	Shard runner.Shard
	// Log receives progress and status records; nil for none.
	Log *slog.Logger
	// Bar, when not nil, shows a progress bar there (a terminal) instead of
	// progress log records.
	Bar io.Writer
	// Plot, when not nil, draws the figures of the finished directory.
	Plot func(dir string) error
	// ResumeHint is the command line that resumes this run, printed when it
	// is interrupted.
	ResumeHint string
	// Grace bounds how long the trials in flight run on after ctx is
	// cancelled (0: until they finish); closing Abandon ends them at once.
	// Abandoned trials are not journaled: a resume recomputes them.
	Grace   time.Duration
	Abandon <-chan struct{}
	// ClaimParent claims OutDir's parent directory too (outdir.Claim) when
	// it is new or empty: the directory results/<name>/ of a shard's
	// results/<name>/shard-i-of-n/, into which smrl merge later writes.
	ClaimParent bool
	// Overwrite lets a fresh run replace the completed results in OutDir;
	// without it (and without Resume) such a directory is refused.
	Overwrite bool
	// DryRun validates and plans the run and writes nothing: Run makes the
	// read-only checks of OutDir the run makes (refusing what it would
	// refuse, with its error), prints the plan to Stdout and returns.
	DryRun bool
	// ConfigDescription describes the config (config.Description), for
	// metadata.json and the report.
	ConfigDescription string
	// SaveTransitions writes every trial's transitions to transitions.csv
	// (transitions.csv.gz with TransitionsGzip).
	SaveTransitions, TransitionsGzip bool
	// Warn, when not nil, receives the run's warnings (results.Warnings),
	// one line each, at its end.
	Warn io.Writer
	// SaveModels writes the learned model of every trial of a learning
	// agent to models/<agent>-seed<k>.json, in the format of smrl estimate
	// --save-model.
	SaveModels bool

	// journaled, when not nil, is called after each trial's journal line is
	// written (tests: an interrupt after exactly n trials, whatever the
	// machine's load).
	journaled func()
}

// journalAppend returns OnTrial's journal write followed by opt.journaled.
func (opt Options) journalAppend(appendTrial func(i int, eps []record.Episode) error) func(int, []record.Episode) error {
	if opt.journaled == nil {
		return appendTrial
	}
	return func(i int, eps []record.Episode) error {
		if err := appendTrial(i, eps); err != nil {
			return err
		}
		opt.journaled()
		return nil
	}
}

// refuseCompleted refuses a fresh run, sweep or merge into dir when dir
// holds the file done, which a completed run (or merge, or sweep) writes
// last: a second one would silently replace its results. resumable says
// whether the command offers --resume, which the message then names.
func refuseCompleted(dir, done string, resumable bool) error {
	if _, err := os.Stat(filepath.Join(dir, done)); err != nil {
		return nil
	}
	return errs.Invalid(fmt.Errorf("%s holds completed results (%s): --overwrite replaces them%s, or write into another --out", dir, done, resumeAlt(resumable)))
}

// refuseJournal refuses a fresh run or a merge into dir when its journal
// holds completed trials: an interrupted run's trials are results too,
// which they would discard. Run and Merge call it under the lock
// (openOutDir), so that a run still writing there is named as one;
// --dry-run calls it unlocked.
func refuseJournal(dir string, resumable bool) error {
	if n := journaledTrials(filepath.Join(dir, results.JournalFile)); n > 0 {
		return errs.Invalid(fmt.Errorf("%s holds %d completed trials of an interrupted run (%s): --overwrite replaces them%s, or write into another --out", dir, n, results.JournalFile, resumeAlt(resumable)))
	}
	return nil
}

// resumeAlt is the alternative --resume offers, for the messages of
// refuseCompleted and refuseJournal.
func resumeAlt(resumable bool) string {
	if resumable {
		return ", --resume continues an interrupted run there"
	}
	return ""
}

// journaledTrials counts the complete lines of the journal at path (0 when
// there is none): each is a completed trial. A last line without newline
// was cut by a kill and is not one.
func journaledTrials(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}

// DefaultOutDir is results/<config name>/.
func DefaultOutDir(c *config.Config) string { return filepath.Join("results", c.Name) }

// IsPaper reports whether c is the paper's experiment (the embedded
// defaults), up to settings that do not change results.
func IsPaper(c *config.Config) bool {
	d, err := config.Defaults() // config.Load(config.Options{}), loaded once
	if err != nil {
		return false
	}
	a, b := *c, *d
	a.Name, b.Name = "", ""
	a.Workers, b.Workers = 0, 0
	a.Agents, b.Agents = config.Names("agents"), config.Names("agents") // compare what any agent reads
	a.Estimate, b.Estimate = config.Estimate{}, config.Estimate{}
	return a.Equal(&b)
}

// openOutDir makes dir the locked output directory of this process: for a
// fresh run it claims dir (creating it, or accepting it when empty or
// smrl's own; see outdir.Claim), for a resume dir must already be smrl's.
// Nothing is written into a refused directory. release drops the lock.
func openOutDir(dir string, resume bool) (release func() error, err error) {
	if err := checkOutDir(dir, resume); err != nil {
		return nil, err
	}
	if !resume {
		if err := outdir.Claim(dir); err != nil {
			return nil, err
		}
	}
	release, err = outdir.Lock(dir)
	if err != nil {
		return nil, err
	}
	if err := outdir.CheckWritable(dir); err != nil {
		release()
		return nil, err
	}
	if err := outdir.CheckNoLinks(dir, linkedEntries...); err != nil {
		release()
		return nil, err
	}
	removeStaleTemps(dir)
	return release, nil
}

// checkOutDir refuses, writing nothing, the directory dir that openOutDir
// refuses before it claims or locks it: for a fresh run one outdir.Claim
// refuses, for a resume one that is not smrl's; and in either, a journal,
// plots/ or models/ that is a symbolic link. --dry-run runs it in place of
// openOutDir, so that it refuses what the run would, with its message.
func checkOutDir(dir string, resume bool) error {
	if resume {
		if !outdir.Owned(dir) {
			if _, err := os.Stat(filepath.Join(dir, results.ConfigFile)); err != nil {
				return errs.Invalid(fmt.Errorf("--resume: %s not found: nothing to resume there", filepath.Join(dir, results.ConfigFile)))
			}
			return errs.Invalid(fmt.Errorf("--resume: %s was not made by this version of smrl (it has no %s marker), so smrl will not write into it; start a new run in another --out", dir, outdir.MarkerFile))
		}
	} else if err := outdir.Check(dir); err != nil {
		return err
	}
	return outdir.CheckNoLinks(dir, linkedEntries...)
}

// checkOpened makes the read-only checks of the results directory that
// follow opening it: the targets of --save-models and --save-transitions
// and, for a resume, that the interrupted run had the same config and
// shard and a journal of that config's trials, whose completed trials it
// returns (an empty map for a fresh run).
func checkOpened(c *config.Config, mdp *env.MDP, opt Options) (map[record.Trial][]record.Episode, error) {
	if !opt.Resume && !opt.Overwrite {
		if err := refuseJournal(opt.OutDir, true); err != nil {
			return nil, err
		}
	}
	if opt.SaveModels {
		if err := checkModelsDir(opt.OutDir); err != nil {
			return nil, err
		}
	}
	if opt.SaveTransitions {
		if err := checkFileTargets(filepath.Join(opt.OutDir, transitionsName(opt.TransitionsGzip))); err != nil {
			return nil, err
		}
	}
	if !opt.Resume {
		return map[record.Trial][]record.Episode{}, nil
	}
	if err := sameConfig(filepath.Join(opt.OutDir, results.ConfigFile), c); err != nil {
		return nil, err
	}
	if err := checkResumeShard(opt.OutDir, opt.Shard); err != nil {
		return nil, err
	}
	done, err := results.ReadJournal(opt.OutDir, expectFor(c, mdp))
	if err != nil {
		return nil, err
	}
	for k, t := range record.Trials(c) {
		if _, ok := done[t]; ok {
			if err := notInShard(filepath.Join(opt.OutDir, results.JournalFile), t, k, opt.Shard); err != nil {
				return nil, err
			}
		}
	}
	return done, nil
}

// removeStaleTemps removes the temporary files a killed smrl left in its
// own directory dir and dir/plots, which it has locked.
func removeStaleTemps(dir string) {
	fsutil.RemoveStaleTemps(dir)
	fsutil.RemoveStaleTemps(filepath.Join(dir, plotsDir))
}

// plotsDir is the folder of a results directory's figures.
const plotsDir = "plots"

// linkedEntries are the entries of smrl's own directory that smrl opens
// for writing or deletes files in, which must not be symbolic links (the
// other files are replaced by a rename, which replaces a link itself):
// startFresh deletes smrl's model files in models/, which through a link
// would be the user's.
var linkedEntries = []string{results.JournalFile, metrics.File, plotsDir, ModelsDir}

// wLens returns the number of entries of the W each agent of c records
// on mdp: its model's, built as the runner builds it. An agent that cannot
// be built is left out (its trials fail when they run).
func wLens(c *config.Config, mdp *env.MDP) map[string]int {
	out := map[string]int{}
	for _, name := range c.Agents {
		ag, err := agent.New(name, mdp.Model, mdp.Dynamics, agentConfig(c, mdp))
		if err != nil {
			continue
		}
		if ag.Model != nil && !agent.OwnFeatures(name, mdp.Model) {
			out[name] = len(ag.Model.W)
		} else { // the oracle, or an lds agent on its own features: no W recorded
			out[name] = 0
		}
	}
	return out
}

// agentConfig is the agent.Config of c's agents on mdp, as the runner
// builds them.
func agentConfig(c *config.Config, mdp *env.MDP) agent.Config {
	return agent.Config{Lambda: c.Lambda, Confidence: agent.ConfidenceOf(c), Rollout: c.Planner.Rollout, Horizon: mdp.Horizon, Box: mdp.Box, CV: runner.AgentCV(c), SaveSE: c.Stats.SaveSE}
}

// Check builds the MDP of a config that config.Load resolved and
// validated, with the checks only the MDP can make: an expression family
// finite on its grid, a density normalisable at W0 at the initial states,
// features and reward finite there. run, compare, sweep (each point) and
// smrl config share it, so that a config smrl config prints is one that
// runs. Errors wrap errs.ErrInvalidInput and name the key. An environment
// that declares its horizon (env.kind external, unless env.horizon is set)
// sets c's env.horizon, so that the snapshot, the journal and the
// summaries count the steps it plays.
func Check(c *config.Config) (*env.MDP, error) {
	mdp, err := env.New(c)
	if err != nil {
		return nil, errs.Invalid(err)
	}
	c.Env.Horizon = mdp.Horizon
	if c.InitModel != "" {
		if mdp.Model.Init, err = estimate.InitWeights(c.InitModel, mdp); err != nil {
			return nil, errs.Invalid(err)
		}
	}
	// An agent that refuses the built model class (what only the MDP
	// shows, e.g. the state dimension of env.kind lq) is refused here,
	// before any directory exists, not when its first trial starts.
	for _, name := range c.Agents {
		if _, err := agent.New(name, mdp.Model, mdp.Dynamics, agentConfig(c, mdp)); errors.Is(err, errs.ErrInvalidInput) {
			return nil, fmt.Errorf("agent %s: %w", name, err)
		}
	}
	return mdp, nil
}

// expectFor is results.ExpectFor of c on mdp: the W lengths of its agents
// (wLens) and the number of its discrete actions.
func expectFor(c *config.Config, mdp *env.MDP) *results.Expect {
	x := results.ExpectFor(c, wLens(c, mdp))
	if mdp.Box == nil {
		x.Actions = len(mdp.Actions)
	}
	return x
}

// Run executes the trials of c (all, or the shard's) and writes the
// results directory. Completed trials go to the journal as they finish; on
// cancellation (SIGINT, SIGTERM or SIGHUP) the trials in flight finish, the journal
// keeps them, and Run returns an error wrapping errs.ErrInterrupted.
//
// The results directory must be new, empty or smrl's own (a --resume needs
// smrl's own); it is locked against a second smrl process for the whole
// run. A run is one point of the pipeline a sweep runs (pipeline.go).
func Run(ctx context.Context, c *config.Config, opt Options) error {
	start := time.Now()
	mdp, err := Check(c)
	if err != nil {
		return err
	}
	if err := refuseRun(opt); err != nil {
		return err
	}
	if opt.SaveModels {
		if err := refuseUnsaved(c); err != nil {
			return err
		}
	}
	if opt.DryRun {
		if err := checkOutDir(opt.OutDir, opt.Resume); err != nil {
			return err
		}
		if _, err := checkOpened(c, mdp, opt); err != nil {
			return err
		}
		return printPlan(c, mdp, opt)
	}
	if err := claimParent(opt.OutDir, opt); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w before the run started; nothing was written", errs.ErrInterrupted)
	}
	release, err := openOutDir(opt.OutDir, opt.Resume)
	if err != nil {
		return err
	}
	defer release()
	p, err := openRun(c, mdp, opt)
	if err != nil {
		return err
	}
	defer p.close()
	b := newBatch([]*point{p}, opt.Shard, opt.SaveTransitions, opt.SaveModels)
	workers := workerCount(opt)
	if opt.Log != nil {
		opt.Log.Info("run started", "config", c.Name, "out", opt.OutDir, "trials", len(b.selected),
			"already_done", len(b.selected)-len(b.todo), "shard", opt.Shard.String(), "workers", workers)
		if len(b.selected) == 0 {
			opt.Log.Info("shard has no trials", "shard", opt.Shard.String(), "trials_in_run", len(p.trials))
		}
	}
	meta, err := newMetadata(opt.OutDir, opt, start, workers, len(b.selected))
	if err != nil {
		return err
	}
	if err := b.run(ctx, workers, opt, filepath.Join(opt.OutDir, results.JournalFile)); err != nil {
		return err
	}
	return p.writeFiles(p.result(), meta, opt)
}

// refuseRun refuses, before anything is read or written, a run into a
// sweep's directory and the options a resume cannot honour, and a fresh
// run over completed results without opt.Overwrite.
func refuseRun(opt Options) error {
	if grid.IsDir(opt.OutDir) {
		return errs.Invalid(fmt.Errorf("%s is a sweep directory (smrl sweep): write the run into another --out", opt.OutDir))
	}
	if parent := filepath.Dir(filepath.Clean(opt.OutDir)); grid.IsDir(parent) {
		return errs.Invalid(fmt.Errorf("%s is inside the sweep directory %s (smrl sweep), whose points only smrl sweep writes: write the run into another --out", opt.OutDir, parent))
	}
	if opt.SaveTransitions && opt.Resume {
		return errs.Invalid(fmt.Errorf("--save-transitions cannot be combined with --resume: the transitions of the trials completed before the interruption were not kept"))
	}
	if opt.SaveModels && opt.Resume {
		return errs.Invalid(fmt.Errorf("--save-models cannot be combined with --resume: the models of the trials completed before the interruption were not kept"))
	}
	if !opt.Resume && !opt.Overwrite {
		return refuseCompleted(opt.OutDir, results.EpisodesFile, true)
	}
	return nil
}

// openRun makes the run's point in the claimed and locked opt.OutDir:
// after checkOpened's checks (and, resuming, the completed trials of its
// journal), its journal opened for appending, or started afresh.
func openRun(c *config.Config, mdp *env.MDP, opt Options) (*point, error) {
	done, err := checkOpened(c, mdp, opt)
	if err != nil {
		return nil, err
	}
	p := &point{Point: grid.Point{Config: c}, dir: opt.OutDir, mdp: mdp, trials: record.Trials(c), done: done, resumed: opt.Resume}
	if p.cfgYAML, err = c.YAML(); err != nil {
		return nil, err
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	return p, nil
}

// startFresh prepares smrl's own directory dir for a fresh run of the
// config cfgYAML: old results must not outlive it half-replaced, so the
// files a run writes are removed (only those), config.yaml is written and
// an empty journal started.
func startFresh(dir string, cfgYAML []byte) (*results.Journal, error) {
	for _, f := range append([]string{results.EpisodesFile, results.SummaryFile, results.MetadataFile, plotting.ReportFile, plotting.ReportHTMLFile, TransitionsFile, TransitionsGzFile, metrics.File}, aggregate.Files...) {
		os.Remove(filepath.Join(dir, f))
	}
	for _, name := range plotting.FigureNames {
		for _, ext := range []string{"png", "svg", "pdf"} {
			os.Remove(filepath.Join(dir, plotsDir, name+"."+ext))
		}
	}
	removeModels(dir)
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, results.ConfigFile), cfgYAML); err != nil {
		return nil, err
	}
	return results.CreateJournal(dir)
}

// finish writes the results files of a complete result, prints the table
// and draws the figures.
func finish(c *config.Config, mdp *env.MDP, res *record.Result, cfgYAML []byte, meta *results.Metadata, opt Options) error {
	rows := results.Rows(res)
	end := time.Now()
	meta.End = end.UTC()
	meta.WallSeconds = end.Sub(meta.Start).Seconds()
	dphi := mdp.Model.Features.Dim()
	dpsi := results.WDims(rows, dphi)
	sums := results.Summarise(rows, c.Env.Horizon)
	if err := results.WriteDir(opt.OutDir, rows, sums, results.NewLayout(0, dpsi, dphi, c.Stats.SaveW), cfgYAML, meta); err != nil {
		return err
	}
	if len(rows) > 0 {
		st, agents, err := aggregate.TaskScores(rows, c.Stats)
		if err != nil {
			return err
		}
		if err := writeAggregates(opt.OutDir, []aggregate.Stratum{st}, agents, c); err != nil {
			return err
		}
	}
	if opt.Log != nil {
		opt.Log.Info("run finished", "out", opt.OutDir, "trials", len(res.Trials), "seconds", meta.WallSeconds)
	}
	if len(res.Trials) == 0 {
		// An empty shard (more shards than trials): its files are complete
		// and mergeable, but there is nothing to tabulate or draw.
		if opt.Stdout != nil {
			fmt.Fprintf(opt.Stdout, "wrote %s (no trials in shard %s)\n", opt.OutDir, meta.Shard)
		}
		return nil
	}
	ws := results.Warnings(rows, warnInput(c, mdp))
	if opt.Stdout != nil {
		col := TableColumns(c, mdp)
		col.Flagged = results.FlagSeeds(ws)
		if err := results.Table(opt.Stdout, sums, col); err != nil {
			return err
		}
		fmt.Fprintf(opt.Stdout, "\nwrote %s (%d trials in %.2fs)\n", opt.OutDir, len(res.Trials), meta.WallSeconds)
	}
	if opt.Warn != nil {
		for _, w := range ws {
			fmt.Fprintln(opt.Warn, w)
		}
	}
	if opt.Plot != nil {
		if err := opt.Plot(opt.OutDir); err != nil {
			return fmt.Errorf("drawing figures: %w", err)
		}
	}
	return nil
}

// writeAggregates writes aggregate.csv, improvement.csv and profile.csv of
// the strata into dir, with c's bootstrap replicates and master seed.
func writeAggregates(dir string, strata []aggregate.Stratum, agents []string, c *config.Config) error {
	r, err := aggregate.Compute(strata, agents, c.Stats.BootstrapReps, c.Seed)
	if err != nil {
		return err
	}
	return aggregate.Write(dir, r)
}
