package plotting

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/fsutil"
	"github.com/smrl-dev/smrl/internal/results"
)

// ReportFile is the name of the report Report writes into a results
// directory.
const ReportFile = "report.md"

// bandNote describes the shaded bands of the figures over episodes.
const bandNote = "95% Student-t interval clipped to the range of the seeds' values (a t interval over few seeds is wide and can leave what is possible; the seeds' range never does)."

// ReportInfo describes a run for its report: what the results directory's
// CSV files do not say.
type ReportInfo struct {
	// Name and Description are the config's name and the first paragraph
	// of its leading comment; an empty Name titles the report after the
	// directory.
	Name, Description string
	// CommandLine is the command that made the results (metadata.json).
	CommandLine []string
	// Smooth is the moving window the per-episode figures were drawn with
	// (Options.Smooth), for their captions.
	Smooth int
	// Columns selects the measures of the results table
	// (results.TableCells); nil means those the data allow: the lengths
	// when they vary, cumulative reward and regret, and the plus count.
	Columns *results.Columns
	// Warnings are the run's warnings (results.Warning.String), listed
	// under the results table; none: no section.
	Warnings []string
}

// warningsIntro introduces the warnings section of both reports.
const warningsIntro = "Problems of single trials (agent, seed) that the means above can hide; smrl run, sweep and merge print the same lines on stderr. The thresholds are those of docs/outputs.md (Warnings)."

// Report writes dir/report.md: a title, the config's description and the
// command line (when info has them), the results table of
// results.TableCells from dir/summary.csv, formatted as smrl run prints it,
// and every figure in figures, in order, under a heading with a caption,
// linked by its path relative to dir (png and svg are embedded as images,
// other formats such as pdf are plain links, which Markdown cannot embed).
// It also writes dir/report.html (WriteHTML), the same report as one
// self-contained file.
func Report(dir string, figures []string) error { return ReportTo(dir, dir, figures, ReportInfo{}) }

// ReportTo is Report with the report written to reportDir/report.md (and
// the figures linked relative to reportDir) instead of into the results
// directory dir, which is only read.
func ReportTo(dir, reportDir string, figures []string, info ReportInfo) error {
	_, sumPath := resultsPaths(dir)
	sum, err := readSummary(sumPath, Options{})
	if err != nil {
		return err
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", dir, err)
	}
	absReport, err := filepath.Abs(reportDir)
	if err != nil {
		return fmt.Errorf("resolving %s: %w", reportDir, err)
	}
	rep := newReport(absDir, sum, figures, info)

	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", rep.title)
	if rep.description != "" {
		b.WriteString(rep.description + "\n\n")
	}
	if rep.command != "" {
		fmt.Fprintf(&b, "Command: %s\n\n", markdownCode(rep.command))
	}
	fmt.Fprintf(&b, "Generated from `%s` and `%s`%s. %s\n\n",
		summaryFile, episodesFile, fromElsewhere(absDir, absReport), rep.note)
	b.WriteString("## Results\n\n")
	b.WriteString(rep.results.markdown())
	if rep.tableNote != "" {
		b.WriteString("\n" + rep.tableNote + "\n")
	}
	if len(rep.warnings) > 0 {
		b.WriteString("\n## Warnings\n\n" + warningsIntro + "\n\n")
		for _, w := range rep.warnings {
			b.WriteString("- " + mdEscape(w) + "\n")
		}
	}
	agg, err := readAggregate(dir)
	if err != nil {
		return err
	}
	if rep.aggregate, err = aggregateTables(dir, agg); err != nil {
		return err
	}
	b.WriteString(rep.aggregate.markdown(""))
	if err := writeFigures(&b, absReport, figures, rep.caption); err != nil {
		return err
	}
	if err := writeReport(reportDir, &b); err != nil {
		return err
	}
	return writeHTML(absReport, rep)
}

// table is a table of a report, which report.md and report.html both
// render: its header cells and its rows of cells.
type reportTable struct {
	Head []string
	Rows [][]string
}

// markdown returns t as a Markdown table, its cells escaped (mdCells).
func (t reportTable) markdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(mdCells(t.Head), " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(t.Head)-1) + "|\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(mdCells(r), " | ") + " |\n")
	}
	return b.String()
}

// mdCells escapes the characters that would break a Markdown table cell
// (brackets stay: without a link target they are text).
func mdCells(cells []string) []string {
	r := strings.NewReplacer("|", `\|`, "`", "\\`")
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = r.Replace(c)
	}
	return out
}

// writeFigures appends a report's "Figures" section for the report at
// absReport: each figure under its name, with caption(name) when not
// empty, shown inline when a Markdown viewer can (PNG, SVG, JPEG), else
// linked.
func writeFigures(b *strings.Builder, absReport string, figs []string, caption func(name string) string) error {
	if len(figs) > 0 {
		b.WriteString("\n## Figures\n")
	}
	for _, fig := range figs {
		rel, err := relLink(absReport, fig)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(fig), filepath.Ext(fig))
		fmt.Fprintf(b, "\n### %s\n\n", mdEscape(name))
		if c := caption(name); c != "" {
			b.WriteString(c + "\n\n")
		}
		switch strings.ToLower(filepath.Ext(fig)) {
		case ".png", ".svg", ".jpg", ".jpeg":
			fmt.Fprintf(b, "![%s](%s)\n", mdEscape(name), rel)
		default:
			fmt.Fprintf(b, "[%s](%s)\n", mdEscape(name), rel)
		}
	}
	return nil
}

// writeReport writes b as dir/report.md, atomically.
func writeReport(dir string, b *strings.Builder) error {
	return fsutil.WriteFileAtomic(filepath.Join(dir, ReportFile), []byte(b.String()))
}

// fromElsewhere names the results directory in a report written outside
// it: " in `DIR`", or "" for a report inside.
func fromElsewhere(absDir, absReport string) string {
	if absDir == absReport {
		return ""
	}
	return fmt.Sprintf(" in `%s`", absDir)
}

// relLink returns fig's path relative to absDir as a URL path with forward
// slashes and escaped special characters.
func relLink(absDir, fig string) (string, error) {
	absFig, err := filepath.Abs(fig)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", fig, err)
	}
	rel, err := filepath.Rel(absDir, absFig)
	if err != nil {
		return "", fmt.Errorf("linking %s from %s: %w", fig, absDir, err)
	}
	u := url.URL{Path: filepath.ToSlash(rel)}
	return u.EscapedPath(), nil
}

// interval formats "mean [lo, hi]", "mean" when lo and hi are missing, or
// "–" when mean is missing.
func interval(mean, lo, hi float64) string {
	if math.IsNaN(mean) {
		return "–"
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return number(mean)
	}
	return fmt.Sprintf("%s [%s, %s]", number(mean), number(lo), number(hi))
}

// number formats a value by the tables' one rule (results.FormatNumber: four
// significant digits), "–" for NaN.
func number(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return results.FormatNumber(x)
}

// mdEscape escapes characters that would break a Markdown table cell or
// link text.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "[", `\[`, "]", `\]`, "`", "\\`")
	return r.Replace(s)
}

// markdownCode returns s as a Markdown code span that reads back as s
// exactly (CommonMark): delimited by one more backtick than the longest run
// of backticks in s, with a space inside each delimiter when s starts or
// ends with a backtick, or with spaces at both ends (a renderer strips one
// space on each side).
// A command's backticks then stay backticks, as the shell needs them.
func markdownCode(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	spaced := strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != ""
	if spaced || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
