package agent

import (
	"math/rand/v2"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
)

// pairSim remembers the first action: state (a_0, t) → (a_0 if t = 0, t + 1).
type pairSim struct{}

func (pairSim) Step(s, a []float64, _ *rand.Rand, out []float64) {
	out[0], out[1] = s[0], s[1]+1
	if s[1] == 0 {
		out[0] = a[0]
	}
}
func (pairSim) Deterministic() bool { return true }

// pairTask pays f(a_0, a_1) at t = 1 and nothing else, so that with τ = 3
// (two actions) a sequence's value is f(a_0, a_1) exactly.
type pairTask struct{ f [3][3]float64 }

func (p pairTask) Reward(s, a []float64) float64 {
	if s[1] == 1 {
		return p.f[int(s[0])][int(a[0])]
	}
	return 0
}
func (pairTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (pairTask) Terminates() bool                   { return false }

// A constructed tie: the best value 1 is reached by (0, 0), (0, 1) and
// (1, 0). First action 0 has two best sequences but a low mean (1, 1,
// −100); first action 1 one best sequence and the highest mean (1, 0.9,
// 0.9); first action 2 none. So vote plays 0 and mean plays 1 whatever the
// draw (with 900 sequences each pair is drawn about 100 times), and first
// plays the first action of the first-drawn sequence of value 1. Each rule
// is also checked against the counts of the replayed draw.
func TestTieBreak(t *testing.T) {
	task := pairTask{f: [3][3]float64{{1, 1, -100}, {1, 0.9, 0.9}, {-1, -1, -1}}}
	actions := [][]float64{{0}, {1}, {2}}
	for seed := uint64(1); seed <= 5; seed++ {
		// Replay the draws: two uniform actions per sequence, nothing else.
		rng := rand.New(rand.NewPCG(seed, 3))
		first := -1
		var votes [3]int
		var sum [3]float64
		var n [3]int
		for range 900 {
			a0, a1 := rng.IntN(3), rng.IntN(3)
			v := task.f[a0][a1]
			if v == 1 {
				votes[a0]++
				if first < 0 {
					first = a0
				}
			}
			sum[a0] += v
			n[a0]++
		}
		if !(votes[0] > votes[1] && votes[1] > 0 && sum[1]/float64(n[1]) > sum[0]/float64(n[0])) {
			t.Fatalf("seed %d: the draw does not realise the constructed tie: votes %v, sums %v, counts %v", seed, votes, sum, n)
		}
		for _, c := range []struct {
			rule string
			want int
		}{{"first", first}, {"vote", 0}, {"mean", 1}} {
			pl, err := NewFromConfig(config.Planner{Kind: "rss", Mode: "random", NRollouts: 1, Tau: 3, NSequences: 900, TieBreak: c.rule},
				actions, nil, task, 2)
			if err != nil {
				t.Fatal(err)
			}
			a, v := pl.Best(pairSim{}, []float64{0, 0}, rand.New(rand.NewPCG(seed, 3)))
			if a != c.want || v != 1 {
				t.Errorf("seed %d, tie_break %s: played %d with value %v, want %d with value 1", seed, c.rule, a, v, c.want)
			}
		}
	}
	// A rule other than first needs random mode over a discrete set.
	for _, c := range []config.Planner{
		{Kind: "rss", Mode: "constant", NRollouts: 1, Tau: 3, NSequences: 9, TieBreak: "vote"},
		{Kind: "rss", Mode: "random", NRollouts: 1, Tau: 3, NSequences: 9, TieBreak: "median"},
	} {
		if _, err := NewFromConfig(c, actions, nil, task, 2); err == nil {
			t.Errorf("%+v: want an error", c)
		}
	}
}

// scriptTask pays the next of its values at t = 1 (with pairSim and τ = 3:
// one value per sequence, in the order the sequences are valued), whatever
// the actions.
type scriptTask struct {
	vals []float64
	next *int
}

func (p scriptTask) Reward(s, _ []float64) float64 {
	if s[1] != 1 {
		return 0
	}
	v := p.vals[*p.next]
	*p.next++
	return v
}
func (scriptTask) Terminal([]float64) (bool, float64) { return false, 0 }
func (scriptTask) Terminates() bool                   { return false }

// Each rule counts only what it says, against the replayed draw of a
// scripted value sequence V_j = 0.5 + 0.001 j rising to a unique best
// V_{n−1} = 1: vote counts only the sequences of the final best value (not
// those that were best so far: then it would play the most frequent first
// action), mean divides each action's sum by its count (not the sum: then
// it would play the most frequent one too). The seed is one whose draw
// tells these apart.
func TestTieBreakCounts(t *testing.T) {
	const n, seed = 60, 2
	vals := make([]float64, n)
	for j := range vals {
		vals[j] = 0.5 + 0.001*float64(j)
	}
	vals[n-1] = 1
	rng := rand.New(rand.NewPCG(seed, 3))
	var count [3]int
	var sum [3]float64
	var lastFirst int
	for j := range n {
		a0, _ := rng.IntN(3), rng.IntN(3)
		count[a0]++
		sum[a0] += vals[j]
		lastFirst = a0
	}
	wantMean, mostFrequent := 0, 0
	for i := range 3 {
		if sum[i]/float64(count[i]) > sum[wantMean]/float64(count[wantMean]) {
			wantMean = i
		}
		if count[i] > count[mostFrequent] {
			mostFrequent = i
		}
	}
	if lastFirst == mostFrequent || wantMean == mostFrequent {
		t.Fatalf("seed %d does not tell the rules from counting: best sequence's first action %d, best mean %d, most frequent %d (counts %v)",
			seed, lastFirst, wantMean, mostFrequent, count)
	}
	for _, c := range []struct {
		rule string
		want int
	}{{"vote", lastFirst}, {"mean", wantMean}} {
		var next int
		pl, err := NewFromConfig(config.Planner{Kind: "rss", Mode: "random", NRollouts: 1, Tau: 3, NSequences: n, TieBreak: c.rule},
			[][]float64{{0}, {1}, {2}}, nil, scriptTask{vals, &next}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if a, v := pl.Best(pairSim{}, []float64{0, 0}, rand.New(rand.NewPCG(seed, 3))); a != c.want || v != 1 || next != n {
			t.Errorf("tie_break %s: played %d with value %v after %d values, want %d with value 1 after %d", c.rule, a, v, next, c.want, n)
		}
	}
}
