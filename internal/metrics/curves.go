package metrics

import (
	"slices"
)

// Curve is an agent's learning curve so far: for every episode number
// 1, 2, … the mean return over the seeds that have finished it (N of
// them). Episodes no seed has reached are absent (the slices end there).
type Curve struct {
	Agent string
	Mean  []float64
	N     []int
}

// Curves returns the learning curve of every agent in lines, in the order
// of order (agents not in it follow, sorted by name), whatever the order
// the lines came in. A line repeated (an episode of a trial run twice: a
// resume recomputes the trials in flight at an interrupt) counts once,
// the last one.
func Curves(lines []Line, order []string) []Curve {
	type key struct {
		agent         string
		seed, episode int
	}
	last := map[key]float64{}
	var keys []key
	for _, l := range lines {
		k := key{l.Agent, l.Seed, l.Episode}
		if _, ok := last[k]; !ok {
			keys = append(keys, k)
		}
		last[k] = l.Return
	}
	byAgent := map[string]*Curve{}
	for _, k := range keys {
		c := byAgent[k.agent]
		if c == nil {
			c = &Curve{Agent: k.agent}
			byAgent[k.agent] = c
		}
		for len(c.Mean) < k.episode {
			c.Mean, c.N = append(c.Mean, 0), append(c.N, 0)
		}
		c.Mean[k.episode-1] += last[k] // a sum until divided below
		c.N[k.episode-1]++
	}
	names := agentOrder(byAgent, order)
	out := make([]Curve, 0, len(names))
	for _, a := range names {
		c := byAgent[a]
		// Drop the episodes no seed reached yet (a trial's later episodes
		// before an earlier one is impossible, but resumed seeds differ).
		end := len(c.N)
		for end > 0 && c.N[end-1] == 0 {
			end--
		}
		c.Mean, c.N = c.Mean[:end], c.N[:end]
		for i := range c.Mean {
			if c.N[i] > 0 {
				c.Mean[i] /= float64(c.N[i])
			}
		}
		out = append(out, *c)
	}
	return out
}

// agentOrder is the agents of m in order, then the others by name.
func agentOrder[T any](m map[string]T, order []string) []string {
	var names []string
	for _, a := range order {
		if _, ok := m[a]; ok && !slices.Contains(names, a) {
			names = append(names, a)
		}
	}
	var rest []string
	for a := range m {
		if !slices.Contains(names, a) {
			rest = append(rest, a)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}
