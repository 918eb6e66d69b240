package plotting

import (
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
				`| oracle | 6 | 3 | - | 35.8 [34.4, 37.3] | 0.0 [0.0, 0.0] | 5.3 | - |`,
				`| sm | 6 | 3 | - | 28.7 [26.4, 31.0] | 7.1 [5.6, 8.7] | 10.0 | 0.263 |`,
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
			want.WriteString("<" + tag + ">" + template.HTMLEscapeString(unescape.Replace(c)) + "</" + tag + ">")
		}
		if !strings.Contains(page, "<tr>"+want.String()+"</tr>") {
			t.Errorf("report.html lacks the row %q of report.md", line)
		}
		rows++
	}
	if rows < 2+4 || !strings.Contains(string(md), "| sm | lds | 1 [1, 1] |") {
		t.Fatalf("report.md has %d table lines, without the aggregate tables:\n%s", rows, md)
	}
	if n := strings.Count(page, `src="data:image/png;base64,`); n != len(figs) {
		t.Errorf("report.html inlines %d figures, want %d", n, len(figs))
	}
}
