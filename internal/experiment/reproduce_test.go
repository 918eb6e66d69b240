package experiment

import (
	"context"
	"os"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestFullPaperAcceptance checks the paper's comparison at full scale
// (5 seeds × 50 episodes) against the acceptance criteria: SM's mean final
// cumulative reward within 5% of the oracle's, LDS at least 15% below, SM
// playing +1 at least 9 of 10 steps (mean over seeds) from episode 5 on, and
// −1 instead with W0 = [1, −1]. It runs under make reproduce
// (SMRL_REPRODUCE=1); the reduced version runs in every go test.
func TestFullPaperAcceptance(t *testing.T) {
	if os.Getenv("SMRL_REPRODUCE") == "" {
		t.Skip("set SMRL_REPRODUCE=1 (make reproduce)")
	}
	for _, tc := range []struct {
		path    string
		flipped bool
	}{{"../../configs/synthetic.yaml", false}, {"../../configs/synthetic-flipped.yaml", true}} {
		c := testutil.LoadConfig(t, tc.path)
		dir := t.TempDir()
		if err := Run(context.Background(), c, Options{OutDir: dir}); err != nil {
			t.Fatal(err)
		}
		cum, plus := final(t, dir)
		sm, lds, or := mean(cum["sm"]), mean(cum["lds"]), mean(cum["oracle"])
		t.Logf("%s: oracle %.1f sm %.1f (%.1f%%) lds %.1f (%.1f%%)", tc.path, or, sm, 100*(sm/or-1), lds, 100*(lds/or-1))
		if sm < 0.95*or {
			t.Errorf("sm %.1f not within 5%% of oracle %.1f", sm, or)
		}
		if lds > 0.85*or {
			t.Errorf("lds %.1f not 15%% below oracle %.1f", lds, or)
		}
		minPlus, maxPlus := 10.0, 0.0
		for ep := 5; ep <= c.Episodes; ep++ {
			p := mean(plus["sm"][ep])
			minPlus, maxPlus = min(minPlus, p), max(maxPlus, p)
		}
		t.Logf("sm plus count from episode 5: min %.1f max %.1f", minPlus, maxPlus)
		if !tc.flipped && minPlus < 9 {
			t.Errorf("sm plays +1 only %.1f times in some episode >= 5", minPlus)
		}
		if tc.flipped && maxPlus > 1 {
			t.Errorf("flipped: sm plays +1 %.1f times in some episode >= 5", maxPlus)
		}
	}
}
