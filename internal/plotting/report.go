package plotting

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/smrl-dev/smrl/internal/fsutil"
)

// ReportFile is the name of the report Report writes into a results
// directory.
const ReportFile = "report.md"

// figureCaptions describe the figures RunFigures writes, by name.
var figureCaptions = map[string]string{
	FigCumReward:    "Cumulative reward per episode: mean over seeds, shaded 95% Student-t interval.",
	FigCumRegret:    "Cumulative regret against the oracle: mean over seeds, shaded 95% Student-t interval.",
	FigRegretLogLog: "Regret growth on log–log axes: mean cumulative regret over seeds against episode k, with the least-squares slope of log regret on log k over the second half of the episodes (k > K/2) in the legend; √k growth is slope 0.5, linear growth slope 1.",
	FigPlusCount:    "Planner action choices: number of steps per episode with a = +1, mean and 95% interval.",
	FigWError:       "Frobenius error of the estimated W against the true W₀, mean over seeds.",
	FigMDP:          "The MDP: true transition densities from s = 0.5 for a = ±1, and the reward scaled to their maximum.",
	FigDensities:    "True (filled) and estimated (lines; solid a = +1, dashed a = −1) transition densities at 15 states, from each agent's final W of seed 0.",
	FigReturn:       "Return per episode: mean over seeds, shaded 95% Student-t interval.",
	FigSteps:        "Episode length (steps before a terminal state, at most H): mean over seeds, shaded 95% Student-t interval.",
	FigIntervals:    "Aggregate metrics of the per-seed score (mean return per episode of a seed, or over its final episodes): mean, median, interquartile mean and optimality gap against the oracle, each with its 95% stratified percentile-bootstrap interval (rliable).",
	FigProfile:      "Performance profile: the fraction of each agent's seeds whose score exceeds τ, with its 95% stratified bootstrap band.",
	FigMarginals:    "Next-state marginals at one query (s, a): the true distribution of each coordinate of s' (histogram of draws from the true transition) and each agent's learned marginal density from its final W of seed 0.",
}

// Report writes dir/report.md: a title, the final-episode summary table
// from dir/summary.csv (per agent: seeds, last episode, cumulative reward
// mean [lo, hi], cumulative regret mean [lo, hi] or "–" without an oracle,
// number of a = +1 choices mean [lo, hi], W error), and every figure in
// figures, in order, under a heading with a caption, linked by its path
// relative to dir (png and svg are embedded as images, other formats such
// as pdf are plain links, which Markdown cannot embed).
func Report(dir string, figures []string) error { return ReportTo(dir, dir, figures) }

// ReportTo is Report with the report written to reportDir/report.md (and
// the figures linked relative to reportDir) instead of into the results
// directory dir, which is only read.
func ReportTo(dir, reportDir string, figures []string) error {
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

	var b strings.Builder
	fmt.Fprintf(&b, "# smrl results: %s\n\n", filepath.Base(absDir))
	fmt.Fprintf(&b, "Generated from `%s` and `%s`%s. Values are means over seeds with 95%% Student-t intervals in brackets.\n\n",
		summaryFile, episodesFile, fromElsewhere(absDir, absReport))
	b.WriteString("## Final episode\n\n")
	terminating := sum.stepsVary()
	if terminating {
		b.WriteString("| agent | seeds | episode | return, last 20 episodes | first full-length episode (median; seeds that had one) | cumulative reward | cumulative regret | W error |\n")
		b.WriteString("|---|---:|---:|---|---|---|---|---:|\n")
	} else {
		b.WriteString("| agent | seeds | episode | cumulative reward | cumulative regret | plus count (steps with a = +1) | W error |\n")
		b.WriteString("|---|---:|---:|---|---|---|---:|\n")
	}
	for _, a := range sum.Agents {
		rows := sum.Rows[a]
		r := rows[len(rows)-1]
		if terminating {
			first := "never"
			if !math.IsNaN(r.FirstFullMedian) {
				first = number(r.FirstFullMedian)
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s (%s of %d) | %s | %s | %s |\n",
				mdEscape(a), r.Seeds, r.Episode,
				interval(r.FinalReturnMean, r.FinalReturnLo, r.FinalReturnHi), first, number(r.FullSeeds), r.Seeds,
				interval(r.CumRewardMean, r.CumRewardLo, r.CumRewardHi),
				interval(r.CumRegretMean, r.CumRegretLo, r.CumRegretHi),
				number(r.WErrorMean))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s |\n",
			mdEscape(a), r.Seeds, r.Episode,
			interval(r.CumRewardMean, r.CumRewardLo, r.CumRewardHi),
			interval(r.CumRegretMean, r.CumRegretLo, r.CumRegretHi),
			interval(r.PlusCountMean, r.PlusCountLo, r.PlusCountHi),
			number(r.WErrorMean))
	}

	agg, err := readAggregate(dir)
	if err != nil {
		return err
	}
	sec, err := aggregateSection(dir, agg)
	if err != nil {
		return err
	}
	b.WriteString(sec)
	if err := writeFigures(&b, absReport, figures, func(name string) string { return figureCaptions[name] }); err != nil {
		return err
	}
	return writeReport(reportDir, &b)
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

// number formats a value with four significant digits, "–" for NaN.
func number(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strings.Replace(fmt.Sprintf("%.4g", x), "e+0", "e+", 1)
}

// mdEscape escapes characters that would break a Markdown table cell or
// link text.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "[", `\[`, "]", `\]`, "`", "\\`")
	return r.Replace(s)
}
