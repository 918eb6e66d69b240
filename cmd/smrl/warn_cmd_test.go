package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// studyConfig is issue 35's study at 2 seeds × 10 episodes with the plain
// estimator (sm.floor: 0), whose sm seed 1 rests on little information in
// one direction of Ŵ; the run narrows it to sm, lds and the oracle.
const studyConfig = "../../internal/experiment/testdata/study.yaml"

// Warnings reach stderr with --quiet (nothing else does), one line each
// beginning "warning:", and a resumed run warns over all its trials,
// those of the journal included.
func TestWarningsWithQuietAndResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "res")
	code, stdout, stderr := run(t, "run", "--config", studyConfig, "--set", "agents=[sm,lds,oracle]", "--out", out, "--quiet", "--no-plots", "--workers", "2")
	want := "warning: agent sm seed 1 refit rests on little information"
	if code != ExitOK || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Drop lds seed 0 from the journal: the resume runs it again and
	// still warns of sm seed 1, which it does not run.
	jpath := filepath.Join(out, "journal.jsonl")
	b, err := os.ReadFile(jpath)
	if err != nil {
		t.Fatal(err)
	}
	var keep []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		var tr struct {
			Agent string
			Seed  int
		}
		if len(line) > 0 && json.Unmarshal(line, &tr) == nil && tr.Agent == "lds" && tr.Seed == 0 {
			continue
		}
		keep = append(keep, line...)
	}
	if len(keep) == len(b) {
		t.Fatal("no lds seed 0 in the journal")
	}
	if err := os.WriteFile(jpath, keep, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr2 := run(t, "run", "--config", studyConfig, "--set", "agents=[sm,lds,oracle]", "--out", out, "--quiet", "--no-plots", "--resume")
	if code != ExitOK || stdout != "" || stderr2 != stderr {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q (first run's %q)", code, stdout, stderr2, stderr)
	}
}
