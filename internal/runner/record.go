package runner

import "context"

// Recorder receives every transition of one trial, in the order played:
// episode and step count from 1, s, a and next are the state, the action
// and the next state (views valid for the call only), reward is the
// step's reward r(s, a) plus the terminal reward when next is terminal,
// and terminal says whether next ended the episode. The rewards of an
// episode add up to its return.
type Recorder interface {
	Transition(episode, step int, s, a, next []float64, reward float64, terminal bool)
}

type recorderKey struct{}

// WithRecorder returns ctx carrying rec (nil: ctx itself), to which
// RunTrial reports every transition it plays.
func WithRecorder(ctx context.Context, rec Recorder) context.Context {
	if rec == nil {
		return ctx
	}
	return context.WithValue(ctx, recorderKey{}, rec)
}

// recorder returns ctx's Recorder, or nil.
func recorder(ctx context.Context) Recorder {
	r, _ := ctx.Value(recorderKey{}).(Recorder)
	return r
}
