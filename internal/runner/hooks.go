package runner

import (
	"context"
	"sync/atomic"
)

type episodeCounterKey struct{}

// withEpisodeCounter returns ctx carrying n (nil: ctx itself), which
// RunTrial increments after every completed episode.
func withEpisodeCounter(ctx context.Context, n *atomic.Int64) context.Context {
	if n == nil {
		return ctx
	}
	return context.WithValue(ctx, episodeCounterKey{}, n)
}

// episodeDone counts one completed episode on ctx's counter, if any.
func episodeDone(ctx context.Context) {
	if n, ok := ctx.Value(episodeCounterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}
