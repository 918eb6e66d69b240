package plotting

import "github.com/smrl-dev/smrl/internal/config"

// The readers learn the regret baseline from the agents' registrations
// (config.IsBaseline), which package agent makes; this package's tests do
// not link it, so they register the oracle's part as agent does.
func init() {
	config.Register(config.Part{Group: "agents", Name: "oracle", Baseline: true})
}
