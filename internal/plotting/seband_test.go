package plotting

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// TestSEBands: the W-error band of stats.save_se is the mean over seeds of
// sqrt(Σ se_kj²), per agent and episode, skipping rows without se cells;
// a file without se columns has none.
func TestSEBands(t *testing.T) {
	dir := t.TempDir()
	head := "agent,seed,episode,reward,steps,cum_reward,regret,cum_regret,plus_count,w_error,beta,ball_accept,w_0_0,w_0_1"
	p := filepath.Join(dir, "episodes.csv")
	os.WriteFile(p, []byte(head+",se_0_0,se_0_1\n"+
		"sm,0,1,1,10,1,,,5,0.5,,,1,1,3,4\n"+
		"sm,1,1,1,10,1,,,5,0.5,,,1,1,6,8\n"+
		"sm,0,2,1,10,2,,,5,0.5,,,1,1,0.3,0.4\n"+
		"oracle,0,1,1,10,1,,,5,,,,1,1,,\n"), 0o644)
	b, err := seBands(p, episodeColumns)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1 || !testutil.AbsWithin(b["sm"][1], 7.5, 1e-15) || !testutil.AbsWithin(b["sm"][2], 0.5, 1e-15) || len(b["sm"]) != 2 {
		t.Errorf("bands %v, want sm: {1: 7.5, 2: 0.5}", b)
	}
	os.WriteFile(p, []byte(head+"\nsm,0,1,1,10,1,,,5,0.5,,,1,1\n"), 0o644)
	if b, err := seBands(p, episodeColumns); err != nil || b != nil {
		t.Errorf("no se columns: %v, %v", b, err)
	}
	os.WriteFile(p, []byte(head+",se_0_0\nsm,0,1,1,10,1,,,5,0.5,,,1,1,x\n"), 0o644)
	if _, err := seBands(p, episodeColumns); err == nil {
		t.Errorf("a non-numeric se cell was accepted")
	}
}
