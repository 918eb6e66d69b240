package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/smrl-dev/smrl/internal/testutil"
)

// readEpisodes returns the header and rows of a run's episodes.csv.
func readEpisodes(t *testing.T, dir string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "episodes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[0], recs[1:]
}

// TestSaveSEMatchesEstimate: with stats.save_se the se_k_j columns of a
// trial's last episode equal smrl estimate's standard errors on the same
// transitions (--save-transitions, --where) to 1e-12 for sm and lds; the
// other columns equal those of the run without it, which has no se
// columns; and the file is byte-identical for --workers 1 and 2.
func TestSaveSEMatchesEstimate(t *testing.T) {
	base := []string{"run", "--seeds", "2", "--episodes", "3", "--set", "agents=[sm, lds, oracle]", "--no-plots"}
	plain, se1, se2 := t.TempDir(), t.TempDir(), t.TempDir()
	for _, r := range []struct {
		dir  string
		more []string
	}{
		{plain, []string{"--workers", "1"}},
		{se1, []string{"--workers", "1", "--set", "stats.save_se=true", "--save-transitions"}},
		{se2, []string{"--workers", "2", "--save-se"}},
	} {
		args := append(slices.Clone(base), "--out", r.dir)
		if code, _, errOut := run(t, append(args, r.more...)...); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	ph, prows := readEpisodes(t, plain)
	sh, srows := readEpisodes(t, se1)
	if slices.ContainsFunc(ph, func(s string) bool { return s[:min(3, len(s))] == "se_" }) {
		t.Fatalf("episodes.csv without save_se has se columns: %v", ph)
	}
	// The se columns follow W, before the refit diagnostics and action
	// counts that end every file.
	pc, sc := slices.Index(ph, "cond"), slices.Index(sh, "cond")
	if pc < 0 || !slices.Equal(sh[:pc], ph[:pc]) || !slices.Equal(sh[pc:sc], []string{"se_0_0", "se_0_1"}) || !slices.Equal(sh[sc:], ph[pc:]) {
		t.Fatalf("header with save_se %v, without %v", sh, ph)
	}
	for i, r := range srows {
		if !slices.Equal(r[:pc], prows[i][:pc]) || !slices.Equal(r[sc:], prows[i][pc:]) {
			t.Fatalf("row %d differs from the run without save_se: %v vs %v", i, r, prows[i])
		}
	}
	b1, _ := os.ReadFile(filepath.Join(se1, "episodes.csv"))
	b2, _ := os.ReadFile(filepath.Join(se2, "episodes.csv"))
	if string(b1) != string(b2) {
		t.Errorf("episodes.csv with save_se differs between --workers 1 and 2")
	}
	for _, agent := range []string{"sm", "lds"} {
		var last []string
		for _, r := range srows {
			if r[0] == agent && r[1] == "1" {
				last = r
			}
		}
		if last == nil || last[2] != "3" {
			t.Fatalf("%s seed 1: no last episode in %v", agent, srows)
		}
		est := runJSON(t, "--data", filepath.Join(se1, "transitions.csv"), "--where", "agent="+agent+",seed=1", "--method", agent)
		want := est.Estimates[0].SE[0]
		for j, w := range want {
			got, err := strconv.ParseFloat(last[pc+j], 64)
			if err != nil || !testutil.AbsWithin(got, w, 1e-12*math.Abs(w)) || !(w > 0) {
				t.Errorf("%s se_0_%d = %q, smrl estimate %v", agent, j, last[pc+j], w)
			}
		}
		if got, _ := strconv.ParseFloat(last[pc-1], 64); got != est.Estimates[0].W[0][1] {
			t.Errorf("%s w_0_1 = %v, smrl estimate %v", agent, got, est.Estimates[0].W[0][1])
		}
	}
}
