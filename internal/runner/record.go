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

// Learned is a learning agent's model at the end of its trial: the method
// (sm, lds or mle, whatever the -ucb/-ps variant) of its estimate Ŵ
// (DPsi × DPhi, row-major: the W recorded with the trial's last
// episode), the ridge λ and the number n of transitions of its last fit.
type Learned struct {
	Method     string
	W          []float64
	DPsi, DPhi int
	Lambda     float64
	N          int
}

// ModelSink receives the learned model of one trial when it ends.
type ModelSink interface {
	Learned(m Learned)
}

type modelSinkKey struct{}

// WithModelSink returns ctx carrying sink (nil: ctx itself), to which
// RunTrial hands the learned model of a learning agent (not the oracle or
// lqr, nor an lds agent on its own features) when the trial ends.
func WithModelSink(ctx context.Context, sink ModelSink) context.Context {
	if sink == nil {
		return ctx
	}
	return context.WithValue(ctx, modelSinkKey{}, sink)
}

func modelSink(ctx context.Context) ModelSink {
	s, _ := ctx.Value(modelSinkKey{}).(ModelSink)
	return s
}
