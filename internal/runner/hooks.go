package runner

import (
	"context"
	"sync/atomic"

	"github.com/smrl-dev/smrl/internal/record"
)

type episodeCounterKey struct{}

type episodeHookKey struct{}

// EpisodeDone describes one finished episode of a trial for
// Options.OnEpisode: the job's index, its trial, the episode's record (its
// number, return, length and |Ŵ − W0|), the steps of the trial so far
// (this episode's included) and the wall time the episode took.
type EpisodeDone struct {
	Job        int
	Trial      record.Trial
	Episode    *record.Episode
	StepsSoFar int
	Seconds    float64
}

// withEpisodeCounter returns ctx carrying n (nil: ctx itself), which
// RunTrial increments after every completed episode.
func withEpisodeCounter(ctx context.Context, n *atomic.Int64) context.Context {
	if n == nil {
		return ctx
	}
	return context.WithValue(ctx, episodeCounterKey{}, n)
}

// withEpisodeHook returns ctx carrying the hook f of job i (nil f: ctx
// itself), which runTrial calls after every completed episode.
func withEpisodeHook(ctx context.Context, i int, f func(EpisodeDone)) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, episodeHookKey{}, func(d EpisodeDone) { d.Job = i; f(d) })
}

// episodeDone counts one completed episode on ctx's counter, if any, and
// reports it to ctx's hook, if any.
func episodeDone(ctx context.Context, d EpisodeDone) {
	if n, ok := ctx.Value(episodeCounterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
	if f, ok := ctx.Value(episodeHookKey{}).(func(EpisodeDone)); ok {
		f(d)
	}
}
