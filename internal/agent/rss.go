package agent

import (
	"fmt"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
)

// rss is random sampling shooting, the paper's planner (planner.kind rss).
// In constant mode the candidates are the actions of the discrete set, each
// played throughout the rollout; in random mode they are n_sequences random
// sequences, each action uniform over the set or the box. The first action
// of the best candidate is played; ties go to the candidate listed (or
// drawn) first. It has no warm start.
type rss struct {
	mode       string // "constant" or "random"
	nSequences int
	actions    [][]float64
	box        *Box
	r          *Rollouts

	seq    []int
	act    [][]float64 // the actions of the candidate being valued, per step
	boxSeq [][]float64 // box: the sampled sequence's actions
	chosen []float64   // box: the first action of the best sequence (Result)
}

func newRSS(c config.Planner, r *Rollouts, actions [][]float64, box *Box) (Method, error) {
	if c.Mode != "constant" && c.Mode != "random" {
		return nil, fmt.Errorf("planner.mode: unknown mode %q", c.Mode)
	}
	if c.NSequences < 1 {
		return nil, fmt.Errorf("planner.n_sequences must be positive, got %d", c.NSequences)
	}
	if box != nil && c.Mode != "random" {
		return nil, fmt.Errorf("planner.mode: a box of continuous actions needs random mode, got %q", c.Mode)
	}
	steps := r.Steps()
	p := &rss{mode: c.Mode, nSequences: c.NSequences, actions: actions, box: box, r: r,
		seq: make([]int, steps), act: make([][]float64, steps)}
	if box != nil {
		p.boxSeq = make([][]float64, steps)
		for t := range p.boxSeq {
			p.boxSeq[t] = make([]float64, len(box.Low))
		}
		p.chosen = make([]float64, len(box.Low))
	}
	return p, nil
}

func (p *rss) Result() []float64 { return p.chosen }
func (p *rss) Commit()           {}
func (p *rss) Reset()            {}

func (p *rss) Plan(sim Simulator, s []float64, rng *rand.Rand) (action int, value float64) {
	p.r.Begin(rng)
	best, bestValue := 0, 0.0
	if p.mode == "constant" {
		for i := range p.actions {
			for t := range p.act {
				p.act[t] = p.actions[i]
			}
			v := p.r.Value(sim, s, p.act, rng)
			if i == 0 || v > bestValue {
				best, bestValue = i, v
			}
		}
		return best, bestValue
	}
	if p.box != nil {
		for j := 0; j < p.nSequences; j++ {
			for t, a := range p.boxSeq {
				for k := range a {
					a[k] = p.box.Low[k] + (p.box.High[k]-p.box.Low[k])*rng.Float64()
				}
				p.act[t] = a
			}
			v := p.r.Value(sim, s, p.act, rng)
			if j == 0 || v > bestValue {
				bestValue = v
				copy(p.chosen, p.boxSeq[0])
			}
		}
		return BoxAction, bestValue
	}
	for j := 0; j < p.nSequences; j++ {
		for t := range p.seq {
			p.seq[t] = rng.IntN(len(p.actions))
			p.act[t] = p.actions[p.seq[t]]
		}
		first := p.seq[0]
		v := p.r.Value(sim, s, p.act, rng)
		if j == 0 || v > bestValue {
			best, bestValue = first, v
		}
	}
	return best, bestValue
}

// rssKind registers planner.kind rss (see planner.go's registry).
var rssKind = Kind{Part: config.Part{Name: "rss",
	Doc:  "random sampling shooting (the paper's): constant mode plays each action throughout, random mode samples planner.n_sequences sequences",
	Uses: []string{"planner.mode"}, Validate: validateRSS},
	Build: newRSS}

func validateRSS(c *config.Config, bad config.Bad) {
	if c.Env.ActionSpace == "box" && c.Planner.Mode != "random" {
		bad("planner.mode", "must be random for a box of continuous actions (env.action_space: box), got %q", c.Planner.Mode)
	}
	c.CheckSequenceMemory(bad, "planner.tau", 1)
}

func init() {
	config.Register(config.Part{Group: "planner.mode", Name: "constant", Doc: "one rollout set per action, that action throughout (the paper's)"})
	config.Register(config.Part{Group: "planner.mode", Name: "random", Doc: "planner.n_sequences random action sequences; the first action of the best", Uses: []string{"planner.n_sequences"}})
}
