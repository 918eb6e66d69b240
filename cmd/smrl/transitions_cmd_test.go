package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --save-transitions with --dry-run, --overwrite and --resume (issue 25
// on issue 18's flags): the plan names the file and nothing is written; a
// run that replaces results leaves no transitions file of the old run; a
// resume is refused, before any work.
func TestSaveTransitionsWithRunFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	base := []string{"run", "--config", quickConfig, "--seeds", "1", "--episodes", "2", "--no-plots", "-q", "--out", out}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(out, name))
		return err == nil
	}

	code, stdout, stderr := run(t, append(base, "--save-transitions=gz", "--dry-run")...)
	if code != ExitOK {
		t.Fatalf("--dry-run: exit %d: %s", code, stderr)
	}
	// quick: 3 agents × 1 seed × 2 episodes × horizon 10.
	if want := "transitions: " + filepath.Join(out, "transitions.csv.gz") + " (at most 60 rows"; !strings.Contains(stdout, want) {
		t.Errorf("the plan lacks %q:\n%s", want, stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatalf("--dry-run created %s", out)
	}
	if _, stdout, _ = run(t, append(base, "--dry-run")...); strings.Contains(stdout, "transitions") {
		t.Errorf("a plan without --save-transitions names a transitions file:\n%s", stdout)
	}

	for _, step := range []struct {
		args       []string
		csv, gz    bool
		wantRefuse string
	}{
		{args: []string{"--save-transitions=gz"}, gz: true},
		// Completed results: refused without --overwrite, the file kept.
		{args: []string{"--save-transitions"}, gz: true, wantRefuse: "holds completed results"},
		{args: []string{"--save-transitions", "--overwrite"}, csv: true},
		{args: []string{"--save-transitions", "--resume"}, csv: true, wantRefuse: "--save-transitions cannot be combined with --resume"},
		{args: []string{"--save-transitions", "--resume", "--dry-run"}, csv: true, wantRefuse: "--save-transitions cannot be combined with --resume"},
		// Replaced without --save-transitions: the old file goes too.
		{args: []string{"--overwrite"}},
	} {
		code, stdout, stderr := run(t, append(base, step.args...)...)
		if step.wantRefuse != "" {
			wantUsage(t, code, stdout, stderr, step.wantRefuse)
		} else if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", step.args, code, stderr)
		}
		if exists("transitions.csv") != step.csv || exists("transitions.csv.gz") != step.gz {
			t.Errorf("after %v: transitions.csv %v, transitions.csv.gz %v; want %v, %v",
				step.args, exists("transitions.csv"), exists("transitions.csv.gz"), step.csv, step.gz)
		}
	}
}
