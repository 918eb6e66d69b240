package agent

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/smrl-dev/smrl/internal/config"
)

// rss is random sampling shooting, the paper's planner (planner.kind rss).
// In constant mode the candidates are the actions of the discrete set, each
// played throughout the rollout; in random mode they are n_sequences random
// sequences, each action uniform over the set or the box. The first action
// of the best candidate is played; ties go to the candidate listed (or
// drawn) first. It has no warm start.
//
// In random mode over a discrete set, planner.tie_break chooses among the
// first actions differently: "first" as above (the SMRL authors'); "vote"
// the first action most frequent among the sequences of the best value
// v* = max_j V_j,
//
//	argmax_a #{j : V_j = v*, a_0^j = a};
//
// "mean" the first action whose sequences have the highest mean value,
//
//	argmax_a mean{V_j : a_0^j = a}  (over the actions drawn first at least once);
//
// both break their own ties by the order of the set. The draws are the
// same for every rule, so "first" is unchanged by the others' existence.
// With a value that can only take few levels (CartPole's survival count
// over 10 steps), many sequences reach the best level and "first" plays
// the first action of whichever was drawn first: a coin flip.
type rss struct {
	mode       string // "constant" or "random"
	tieBreak   string // "first", "vote" or "mean"
	nSequences int
	actions    [][]float64
	box        *Box
	r          *Rollouts

	seq    []int
	act    [][]float64 // the actions of the candidate being valued, per step
	boxSeq [][]float64 // box: the sampled sequence's actions
	chosen []float64   // box: the first action of the best sequence (Result)
	// box, under a simulator that steps batches (planBoxBatched): all
	// sequences, end to end, and their values (sized on first use).
	boxSeqs, boxRet []float64
	votes           []int     // vote only (else nil): per first action, the best-valued sequences
	count           []int     // mean only (else nil): per first action, the sequences
	sum             []float64 // mean only: per first action, the sum of their values
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
	tb := c.TieBreak
	if tb == "" {
		tb = "first"
	}
	if tb != "first" && tb != "vote" && tb != "mean" {
		return nil, fmt.Errorf("planner.tie_break: unknown tie-break %q", tb)
	}
	if tb != "first" && (box != nil || c.Mode != "random") {
		return nil, fmt.Errorf("planner.tie_break: %q needs random mode over a discrete action set", tb)
	}
	steps := r.Steps()
	p := &rss{mode: c.Mode, tieBreak: tb, nSequences: c.NSequences, actions: actions, box: box, r: r,
		seq: make([]int, steps), act: make([][]float64, steps)}
	if box != nil {
		p.boxSeq = make([][]float64, steps)
		for t := range p.boxSeq {
			p.boxSeq[t] = make([]float64, len(box.Low))
		}
		p.chosen = make([]float64, len(box.Low))
	}
	switch tb {
	case "vote":
		p.votes = make([]int, len(actions))
	case "mean":
		p.count, p.sum = make([]int, len(actions)), make([]float64, len(actions))
	}
	return p, nil
}

// planBoxBatched is Plan's box mode under a simulator that draws nothing
// (Rollouts.Batched): the sequences are drawn in Plan's order, then valued
// together, then compared in that order; the same choice and value.
func (p *rss) planBoxBatched(sim Simulator, s []float64, rng *rand.Rand) (int, float64) {
	da := len(p.box.Low)
	n := len(p.boxSeq) * da
	if len(p.boxRet) != p.nSequences {
		p.boxSeqs, p.boxRet = make([]float64, p.nSequences*n), make([]float64, p.nSequences)
	}
	for j := range p.nSequences {
		seq := p.boxSeqs[j*n : (j+1)*n]
		for t := range p.boxSeq {
			a := seq[t*da : (t+1)*da]
			for k := range a {
				a[k] = p.box.Low[k] + (p.box.High[k]-p.box.Low[k])*rng.Float64()
			}
		}
	}
	p.r.Values(sim, s, p.boxSeqs, da, p.boxRet)
	var bestValue float64
	for j, v := range p.boxRet {
		if j == 0 || v > bestValue {
			bestValue = v
			copy(p.chosen, p.boxSeqs[j*n:j*n+da])
		}
	}
	return BoxAction, bestValue
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
		if p.r.Batched(sim) {
			return p.planBoxBatched(sim, s, rng)
		}
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
	clear(p.count) // vote's are cleared at the first sequence
	clear(p.sum)
	// With the stream's PCG known and a power-of-two set, rng.IntN's draw
	// is the low bits of one PCG draw (source.intN), made here inline.
	src, bound := p.r.source(rng)
	n := len(p.actions)
	pow2, mask := bound && n&(n-1) == 0, uint64(n-1)
	for j := 0; j < p.nSequences; j++ {
		for t := range p.seq {
			var i int
			if pow2 {
				i = int(src.pcg.Uint64() & mask)
			} else {
				i = rng.IntN(n)
			}
			p.seq[t] = i
			p.act[t] = p.actions[i]
		}
		first := p.seq[0]
		v := p.r.Value(sim, s, p.act, rng)
		if j == 0 || v > bestValue {
			best, bestValue = first, v
			clear(p.votes)
		}
		if p.votes != nil && v == bestValue {
			p.votes[first]++
		}
		if p.count != nil {
			p.count[first]++
			p.sum[first] += v
		}
	}
	switch p.tieBreak {
	case "vote":
		best = argmaxInt(p.votes)
	case "mean":
		best = -1
		var m float64
		for i, n := range p.count {
			if n == 0 {
				continue
			}
			if mi := p.sum[i] / float64(n); best < 0 || mi > m {
				best, m = i, mi
			}
		}
	}
	return best, bestValue
}

// rssKind registers planner.kind rss (see planner.go's registry).
var rssKind = Kind{Part: config.Part{Name: "rss",
	Doc:  "random sampling shooting (the paper's): constant mode plays each action throughout, random mode samples planner.n_sequences sequences",
	Uses: []string{"planner.mode", "planner.tie_break"}, Validate: validateRSS},
	Build: newRSS}

func validateRSS(c *config.Config, bad config.Bad) {
	if c.Env.ActionSpace == "box" && c.Planner.Mode != "random" {
		bad("planner.mode", "must be random for a box of continuous actions (env.action_space: box), got %q", c.Planner.Mode)
	}
	p := c.Planner
	if !slices.Contains(tieBreaks, p.TieBreak) {
		bad("planner.tie_break", "unknown tie-break %q (known: %v)", p.TieBreak, tieBreaks)
	} else if p.TieBreak != "first" && (p.Mode != "random" || c.Env.ActionSpace != "discrete") {
		bad("planner.tie_break", "%q applies to planner.kind rss in mode random over a discrete action set (env.action_space: discrete), got mode %s, action space %s; use first",
			p.TieBreak, p.Mode, c.Env.ActionSpace)
	}
	c.CheckSequenceMemory(bad, "planner.tau", 1)
}

// tieBreaks are the values of planner.tie_break.
var tieBreaks = []string{"first", "vote", "mean"}

func init() {
	config.Register(config.Part{Group: "planner.mode", Name: "constant", Doc: "one rollout set per action, that action throughout (the paper's)"})
	config.Register(config.Part{Group: "planner.mode", Name: "random", Doc: "planner.n_sequences random action sequences; the first action of the best", Uses: []string{"planner.n_sequences"}})
}

// argmaxInt returns the index of the largest entry, the first of equals.
func argmaxInt(x []int) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}
