package plotting

import (
	"bytes"
	"html/template"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smrl-dev/smrl/internal/record"
	"github.com/smrl-dev/smrl/internal/results"
)

// copyResults copies a fixture results directory into a temporary one so
// that Report can write into it.
func copyResults(t *testing.T, fixture string) string {
	t.Helper()
	ep, err := os.ReadFile(filepath.Join(fixture, episodesFile))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(fixture, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	return writeResults(t, string(ep), string(sum))
}

func TestReport(t *testing.T) {
	tests := []struct {
		name      string
		fixture   string
		dens      DensitySource
		format    string
		wantRows  []string // table rows (prefixes)
		wantLinks []string
	}{
		{
			name:    "full png",
			fixture: fixtureResults,
			dens:    gaussSource{sigma: 0.6},
			wantRows: []string{
				// Values from testdata/results/summary.csv, episode 6.
				// An older file: no return per episode; the cells are
				// those of the terminal table (results.TableCells).
				`| oracle | 6 | 3 | - | 35.82 [34.38, 37.25] | 0 [0, 0] | 5.333 | - |`,
				`| sm | 6 | 3 | - | 28.68 [26.37, 30.99] | 7.135 [5.578, 8.691] | 10 | 0.2631 |`,
				"| lds | 6 | 3 | ",
			},
			wantLinks: []string{
				"![cum_reward](plots/cum_reward.png)",
				"![cum_regret](plots/cum_regret.png)",
				"![regret_loglog](plots/regret_loglog.png)",
				"![plus_count](plots/plus_count.png)",
				"![w_error](plots/w_error.png)",
				"![mdp](plots/mdp.png)",
				"![densities](plots/densities.png)",
			},
		},
		{
			name:     "no regret pdf",
			fixture:  fixtureNoRegret,
			format:   "pdf",
			wantRows: []string{"| sm | 6 | 1 | ", "| lds | 6 | 1 | "},
			wantLinks: []string{
				"[cum_reward](plots/cum_reward.pdf)",
				"[plus_count](plots/plus_count.pdf)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyResults(t, tt.fixture)
			figs, err := RunFigures(dir, filepath.Join(dir, "plots"), tt.dens, Options{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			if err := Report(dir, figs); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			md := string(b)
			if !strings.HasPrefix(md, "# ") {
				t.Errorf("report does not start with a title:\n%s", md)
			}
			for _, r := range tt.wantRows {
				if !strings.Contains(md, "\n"+r) {
					t.Errorf("report lacks row %q:\n%s", r, md)
				}
			}
			for _, l := range tt.wantLinks {
				if !strings.Contains(md, l) {
					t.Errorf("report lacks link %q:\n%s", l, md)
				}
			}
			if tt.format == "pdf" && strings.Contains(md, "![") {
				t.Errorf("pdf figures must be plain links, not images:\n%s", md)
			}
			if tt.dens == nil && strings.Contains(md, "cum_regret") {
				t.Errorf("report links a regret figure without an oracle:\n%s", md)
			}
		})
	}
}

func TestReportLinks(t *testing.T) {
	dir := copyResults(t, fixtureResults)
	outside := filepath.Join(filepath.Dir(dir), "other dir", "fig.svg")
	for _, f := range []string{filepath.Join(dir, "plots", "cum_reward.png"), outside} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("figure"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Report(dir, []string{filepath.Join(dir, "plots", "cum_reward.png"), outside}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"](plots/cum_reward.png)", "](../other%20dir/fig.svg)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q:\n%s", want, b)
		}
	}
}

func TestReportMissingSummary(t *testing.T) {
	dir := t.TempDir()
	err := Report(dir, nil)
	if want := filepath.Join(dir, summaryFile); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to name %s", err, want)
	}
}

// report.html holds the tables of report.md, cell for cell (the results,
// the aggregate metrics and the probability of improvement), and inlines
// every PNG figure.
func TestReportHTMLHasEveryTable(t *testing.T) {
	dir := copyResults(t, fixtureResults)
	for name, body := range map[string]string{aggregateFile: testAggregate, profileFile: testProfile,
		improvementFile: "agent_x,agent_y,probability,lo,hi\nsm,lds,1,1,1\nlds,sm,0,0,0\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	figs, err := RunFigures(dir, filepath.Join(dir, "plots"), gaussSource{sigma: 0.6}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Report(dir, figs); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(html)
	unescape := strings.NewReplacer(`\|`, "|", "\\`", "`")
	rows := 0
	for _, line := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
		tag := "td"
		if rows == 0 || strings.HasPrefix(line, "| agent |") || strings.HasPrefix(line, "| X |") {
			tag = "th"
		}
		var want strings.Builder
		for _, c := range cells {
			c = unescape.Replace(c)
			if tag == "td" {
				c = htmlCell(c)
			}
			want.WriteString("<" + tag + ">" + template.HTMLEscapeString(c) + "</" + tag + ">")
		}
		if !strings.Contains(page, "<tr>"+want.String()+"</tr>") {
			t.Errorf("report.html lacks the row %q of report.md", line)
		}
		rows++
	}
	if rows < 2+4 || !strings.Contains(string(md), "| sm | – | 1 [1, 1] |") || !strings.Contains(string(md), "| lds | 0 [0, 0] | – |") {
		t.Fatalf("report.md has %d table lines, without the aggregate tables:\n%s", rows, md)
	}
	if n := strings.Count(page, `src="data:image/png;base64,`); n != len(figs) {
		t.Errorf("report.html inlines %d figures, want %d", n, len(figs))
	}
}

// readCodeSpan reads back the content of the Markdown code span at the
// start of s as CommonMark does: the delimiter is the run of backticks it
// starts with, and one space is stripped from each end when both have one.
func readCodeSpan(t *testing.T, s string) string {
	t.Helper()
	n := len(s) - len(strings.TrimLeft(s, "`"))
	fence := s[:n]
	rest := s[n:]
	for i := 0; i < len(rest); {
		j := strings.Index(rest[i:], fence)
		if j < 0 {
			break
		}
		j += i
		k := j + len(fence)
		if (j == 0 || rest[j-1] != '`') && (k == len(rest) || rest[k] != '`') {
			c := rest[:j]
			if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
				c = c[1 : len(c)-1]
			}
			return c
		}
		i = k
	}
	t.Fatalf("no closing %s in %q", fence, s)
	return ""
}

