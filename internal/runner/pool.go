package runner

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
)

// Job is one trial of one experiment: its config, its MDP and the trial.
// The jobs of one pool may belong to different experiments (the grid
// points of smrl sweep), so that small experiments still keep every worker
// busy.
type Job struct {
	Config *config.Config
	MDP    *env.MDP
	Trial  Trial
	// Label names the experiment in errors ("planner.tau=5"); "" for none.
	Label string
	// Record, when not nil, receives the trial's transitions.
	Record Recorder
}

// RunJobs runs jobs on one pool of opt.Workers goroutines (all cores when
// <= 0) and returns each job's episodes, in the order of jobs. A job's
// episodes depend only on its config, MDP and trial, never on the number
// of workers or on the other jobs. OnTrial's index is the job's.
//
// When ctx is cancelled no new job starts, but the jobs in flight run to
// completion (and reach OnTrial); RunJobs then returns the partial
// episodes (nil for jobs that did not run) and an error wrapping
// ctx.Err(). A job's error or panic stops the pool and is returned with
// nil episodes, naming the job.
func RunJobs(ctx context.Context, jobs []Job, opt Options) ([][]Episode, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, max(len(jobs), 1))
	out := make([][]Episode, len(jobs))
	errList := make([]error, len(jobs))
	var next atomic.Int64
	var stopped atomic.Bool
	var mu sync.Mutex // serialises OnTrial
	var wg sync.WaitGroup
	inFlight := withEpisodeCounter(context.WithoutCancel(ctx), opt.Episodes)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil || stopped.Load() {
					return
				}
				j := jobs[i]
				var eps []Episode
				err := errs.Protect(func() (err error) {
					if eps, err = RunTrial(WithRecorder(inFlight, j.Record), j.Config, j.MDP, j.Trial); err == nil && opt.OnTrial != nil {
						mu.Lock()
						defer mu.Unlock()
						err = opt.OnTrial(i, eps)
					}
					return err
				})
				if err != nil {
					errList[i] = err
					stopped.Store(true)
					return
				}
				out[i] = eps
				if opt.Done != nil {
					opt.Done.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errList {
		if err != nil {
			j := jobs[i]
			if j.Label != "" {
				return nil, fmt.Errorf("%s: agent %s, seed %d: %w", j.Label, j.Trial.Agent, j.Trial.Seed, err)
			}
			return nil, fmt.Errorf("agent %s, seed %d: %w", j.Trial.Agent, j.Trial.Seed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("run stopped: %w", err)
	}
	return out, nil
}
