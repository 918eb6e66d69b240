package agent

import (
	"math"
	"math/rand/v2"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/env"
)

// RandomName is the agent that plays uniformly random actions: the low
// reference of normalised scores (stats.normalise: random-oracle).
const RandomName = config.RandomAgent

// The random agent (config key agents): every step an action drawn
// uniformly from the planner's stream, among env.actions (each with
// probability 1/|A|) or from the box (each coordinate uniform on
// [low, high]). It fits and plans nothing, so it ignores λ, lambda: cv and
// the planner.
func init() {
	RegisterAgent(AgentKind{Build: newRandomAgent, Part: config.Part{Name: RandomName, LambdaCV: true,
		Doc: "plays uniformly random actions (the low reference of stats.normalise: random-oracle)"}})
}

func newRandomAgent(name string, spec env.ModelSpec, _ env.Dynamics, c Config) (*Agent, error) {
	return &Agent{Name: name, base: name, Beta: math.NaN(), Accept: math.NaN(), delta: spec.Delta, Random: true, box: c.Box}, nil
}

// RandomAction draws the random agent's action from rng: an index of the
// planner's discrete actions (n of them), or, with a box, BoxAction and
// the action written into out.
func (a *Agent) RandomAction(rng *rand.Rand, n int, out []float64) int {
	if a.box == nil {
		return rng.IntN(n)
	}
	for i := range out {
		lo, hi := a.box.Low[i], a.box.High[i]
		out[i] = lo + rng.Float64()*(hi-lo)
	}
	return BoxAction
}