// The command report.md records, pasted into a POSIX shell, gives back the
// arguments of the run: backticks, quotes and spaces are kept (issue 35,
// defect 13: --out 'a`b`c' was recorded as --out 'a'b'c').
func TestReportCommandReproducesArgs(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to read the command back")
	}
	args := []string{"smrl", "run", "--out", "a`b`c", "--set", "name=it's", "--config", "x y.yaml", "--set", "env.kind=$HOME", "``"}
	dir := copyResults(t, fixtureResults)
	if err := ReportTo(dir, dir, nil, ReportInfo{CommandLine: args}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	_, line, ok := strings.Cut(string(md), "\nCommand: ")
	if !ok {
		t.Fatalf("report.md has no command line:\n%s", md)
	}
	cmd := readCodeSpan(t, line)
	out, err := exec.Command(sh, "-c", `eval "set -- $1"; for a; do printf '%s\0' "$a"; done`, "sh", cmd).Output()
	if err != nil {
		t.Fatalf("sh reading %q: %v", cmd, err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "\n") != strings.Join(args, "\n") {
		t.Errorf("report.md records %q, which the shell reads as %q, want %q", cmd, got, args)
	}
}

// report.md and report.html show the results table as the terminal does:
// an interval beyond the seeds' range is clipped to it, with the seeds'
// range taken from episodes.csv (summary.csv does not hold it) and the
// note under the table (issue 35, item 4).
func TestReportClipsIntervalsAsTheTable(t *testing.T) {
	res := &record.Result{Trials: []record.Trial{{Agent: "oracle", Seed: 0}, {Agent: "oracle", Seed: 1}}}
	for _, rewards := range [][]float64{{-100, -110, -120}, {-900, -950, -1000}} {
		var eps []record.Episode
		for k, r := range rewards {
			eps = append(eps, record.Episode{Episode: k + 1, Reward: r, Steps: 200, WError: math.NaN(), Beta: math.NaN(), Accept: math.NaN()})
		}
		res.Episodes = append(res.Episodes, eps)
	}
	rows := results.Rows(res)
	sums := results.Summarise(rows, 200)
	var ep, sum, table bytes.Buffer
	if err := results.WriteEpisodes(&ep, rows, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteSummary(&sum, sums); err != nil {
		t.Fatal(err)
	}
	dir := writeResults(t, ep.String(), sum.String())
	if err := Report(dir, nil); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := results.Table(&table, sums, results.Columns{Cumulative: true, PlusCount: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-530 [-950, -110]" + results.ClipMark, results.ClipNote} {
		if !strings.Contains(table.String(), want) {
			t.Fatalf("the terminal table lacks %q:\n%s", want, table.String())
		}
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
		if !strings.Contains(string(html), template.HTMLEscapeString(want)) && !strings.Contains(string(html), template.HTMLEscapeString(htmlCell(want))) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}
