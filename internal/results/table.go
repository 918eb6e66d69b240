package results

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// PaperFinal holds the paper's values after 50 episodes (figure
// "exp-syn-mdp", means over 5 seeds): cumulative reward and regret.
var PaperFinal = map[string][2]float64{
	"oracle": {237, 0},
	"sm":     {235, 2},
	"lds":    {170, 65},
}

// Columns says which measures suit a run's task, for the results table,
// the report and the figures.
type Columns struct {
	// Paper adds the paper's cumulative reward and regret (PaperFinal).
	Paper bool
	// Terminating: episodes can end before H, so their length and the
	// first episode that lasted H are reported.
	Terminating bool
	// Cumulative reports cumulative reward and regret at the last
	// episode, the paper's measures for its 1-D MDP (env.kind expfam).
	Cumulative bool
	// PlusCount reports the number of steps with a = +1, which means
	// something for discrete ±1 actions only.
	PlusCount bool
	// Flagged counts, per agent, the seeds with a warning (Warnings): the
	// table then ends with a column "warned seeds", "!k of n" for an
	// agent with k flagged seeds of n. Empty: no such column.
	Flagged map[string]int
}

// FlagSeeds returns the number of seeds with some warning, per agent.
func FlagSeeds(ws []Warning) map[string]int {
	type trial struct {
		agent string
		seed  int
	}
	seen := map[trial]bool{}
	out := map[string]int{}
	for _, w := range ws {
		if t := (trial{w.Agent, w.Seed}); !seen[t] {
			seen[t] = true
			out[w.Agent]++
		}
	}
	return out
}

// TableCells returns the final summary per agent (in the order of sums) as
// a header and rows of text cells, the same cells for the terminal table
// (Table), report.md and report.html. Every table leads with the mean
// return per episode over all episodes and, when some agent ran more than
// FinalEpisodes episodes, over its last FinalEpisodes; the other columns
// follow col, the warned seeds last. An interval that reached beyond the
// seeds' range is clipped to it and marked ClipMark (Stat.Clipped); note
// is then ClipNote, else empty.
func TableCells(sums []Summary, col Columns) (head []string, rows [][]string, note string) {
	last := map[string]Summary{}
	var order []string
	for _, s := range sums {
		if _, ok := last[s.Agent]; !ok {
			order = append(order, s.Agent)
		}
		last[s.Agent] = s
	}
	// The final window is a column of its own only when some agent has
	// more episodes than it spans.
	window := false
	wErr := false
	for _, a := range order {
		window = window || last[a].Episode > FinalEpisodes
		wErr = wErr || !math.IsNaN(last[a].WErrorMean)
	}
	head = []string{"agent", "episodes", "seeds", "return/episode [95% CI]"}
	if window {
		head = append(head, fmt.Sprintf("return, last %d ep [95%% CI]", FinalEpisodes))
	}
	if col.Terminating {
		head = append(head, "length/episode [95% CI]", "first full-length episode (seeds)")
	}
	if col.Cumulative {
		head = append(head, "cum reward [95% CI]", "cum regret [95% CI]")
	}
	if col.PlusCount {
		head = append(head, "plus count (last ep)")
	}
	if wErr {
		head = append(head, "|Ŵ−W0|_F (last ep)")
	}
	if col.Paper {
		head = append(head, "paper reward", "paper regret")
	}
	if len(col.Flagged) > 0 {
		head = append(head, "warned seeds")
	}
	anyClipped := false
	interval := func(s Stat) string {
		c, clipped := ci(s)
		anyClipped = anyClipped || clipped
		return c
	}
	for _, a := range order {
		s := last[a]
		line := []string{a, fmt.Sprint(s.Episode), fmt.Sprint(s.Seeds), interval(s.EpisodeReturn)}
		if window {
			line = append(line, interval(s.FinalReturn))
		}
		if col.Terminating {
			first := "never"
			if !math.IsNaN(s.FirstFullMedian) {
				first = FormatNumber(s.FirstFullMedian)
			}
			line = append(line, interval(s.EpisodeLength), fmt.Sprintf("%s (%d of %d)", first, s.FullSeeds, s.Seeds))
		}
		if col.Cumulative {
			line = append(line, interval(s.CumReward), interval(s.CumRegret))
		}
		if col.PlusCount {
			line = append(line, FormatNumber(s.PlusCount.Mean))
		}
		if wErr {
			w := "-"
			if !math.IsNaN(s.WErrorMean) {
				w = FormatNumber(s.WErrorMean)
			}
			line = append(line, w)
		}
		if col.Paper {
			if p, ok := PaperFinal[a]; ok {
				line = append(line, fmt.Sprintf("≈%g", p[0]), fmt.Sprintf("≈%g", p[1]))
			} else {
				line = append(line, "-", "-")
			}
		}
		if len(col.Flagged) > 0 {
			line = append(line, WarnedCell(col.Flagged[a], s.Seeds))
		}
		rows = append(rows, line)
	}
	if anyClipped {
		note = ClipNote
	}
	return head, rows, note
}

// Table writes the final summary per agent (TableCells) as an aligned
// text table, followed by the note on clipped intervals when there is one.
func Table(w io.Writer, sums []Summary, col Columns) error {
	head, rows, note := TableCells(sums, col)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if note != "" {
		_, err := fmt.Fprintln(w, note)
		return err
	}
	return nil
}

// ClipMark follows an interval of the table that was clipped to the
// seeds' range (Stat.Clipped); ClipNote explains it, under the table.
const (
	ClipMark = "†"
	ClipNote = ClipMark + " the 95% t interval reached beyond the seeds' values and is clipped to their range [min, max], as the figures' bands are; so clipped, it is no longer a 95% interval."
)

// FormatNumber formats a number of a table (the terminal's, report.md's and
// report.html's) by the one rule of all of them: four significant digits
// (%.4g: 4.775, 38.22, 0.1384, 1.235e-05), trailing zeros dropped, but a
// number of 10⁴ or more whole, without exponent (12346, not 1.235e+04);
// −0 written 0. Files keep every digit (strconv's shortest form).
func FormatNumber(x float64) string {
	if x == 0 {
		x = 0 // −0 reads as 0
	}
	s := fmt.Sprintf("%.4g", x)
	if strings.Contains(s, "e+") && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64) // 10⁴ or more after rounding
	}
	return strings.Replace(s, "e+0", "e+", 1)
}

// ci formats a mean with its interval (Number): "m [lo, hi]", with
// ClipMark after an interval clipped to the seeds' range, or
// "m [n/a: 1 seed]" without an interval, "-" without a mean. clipped
// reports the mark.
func ci(s Stat) (cell string, clipped bool) {
	switch {
	case math.IsNaN(s.Mean):
		return "-", false
	case math.IsNaN(s.Lo):
		return FormatNumber(s.Mean) + " [n/a: 1 seed]", false
	}
	lo, hi, clipped := s.Clipped()
	cell = fmt.Sprintf("%s [%s, %s]", FormatNumber(s.Mean), FormatNumber(lo), FormatNumber(hi))
	if clipped {
		cell += ClipMark
	}
	return cell, clipped
}

// WarnedCell is the "warned seeds" cell of k flagged seeds of n: "-" or
// "!k of n".
func WarnedCell(k, n int) string {
	if k == 0 {
		return "-"
	}
	return fmt.Sprintf("!%d of %d", k, n)
}
