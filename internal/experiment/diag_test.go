package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/config"
	"github.com/smrl-dev/smrl/internal/grid"
	"github.com/smrl-dev/smrl/internal/results"
	"github.com/smrl-dev/smrl/internal/testutil"
)

// studyYAML is testdata/study.yaml: issue 35's study at 2 seeds × 10
// episodes with the plain estimator, whose sm seed 1 is a weak refit.
const studyYAML = "testdata/study.yaml"

// The study (2 seeds × 10 episodes) warns that sm's seed 1, whose
// |Ŵ − W0|_F is 23, rests on little information in some direction, on
// stderr, in the table and in both reports; episodes.csv ends with the
// diagnostics and one count per action, which sum to the steps, and is
// byte-identical for 1 and 2 workers.
func TestStudyWarnsOfWeakRefit(t *testing.T) {
	c := testutil.LoadConfig(t, studyYAML)
	c.Stats.BootstrapReps = fewDraws
	var first []byte
	var dir string
	for _, w := range []int{1, 2} {
		dir = t.TempDir()
		var out, warn bytes.Buffer
		opt := Options{OutDir: dir, Workers: w, Stdout: &out, Warn: &warn}
		if w == 2 {
			opt.Plot = func(d string) error { _, err := Figures(d, "svg"); return err }
		}
		if err := Run(context.Background(), c, opt); err != nil {
			t.Fatal(err)
		}
		b := readFile(t, dir, results.EpisodesFile)
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Fatalf("episodes.csv with %d workers differs from 1 worker", w)
		}
		lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
		var sm1 string
		for _, l := range lines {
			if !strings.HasPrefix(l, "warning: ") {
				t.Errorf("stderr line %q does not begin with warning:", l)
			}
			if strings.HasPrefix(l, "warning: agent sm seed 1 ") {
				sm1 = l
			}
		}
		if !strings.Contains(sm1, "smallest eigenvalue of V") || !strings.Contains(sm1, "lambda") || !strings.Contains(sm1, "sm-ps") {
			t.Errorf("no min-eigenvalue warning for sm seed 1 naming lambda and sm-ps: %q", warn.String())
		}
		if !strings.Contains(out.String(), "warned seeds") || !strings.Contains(out.String(), "!1 of 2") {
			t.Errorf("table without the warned seeds:\n%s", out.String())
		}
		if w == 2 {
			for _, f := range []string{"report.md", "report.html"} {
				if r := string(readFile(t, dir, f)); !strings.Contains(r, "Warnings") || !strings.Contains(r, "agent sm seed 1 refit rests on little information") {
					t.Errorf("%s lacks the warnings", f)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "plots", "actions.svg")); err != nil {
				t.Errorf("no actions figure: %v", err)
			}
		}
	}
	header, col, rows := readEpisodes(t, dir)
	tail := strings.Join(header[len(header)-6:], ",")
	if tail != "cond,min_eig_n,w_step,action_0,action_1,action_2" {
		t.Fatalf("episodes.csv ends with %s", tail)
	}
	for _, r := range rows {
		steps, _ := strconv.Atoi(r[col["steps"]])
		sum := 0
		for k := range 3 {
			n, err := strconv.Atoi(r[col["action_"+strconv.Itoa(k)]])
			if err != nil {
				t.Fatalf("row %v: action_%d: %v", r[:3], k, err)
			}
			sum += n
		}
		if sum != steps {
			t.Errorf("row %v: action counts sum to %d, steps %d", r[:3], sum, steps)
		}
		if learner := r[0] != "oracle"; learner != (r[col["cond"]] != "") {
			t.Errorf("row %v: cond %q", r[:3], r[col["cond"]])
		}
	}
}

// The paper's comparison (configs/synthetic.yaml, 5 seeds × 50 episodes)
// raises no warning: its refits are well posed and every agent plays both
// actions.
func TestSyntheticDoesNotWarn(t *testing.T) {
	c := testutil.LoadConfig(t, "../../configs/synthetic.yaml")
	var warn bytes.Buffer
	if err := Run(context.Background(), c, Options{OutDir: t.TempDir(), Workers: 2, Warn: &warn}); err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 {
		t.Errorf("warnings on the paper's comparison:\n%s", warn.String())
	}
}

