package experiment

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"time"

	"github.com/smrl-dev/smrl/internal/aggregate"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/metrics"
	"github.com/smrl-dev/smrl/internal/outdir"
	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/runner"
)

// The pipeline a run and a sweep share. A run is one point, its results
// directory; a sweep has one point per grid point. Each claims and opens
// its directories its own way (run: openOutDir; sweep: its root, then
// point.claim), and from there both take the same steps:
//
//	newBatch     every (point, trial) job in the global order --shard splits,
//	             the shard's selection, and the jobs not yet in a journal
//	newMetadata  metadata.json, written at once (checkResumeShard reads it)
//	batch.run    the pool, each trial journaled as it finishes, and the
//	             interrupt: the message says how many trials are kept
//	point.writeFiles  transitions, models and the results files of a point
//	             (finish: rows, summaries, aggregates, table, figures)

// point is one results directory being run: the run's own, or one grid
// point of a sweep.
type point struct {
	grid.Point
	dir     string
	mdp     *env.MDP
	cfgYAML []byte
	// label names the point in trial errors ("sweep point planner.tau=5");
	// "" for a run.
	label   string
	trials  []record.Trial
	done    map[record.Trial][]record.Episode
	journal *results.Journal
	// metrics receives a line per finished episode (metrics.jsonl).
	metrics *metrics.Writer
	release func() error
	resumed bool // claim found a journal to resume
	// selected are the trials of the shard (all trials without one), in
	// canonical order: the trials of the point's files.
	selected []record.Trial
	// stratum holds the per-seed scores of the finished point, for the
	// sweep's aggregate over points.
	stratum aggregate.Stratum
	// warnings are the point's trial warnings (results.Warnings), for the
	// sweep's lines and table.
	warnings []results.Warning
	// models collects the point's learned models (SaveModels), logs its
	// transitions (SaveTransitions); nil when not asked for.
	models *modelSinks
	logs   map[record.Trial]*trialLog
}

// close closes the point's journal and drops its lock.
func (p *point) close() {
	if p.journal != nil {
		p.journal.Close()
	}
	if p.metrics != nil {
		p.metrics.Close()
	}
	if p.release != nil {
		p.release()
	}
}

// result is the point's selected trials with their episodes, in
// canonical order, whatever the order they completed in.
func (p *point) result() *record.Result {
	full := &record.Result{}
	for _, t := range p.selected {
		full.Trials = append(full.Trials, t)
		full.Episodes = append(full.Episodes, p.done[t])
	}
	return full
}

// writeFiles writes the files of the point's complete result into its
// directory: the transitions log and the models when they were collected,
// then the results files, table and figures (finish, with opt).
func (p *point) writeFiles(full *record.Result, meta *results.Metadata, opt Options) error {
	if p.logs != nil && len(full.Trials) > 0 {
		if err := writeTransitions(p.dir, full.Trials, p.logs, p.mdp.StateDim(), p.mdp.ActionDim(), opt.TransitionsGzip); err != nil {
			return err
		}
	}
	if p.models != nil {
		if err := writeModels(p.dir, p.Config, p.mdp, full.Trials, p.models, p.cfgYAML); err != nil {
			return err
		}
	}
	return finish(p.Config, p.mdp, full, p.cfgYAML, meta, opt)
}

// batch is every trial of a run or sweep as one list of pool jobs, each
// with the point that owns it.
type batch struct {
	jobs     []runner.Job
	owner    []*point
	selected []int // the shard's jobs (all without one), as indices of jobs
	todo     []int // the selected jobs not completed in a journal
}

// newBatch lists the trials of pts (points in order, then each point's
// agents and seeds: the global order --shard splits), selects the shard's
// and, of those, the ones to run. With saveModels every point collects
// its learned models, with saveTransitions the transitions of its trials
// to run.
func newBatch(pts []*point, shard runner.Shard, saveTransitions, saveModels bool) *batch {
	b := &batch{}
	for _, p := range pts {
		if saveModels {
			p.models = newModelSinks()
		}
		if saveTransitions {
			p.logs = map[record.Trial]*trialLog{}
		}
		for _, t := range p.trials {
			j := runner.Job{Config: p.Config, MDP: p.mdp, Trial: t, Label: p.label}
			if p.models != nil {
				j.Models = trialSink{p.models, t}
			}
			b.jobs = append(b.jobs, j)
			b.owner = append(b.owner, p)
		}
	}
	b.selected = shard.Select(len(b.jobs))
	for _, k := range b.selected {
		p, t := b.owner[k], b.jobs[k].Trial
		p.selected = append(p.selected, t)
		if _, ok := p.done[t]; ok {
			continue
		}
		if p.logs != nil {
			p.logs[t] = &trialLog{agent: t.Agent, seed: t.Seed}
			b.jobs[k].Record = p.logs[t]
		}
		b.todo = append(b.todo, k)
	}
	return b
}

