package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
	"github.com/smrl-dev/smrl/internal/errs"
	"github.com/smrl-dev/smrl/internal/record"
)

// Job is one trial of one experiment: its config, its MDP and the trial.
// The jobs of one pool may belong to different experiments (the grid
// points of smrl sweep), so that small experiments still keep every worker
// busy.
type Job struct {
	Config *config.Config
	MDP    *env.MDP
	Trial  record.Trial
	// Label names the experiment in errors ("planner.tau=5"); "" for none.
	Label string
	// Record, when not nil, receives the trial's transitions.
	Record Recorder
	// Models, when not nil, receives the trial's learned model.
	Models ModelSink
}

// ErrAbandoned marks a run whose trials in flight were abandoned after
// cancellation (Options.Grace ran out, or Options.Abandon was closed):
// their work is lost, and a resume recomputes them.
var ErrAbandoned = errors.New("the trials in flight were abandoned")

// RunJobs runs jobs on one pool of opt.Workers goroutines (all cores when
// <= 0) and returns each job's episodes, in the order of jobs. A job's
// episodes depend only on its config, MDP and trial, never on the number
// of workers or on the other jobs. OnTrial's index is the job's.
//
// When ctx is cancelled no new job starts, but the jobs in flight run to
// completion (and reach OnTrial), for at most opt.Grace after the
// cancellation (0: no limit) and until opt.Abandon is closed; RunJobs then
// returns the partial episodes (nil for jobs that did not run or were
// abandoned) and an error wrapping ctx.Err(), and ErrAbandoned when jobs
// in flight were abandoned (they stop at their next episode, and never
// reach OnTrial). A job's error or panic stops the pool and is returned
// with nil episodes, naming the job.
func RunJobs(ctx context.Context, jobs []Job, opt Options) ([][]record.Episode, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, max(len(jobs), 1))
	defer limitMemory(workers)()
	out := make([][]record.Episode, len(jobs))
	errList := make([]error, len(jobs))
	var next atomic.Int64
	var stopped atomic.Bool
	// mu serialises OnTrial and guards out, errList and gone: once gone
	// (abandoned), the workers change nothing the caller sees.
	var mu sync.Mutex
	gone := false
	var wg sync.WaitGroup
	inFlight, abandonTrials := context.WithCancel(withEpisodeCounter(context.WithoutCancel(ctx), opt.Episodes))
	defer abandonTrials()
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
				var eps []record.Episode
				err := errs.Protect(func() (err error) {
					if eps, err = runTrial(withEpisodeHook(inFlight, i, opt.OnEpisode), j); err == nil && opt.OnTrial != nil {
						mu.Lock()
						defer mu.Unlock()
						if gone {
							return nil
						}
						err = opt.OnTrial(i, eps)
					}
					return err
				})
				mu.Lock()
				if gone {
					mu.Unlock()
					return
				}
				if err != nil {
					errList[i] = err
					stopped.Store(true)
					mu.Unlock()
					return
				}
				out[i] = eps
				mu.Unlock()
				if opt.Done != nil {
					opt.Done.Add(1)
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	abandoned := wait(ctx, finished, opt.Grace, opt.Abandon)
	mu.Lock()
	gone = abandoned
	mu.Unlock()
	if abandoned {
		abandonTrials() // they stop at their next episode
	}
	for i, err := range errList {
		if err != nil && !abandoned {
			j := jobs[i]
			if j.Label != "" {
				return nil, fmt.Errorf("%s: agent %s, seed %d: %w", j.Label, j.Trial.Agent, j.Trial.Seed, err)
			}
			return nil, fmt.Errorf("agent %s, seed %d: %w", j.Trial.Agent, j.Trial.Seed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		if abandoned {
			return out, fmt.Errorf("run stopped: %w (%w)", err, ErrAbandoned)
		}
		return out, fmt.Errorf("run stopped: %w", err)
	}
	return out, nil
}

// wait waits until finished is closed and reports false, or reports true
// (abandon the jobs in flight) when abandon is closed or grace (> 0) has
// passed since ctx was cancelled.
func wait(ctx context.Context, finished <-chan struct{}, grace time.Duration, abandon <-chan struct{}) bool {
	cancelled := ctx.Done()
	var timeout <-chan time.Time
	for {
		select {
		case <-finished:
			return false
		case <-abandon:
			if ctx.Err() != nil {
				return true
			}
			// Closed before the cancellation: abandon when it comes.
			abandon, grace = nil, time.Nanosecond
		case <-cancelled:
			cancelled = nil
			if grace > 0 {
				t := time.NewTimer(grace)
				defer t.Stop()
				timeout = t.C
			}
		case <-timeout:
			return true
		}
	}
}