// stripDiagnostics rewrites dir as an earlier smrl left it: a journal
// without the refit diagnostics and action counts, episodes.csv without
// their columns.
func stripDiagnostics(t *testing.T, dir string) {
	t.Helper()
	jpath := filepath.Join(dir, results.JournalFile)
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSpace(readFile(t, dir, results.JournalFile)), []byte("\n")) {
		var l map[string]any
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		for _, e := range l["episodes"].([]any) {
			for _, k := range []string{"cond", "min_eig_n", "w_step", "actions"} {
				delete(e.(map[string]any), k)
			}
		}
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	if err := os.WriteFile(jpath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	header, _, _ := readEpisodes(t, dir)
	keep := 0
	for keep < len(header) && header[keep] != "cond" && !strings.HasPrefix(header[keep], "action_") {
		keep++
	}
	var eps bytes.Buffer
	for _, line := range strings.SplitAfter(string(readFile(t, dir, results.EpisodesFile)), "\n") {
		if line == "" {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(line, "\n"), ",")
		eps.WriteString(strings.Join(cells[:keep], ",") + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, results.EpisodesFile), eps.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A results directory written before the diagnostics (no diagnostics in
// its journal, no trailing columns in episodes.csv) is drawn by smrl plot,
// merged by smrl merge and resumed by smrl run --resume.
func TestOldResultsWithoutDiagnostics(t *testing.T) {
	c := quick(t)
	dir := quickRun(t)
	stripDiagnostics(t, dir)
	if _, err := Plot(dir, "", "svg"); err != nil {
		t.Fatalf("plot of an old directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "actions.svg")); err == nil {
		t.Error("an actions figure without action counts")
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := Merge(context.Background(), []string{dir}, Options{OutDir: out}); err != nil {
		t.Fatalf("merge of an old directory: %v", err)
	}
	if !bytes.Equal(readFile(t, out, results.EpisodesFile), readFile(t, dir, results.EpisodesFile)) {
		t.Error("merge changed an old directory's episodes.csv")
	}
	// Drop the last trial of the canonical order (the journal's order is
	// that of completion): the resume runs it with diagnostics, the old
	// trials keep empty cells.
	var j []byte
	for _, line := range bytes.SplitAfter(readFile(t, dir, results.JournalFile), []byte("\n")) {
		var tr struct {
			Agent string
			Seed  int
		}
		if len(line) > 0 && json.Unmarshal(line, &tr) != nil {
			t.Fatalf("journal line %s", line)
		}
		if tr.Agent != c.Agents[len(c.Agents)-1] || tr.Seed != c.Seeds-1 {
			j = append(j, line...)
		}
	}
	if journalLines(dir) != c.Seeds*len(c.Agents) || bytes.Count(j, []byte("\n")) != c.Seeds*len(c.Agents)-1 {
		t.Fatalf("journal without the last trial: %s", j)
	}
	if err := os.WriteFile(filepath.Join(dir, results.JournalFile), j, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), c, Options{OutDir: dir, Workers: 2, Resume: true}); err != nil {
		t.Fatalf("resume of an old directory: %v", err)
	}
	if _, err := Plot(dir, "", "svg"); err != nil {
		t.Fatalf("plot of a resumed old directory: %v", err)
	}
	header, col, rows := readEpisodes(t, dir)
	if header[len(header)-1] != "action_1" || rows[0][col["action_0"]] != "" || rows[len(rows)-1][col["action_0"]] == "" {
		t.Errorf("resumed episodes.csv: header %v, first row %v, last row %v", header, rows[0], rows[len(rows)-1])
	}
}

// A sweep prints its points' warnings on stderr, each line naming its
// point, and its table counts the warned seeds per point and agent (it
// printed none).
func TestSweepWarnsPerPoint(t *testing.T) {
	s, err := grid.Load(config.Options{Path: studyYAML, Environ: []string{"SMRL_AGENTS=sm"}}, []string{"sm.floor=0,5"})
	if err != nil {
		t.Fatal(err)
	}
	var out, warn bytes.Buffer
	if err := RunSweep(context.Background(), s, SweepOptions{Options: Options{OutDir: filepath.Join(t.TempDir(), "sweep"), Stdout: &out, Warn: &warn}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "warning: point sm.floor=0: agent sm seed 1 refit rests on little information") {
		t.Errorf("warnings:\n%s", warn.String())
	}
	if !strings.Contains(out.String(), "warned seeds") || !strings.Contains(out.String(), "!1 of 2") {
		t.Errorf("table:\n%s", out.String())
	}
}
