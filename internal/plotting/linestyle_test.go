package plotting

import (
	"fmt"
	"testing"
)

// Up to len(comboDashes) lines of a sweep figure differ in their dash
// pattern as well as their marker, so that lines lying on one another
// (five τ values) stay apart; in the densities figure every agent's line
// is thinner than the one drawn before it, so that both show.
func TestDistinctLineStyles(t *testing.T) {
	seen := map[string]int{}
	for j := range comboDashes {
		key := fmt.Sprint(comboDashes[j])
		if k, ok := seen[key]; ok {
			t.Errorf("lines %d and %d share the dash pattern %s", k, j, key)
		}
		seen[key] = j
		if j > 0 && fmt.Sprintf("%T", fallbackGlyphs[j%len(fallbackGlyphs)]) == fmt.Sprintf("%T", fallbackGlyphs[(j-1)%len(fallbackGlyphs)]) {
			t.Errorf("lines %d and %d share their marker", j-1, j)
		}
	}
	for n := 2; n <= 6; n++ {
		for k := 1; k < n; k++ {
			if !(agentDensityWidth(k, n) < agentDensityWidth(k-1, n)) {
				t.Errorf("n = %d: agent %d's width %v is not below agent %d's %v", n, k, agentDensityWidth(k, n), k-1, agentDensityWidth(k-1, n))
			}
		}
		if agentDensityWidth(n-1, n) < 0.5 {
			t.Errorf("n = %d: the last agent's line is %v wide, too thin to see", n, agentDensityWidth(n-1, n))
		}
	}
}