// complete counts the selected trials that are complete.
func (b *batch) complete() int {
	n := 0
	for _, k := range b.selected {
		if _, ok := b.owner[k].done[b.jobs[k].Trial]; ok {
			n++
		}
	}
	return n
}

// run runs the trials to do on one pool of workers, journaling each in
// its point's journal as it finishes and keeping its episodes in the
// point's done. On cancellation it returns an error wrapping
// errs.ErrInterrupted that counts the complete trials, which are kept in
// where (the journal, or the journals of the sweep), and names
// opt.ResumeHint.
func (b *batch) run(ctx context.Context, workers int, opt Options, where string) error {
	todo := make([]runner.Job, len(b.todo))
	episodes := 0
	for i, k := range b.todo {
		todo[i] = b.jobs[k]
		episodes += todo[i].Config.Episodes
	}
	journalOf := func(i int) *results.Journal { return b.owner[b.todo[i]].journal }
	prog := &progress{totalTrials: len(todo), totalEpisodes: episodes, eta: metrics.NewETA(min(workers, max(len(todo), 1)))}
	for _, j := range todo {
		prog.eta.AddTrial(j.Trial.Agent, j.Config.Episodes)
	}
	stop := startProgress(prog, opt.Log, opt.Bar, 0)
	start := time.Now()
	eps, runErr := runner.RunJobs(ctx, todo, runner.Options{
		Workers:  workers,
		Done:     &prog.trials,
		Episodes: &prog.episodes,
		OnTrial:  opt.journalAppend(func(i int, e []record.Episode) error { return journalOf(i).Append(todo[i].Trial, e) }),
		OnEpisode: func(d runner.EpisodeDone) {
			prog.eta.Episode(d.Trial.Agent, d.Episode.Episode == todo[d.Job].Config.Episodes, d.Seconds)
			if w := b.owner[b.todo[d.Job]].metrics; w != nil {
				e := d.Episode
				// A failed write is kept by the writer and reported below.
				_ = w.Write(metrics.NewLine(d.Trial.Agent, d.Trial.Seed, e.Episode, d.StepsSoFar, e.Reward, e.WError, d.Seconds, time.Since(start).Seconds()))
			}
		},
		Grace:   opt.Grace,
		Abandon: opt.Abandon,
	})
	stop()
	if runErr == nil {
		runErr = b.metricsErr()
	}
	for i := range eps {
		if eps[i] != nil {
			b.owner[b.todo[i]].done[todo[i].Trial] = eps[i]
		}
	}
	if runErr == nil {
		return nil
	}
	if ctx.Err() == nil {
		return runErr
	}
	msg := fmt.Sprintf("%d of %d trials are complete and kept in %s", b.complete(), len(b.selected), where)
	if errors.Is(runErr, runner.ErrAbandoned) {
		msg += " (the trials in flight were abandoned; a resume recomputes them)"
	}
	if opt.ResumeHint != "" {
		msg += "; resume with: " + opt.ResumeHint
	}
	return fmt.Errorf("%w: %s", errs.ErrInterrupted, msg)
}

// metricsErr is the first error of writing a point's metrics.jsonl.
func (b *batch) metricsErr() error {
	for _, p := range b.owner {
		if p.metrics != nil {
			if err := p.metrics.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// workerCount is the number of parallel trials: opt's, or all cores.
func workerCount(opt Options) int {
	if opt.Workers <= 0 {
		return runtime.NumCPU()
	}
	return opt.Workers
}

// newMetadata is the metadata.json of a run or sweep of trials trials
// started at start, and writes a copy of it into dir at once: a resume
// reads the shard from it (checkResumeShard). Its end is filled in when
// the files are written.
func newMetadata(dir string, opt Options, start time.Time, workers, trials int) (*results.Metadata, error) {
	meta := &results.Metadata{Version: opt.Version, GoVersion: runtime.Version(), GitCommit: opt.Commit,
		CommandLine: opt.CommandLine, Start: start.UTC(), Workers: workers, Trials: trials,
		Shard: opt.Shard.String(), Resumed: opt.Resume, ConfigDescription: opt.ConfigDescription,
		FormatVersion: results.FormatVersion}
	sm := *meta // a copy: WriteMetadata fills in its End
	sm.Running = true
	if err := results.WriteMetadata(dir, &sm); err != nil {
		return nil, err
	}
	return meta, nil
}

// claimParent claims the parent of dir for a fresh shard (see
// Options.ClaimParent). Best effort: a parent the user already filled
// stays theirs (the shard still writes only into its own new directory),
// and a later smrl merge into it is refused with the reason.
func claimParent(dir string, opt Options) error {
	if !opt.ClaimParent || opt.Resume {
		return nil
	}
	if err := outdir.Claim(filepath.Dir(filepath.Clean(dir))); err != nil && !errors.Is(err, errs.ErrInvalidInput) {
		return err
	}
	return nil
}
