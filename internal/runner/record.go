package runner

// Recorder receives every transition of one trial (Job.Record), in the
// order played:
// episode and step count from 1, s, a and next are the state, the action
// and the next state (views valid for the call only), reward is the
// step's reward r(s, a) plus the terminal reward when next is terminal,
// and terminal says whether next ended the episode. The rewards of an
// episode add up to its return.
type Recorder interface {
	Transition(episode, step int, s, a, next []float64, reward float64, terminal bool)
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

// ModelSink receives the learned model of one trial (Job.Models) when it
// ends: a learning agent's, not the oracle's or lqr's, nor an lds agent's
// on its own features.
type ModelSink interface {
	Learned(m Learned)
}
