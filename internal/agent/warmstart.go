package agent

// warmStart is the plan a sampling planner (cem, mppi) carries from one
// decision to the next: L steps of len(fill) numbers each (an action in a
// box, or one step's action probabilities). Reset sets every step to fill;
// Plan leaves its plan in mean (Result); Commit shifts it one step earlier
// into warm, with fill as the new last step, for the next Plan to start
// from.
type warmStart struct {
	mean []float64 // the plan after Plan (Result), L×len(fill)
	warm []float64 // where the next Plan starts, same layout
	fill []float64 // one step of the initial plan and the new last step
}

func newWarmStart(steps int, fill []float64) warmStart {
	n := steps * len(fill)
	return warmStart{mean: make([]float64, n), warm: make([]float64, n), fill: fill}
}

func (w *warmStart) Result() []float64 { return w.mean }

// Reset starts from fill at every step.
func (w *warmStart) Reset() {
	n := len(w.fill)
	for t := 0; t < len(w.warm); t += n {
		copy(w.warm[t:], w.fill)
	}
	copy(w.mean, w.warm)
}

// Commit shifts the plan by one step into the warm start; the last step
// restarts at fill.
func (w *warmStart) Commit() {
	n := len(w.fill)
	copy(w.warm, w.mean[n:])
	copy(w.warm[len(w.warm)-n:], w.fill)
}
