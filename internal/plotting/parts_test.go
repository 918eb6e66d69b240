package plotting

import (
	"slices"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"

	// The agents register their figure styles (config.Look) and the
	// regret baseline (config.IsBaseline) in their package's init: the
	// test binary links them, as smrl does (the package itself does not:
	// TestReadersDoNotLinkTheSimulator).
	_ "github.com/smrl-dev/smrl/internal/agent"
)

// lookedAgents returns the agents whose registration declares a Look, in
// legend order.
func lookedAgents() []string {
	var out []string
	for _, p := range config.Parts("agents") {
		if p.Look != nil {
			out = append(out, p.Name)
		}
	}
	sortAgents(out)
	return out
}

// The styles of oracle, sm, lds, mle and their -ucb/-ps variants are their
// registrations' (config.Look), in the legend order they always had, and
// an agent without one gets the hashed fallback.
func TestAgentStylesFromRegistrations(t *testing.T) {
	want := []string{"oracle", "sm", "sm-ucb", "sm-ps", "lds", "lds-ucb", "lds-ps", "mle", "mle-ucb", "mle-ps", "ksm"}
	got := lookedAgents()
	if len(got) != len(want) {
		t.Fatalf("agents with a registered look %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("legend order %v, want %v", got, want)
		}
	}
	if s := AgentStyle("sm"); hexColor(s.Color) != "#0072B2" || s.Dashes != nil {
		t.Errorf("sm: %s %v, want the Okabe–Ito blue #0072B2, solid", hexColor(s.Color), s.Dashes)
	}
	if s := AgentStyle("lds-ucb"); hexColor(s.Color) != "#BE1432" || len(s.Dashes) != 2 || s.Dashes[0] != 6 || s.Dashes[1] != 3 {
		t.Errorf("lds-ucb: %s %v", hexColor(s.Color), s.Dashes)
	}
	if _, ok := config.AgentLook("lqr"); ok || !slices.Contains(fallbackColors, AgentStyle("lqr").Color) {
		t.Errorf("lqr has no registered look, so it is drawn in a fallback colour, not %s", hexColor(AgentStyle("lqr").Color))
	}
	agents := []string{"zeta", "mle", "lqr", "oracle", "sm-ps"}
	sortAgents(agents)
	if agents[0] != "oracle" || agents[1] != "sm-ps" || agents[2] != "mle" || agents[3] != "lqr" || agents[4] != "zeta" {
		t.Errorf("sortAgents: %v", agents)
	}
}
