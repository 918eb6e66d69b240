package metrics

import (
	"math"
	"sync"
	"time"
)

// ETA estimates the time a run still needs from the measured wall times
// of its finished episodes, per agent: agents differ several-fold in the
// cost of an episode (the oracle plans with the true family, lds with a
// Gaussian; the agents run in config order), so the run's average rate so
// far, extrapolated, is off by that factor until the mix of agents done
// matches the mix to do (it was 3× too high on a run whose slow agents
// came first).
//
// With m_a the mean episode time of agent a so far (of all agents when a
// has none yet), r_a its episodes still to run and P the parallel
// workers,
//
//	ETA = Σ_a r_a · m_a / min(P, trials not finished)
//
// which assumes the workers stay busy while at least P trials remain,
// and counts the last trials' episodes as run one after another.
// Its methods may be called from several goroutines.
type ETA struct {
	mu      sync.Mutex
	workers int
	todo    map[string]int     // episodes still to run, per agent
	trials  int                // trials not finished
	sum     map[string]float64 // seconds of the done episodes, per agent
	count   map[string]int     // done episodes, per agent
}

// NewETA starts an estimate for a run on workers parallel workers, with
// no trials (AddTrial adds them).
func NewETA(workers int) *ETA {
	return &ETA{workers: max(workers, 1), todo: map[string]int{}, sum: map[string]float64{}, count: map[string]int{}}
}

// AddTrial adds a trial of agent with episodes episodes to run.
func (e *ETA) AddTrial(agent string, episodes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.todo[agent] += episodes
	e.trials++
}

// Episode records that an episode of agent took seconds; last says it
// was its trial's last.
func (e *ETA) Episode(agent string, last bool, seconds float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.todo[agent] > 0 {
		e.todo[agent]--
	}
	e.sum[agent] += seconds
	e.count[agent]++
	if last && e.trials > 0 {
		e.trials--
	}
}

// Remaining returns the estimate; ok is false before any episode is done.
func (e *ETA) Remaining() (d time.Duration, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var allSum float64
	var allN int
	for a, s := range e.sum {
		allSum += s
		allN += e.count[a]
	}
	if allN == 0 {
		return 0, false
	}
	overall := allSum / float64(allN)
	var work float64
	for a, r := range e.todo {
		m := overall
		if n := e.count[a]; n > 0 {
			m = e.sum[a] / float64(n)
		}
		work += float64(r) * m
	}
	par := min(e.workers, max(e.trials, 1))
	sec := work / float64(par)
	if math.IsNaN(sec) || sec < 0 {
		return 0, false
	}
	return time.Duration(sec * float64(time.Second)), true
}
